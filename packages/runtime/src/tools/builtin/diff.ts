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
