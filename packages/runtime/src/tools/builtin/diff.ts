import type { StructuredPatchHunk } from "diff";

/**
 * Git-style unified diffs of two texts, line by line, with 3 lines of context: jsdiff (`diff`)
 * computes the hunks (loaded on first use); this module writes git's headers and range conventions.
 *
 * @example
 * await unifiedDiff("a\nb\n", "a\nc\n", "/work/notes.txt");
 * // diff --git a/work/notes.txt b/work/notes.txt
 * // --- a/work/notes.txt
 * // +++ b/work/notes.txt
 * // @@ -1,2 +1,2 @@
 * //  a
 * // -b
 * // +c
 */
export async function unifiedDiff(oldText: string, newText: string, fileName: string, options: { created?: boolean } = {}): Promise<string> {
  const { structuredPatch } = await import("diff");
  const display = fileName.startsWith("/") ? fileName.slice(1) : fileName;
  const header = [`diff --git a/${display} b/${display}`];
  if (options.created) header.push("new file mode 100644", "--- /dev/null", `+++ b/${display}`);
  else header.push(`--- a/${display}`, `+++ b/${display}`);
  const patch = structuredPatch(display, display, oldText, newText, undefined, undefined, { context: CONTEXT_LINES, maxEditLength: MAX_EDIT_DISTANCE });
  const hunks = patch ? patch.hunks : [wholeReplacement(oldText, newText)];
  if (hunks.length === 0) return options.created ? `${header.join("\n")}\n` : "";
  const body = hunks.flatMap((hunk) => [`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`, ...hunk.lines]);
  return `${[...header, ...body].join("\n")}\n`;
}

const CONTEXT_LINES = 3;
/** Past this many differences the whole text is shown as one replacement (keeps huge rewrites fast). */
const MAX_EDIT_DISTANCE = 1000;
const NO_NEWLINE = "\\ No newline at end of file";

interface Line {
  text: string;
  /** The last line of a text that does not end in a newline. */
  noNewline: boolean;
}

/**
 * The diff past {@link MAX_EDIT_DISTANCE}: the common leading and trailing lines kept, everything
 * between them shown as one replacement, with the usual context.
 */
function wholeReplacement(oldText: string, newText: string): StructuredPatchHunk {
  const oldLines = splitLines(oldText);
  const newLines = splitLines(newText);
  const same = (left: Line | undefined, right: Line | undefined) => left !== undefined && right !== undefined && left.text === right.text && left.noNewline === right.noNewline;
  let prefix = 0;
  while (prefix < oldLines.length && prefix < newLines.length && same(oldLines[prefix], newLines[prefix])) prefix++;
  let suffix = 0;
  while (suffix < oldLines.length - prefix && suffix < newLines.length - prefix && same(oldLines.at(-1 - suffix), newLines.at(-1 - suffix))) suffix++;
  const before = Math.min(CONTEXT_LINES, prefix);
  const after = Math.min(CONTEXT_LINES, suffix);
  const render = (marker: string, lines: Line[]) => lines.flatMap((line) => (line.noNewline ? [`${marker}${line.text}`, NO_NEWLINE] : [`${marker}${line.text}`]));
  const lines = [
    ...render(" ", oldLines.slice(prefix - before, prefix)),
    ...render("-", oldLines.slice(prefix, oldLines.length - suffix)),
    ...render("+", newLines.slice(prefix, newLines.length - suffix)),
    ...render(" ", oldLines.slice(oldLines.length - suffix, oldLines.length - suffix + after)),
  ];
  const oldCount = oldLines.length - prefix - suffix + before + after;
  const newCount = newLines.length - prefix - suffix + before + after;
  return { oldStart: prefix - before + 1, oldLines: oldCount, newStart: prefix - before + 1, newLines: newCount, lines };
}

function splitLines(text: string): Line[] {
  if (text === "") return [];
  const parts = text.split("\n");
  const endsWithNewline = parts.at(-1) === "";
  if (endsWithNewline) parts.pop();
  return parts.map((part, index) => ({ text: part, noNewline: !endsWithNewline && index === parts.length - 1 }));
}

// Git's convention (jsdiff counts from 1): an empty range names the line before it; a one-line range has no count.
function range(start: number, count: number): string {
  if (count === 0) return `${start - 1},0`;
  if (count === 1) return `${start}`;
  return `${start},${count}`;
}

/** How a created file's diff is drawn for a client generation (see `compat/profile.ts`). */
export interface DisplayDiffOptions {
  /** The file did not exist: its diff is against an empty text. */
  created?: boolean;
  /**
   * Whether a created file's diff counts the empty text after the final newline as one more added
   * line (`+1,3` for `"a\nb\n"`, 1.0.10's form) or not (`+1,2`, today's).
   */
  createdCountsFinalEmptyLine?: boolean;
}

/**
 * The diff the events of the file tools show (a write permission request's `diff`,
 * `tool.execution_complete.result.detailedContent`), in the form the reference runtimes write: a
 * leading newline, `index 0000000..0000000`, a created file as `create file mode 100644` against
 * `a/dev/null`, an existing file compared line by line as split at each newline (so the empty text
 * after a final newline is a line of its own), hunk ranges with both numbers always. Not meant for
 * `git apply` (see {@link unifiedDiff} for that).
 *
 * @example
 * await displayDiff("alpha\nbeta\n", "alpha\ngamma\n", "/work/notes.txt");
 * // "\ndiff --git a/work/notes.txt b/work/notes.txt\nindex 0000000..0000000 100644\n--- a/work/notes.txt\n+++ b/work/notes.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+gamma\n \n"
 */
export async function displayDiff(oldText: string, newText: string, fileName: string, options: DisplayDiffOptions = {}): Promise<string> {
  const { structuredPatch } = await import("diff");
  const display = fileName.startsWith("/") ? fileName.slice(1) : fileName;
  const header = options.created
    ? [`diff --git a/${display} b/${display}`, "create file mode 100644", "index 0000000..0000000", "--- a/dev/null", `+++ b/${display}`]
    : [`diff --git a/${display} b/${display}`, "index 0000000..0000000 100644", `--- a/${display}`, `+++ b/${display}`];
  // A newline after each text makes the piece after its last newline a line of its own.
  const before = options.created ? "" : `${oldText}\n`;
  const after = options.created && !options.createdCountsFinalEmptyLine ? newText : `${newText}\n`;
  const patch = structuredPatch(display, display, before, after, undefined, undefined, { context: CONTEXT_LINES, maxEditLength: MAX_EDIT_DISTANCE });
  const hunks = patch ? patch.hunks : [wholeReplacement(before, after)];
  const body = hunks.flatMap((hunk) => [`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines]);
  return `\n${[...header, ...body].join("\n")}\n`;
}

/**
 * A file shown whole, as the reference runtimes put a viewed file in `detailedContent`: the
 * {@link displayDiff} header and one hunk with every line (split at each newline) as context.
 *
 * @example
 * viewedFileDiff("alpha\nbeta\n", "/work/notes.txt");
 * // "\ndiff --git a/work/notes.txt b/work/notes.txt\nindex 0000000..0000000 100644\n--- a/work/notes.txt\n+++ b/work/notes.txt\n@@ -1,3 +1,3 @@\n alpha\n beta\n \n"
 */
export function viewedFileDiff(text: string, fileName: string): string {
  const display = fileName.startsWith("/") ? fileName.slice(1) : fileName;
  const lines = text.split("\n");
  const header = [`diff --git a/${display} b/${display}`, "index 0000000..0000000 100644", `--- a/${display}`, `+++ b/${display}`];
  return `\n${[...header, `@@ -1,${lines.length} +1,${lines.length} @@`, ...lines.map((line) => ` ${line}`)].join("\n")}\n`;
}
