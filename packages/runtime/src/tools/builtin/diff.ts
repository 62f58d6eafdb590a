/**
 * Git-style unified diffs of two texts, line by line (Myers' algorithm, 3 lines of context).
 *
 * @example
 * unifiedDiff("a\nb\n", "a\nc\n", "/work/notes.txt");
 * // diff --git a/work/notes.txt b/work/notes.txt
 * // --- a/work/notes.txt
 * // +++ b/work/notes.txt
 * // @@ -1,2 +1,2 @@
 * //  a
 * // -b
 * // +c
 */
export function unifiedDiff(oldText: string, newText: string, fileName: string, options: { created?: boolean } = {}): string {
  const oldLines = splitLines(oldText);
  const newLines = splitLines(newText);
  const operations = diffLines(oldLines, newLines);
  const hunks = buildHunks(operations, CONTEXT_LINES);
  const display = fileName.startsWith("/") ? fileName.slice(1) : fileName;
  const header = [`diff --git a/${display} b/${display}`];
  if (options.created) header.push("new file mode 100644", "--- /dev/null", `+++ b/${display}`);
  else header.push(`--- a/${display}`, `+++ b/${display}`);
  if (hunks.length === 0) return options.created ? `${header.join("\n")}\n` : "";
  const body = hunks.flatMap((hunk) => renderHunk(hunk, oldLines, newLines));
  return `${[...header, ...body].join("\n")}\n`;
}

const CONTEXT_LINES = 3;
/** Past this many differences the middle is shown as one replacement (keeps huge rewrites fast). */
const MAX_EDIT_DISTANCE = 1000;

interface Line {
  text: string;
  /** The last line of a text that does not end in a newline. */
  noNewline: boolean;
}

type Operation = { kind: "equal"; oldIndex: number; newIndex: number } | { kind: "delete"; oldIndex: number } | { kind: "insert"; newIndex: number };

function splitLines(text: string): Line[] {
  if (text === "") return [];
  const parts = text.split("\n");
  const endsWithNewline = parts.at(-1) === "";
  if (endsWithNewline) parts.pop();
  return parts.map((part, index) => ({ text: part, noNewline: !endsWithNewline && index === parts.length - 1 }));
}

function sameLine(left: Line | undefined, right: Line | undefined): boolean {
  return left !== undefined && right !== undefined && left.text === right.text && left.noNewline === right.noNewline;
}

/** The edit script turning `oldLines` into `newLines`. */
function diffLines(oldLines: Line[], newLines: Line[]): Operation[] {
  let prefix = 0;
  while (prefix < oldLines.length && prefix < newLines.length && sameLine(oldLines[prefix], newLines[prefix])) prefix++;
  let suffix = 0;
  while (
    suffix < oldLines.length - prefix &&
    suffix < newLines.length - prefix &&
    sameLine(oldLines[oldLines.length - 1 - suffix], newLines[newLines.length - 1 - suffix])
  ) {
    suffix++;
  }
  const operations: Operation[] = [];
  for (let index = 0; index < prefix; index++) operations.push({ kind: "equal", oldIndex: index, newIndex: index });
  const oldMiddle = oldLines.slice(prefix, oldLines.length - suffix);
  const newMiddle = newLines.slice(prefix, newLines.length - suffix);
  for (const operation of myers(oldMiddle, newMiddle)) operations.push(shift(operation, prefix));
  for (let index = suffix; index > 0; index--) {
    operations.push({ kind: "equal", oldIndex: oldLines.length - index, newIndex: newLines.length - index });
  }
  return operations;
}

function shift(operation: Operation, by: number): Operation {
  switch (operation.kind) {
    case "equal":
      return { kind: "equal", oldIndex: operation.oldIndex + by, newIndex: operation.newIndex + by };
    case "delete":
      return { kind: "delete", oldIndex: operation.oldIndex + by };
    case "insert":
      return { kind: "insert", newIndex: operation.newIndex + by };
  }
}

function replaceAll(oldLines: Line[], newLines: Line[]): Operation[] {
  return [
    ...oldLines.map((_, oldIndex): Operation => ({ kind: "delete", oldIndex })),
    ...newLines.map((_, newIndex): Operation => ({ kind: "insert", newIndex })),
  ];
}

/** Myers' O((N+M)·D) shortest edit script, recovered from the saved frontier of each step. */
function myers(oldLines: Line[], newLines: Line[]): Operation[] {
  const n = oldLines.length;
  const m = newLines.length;
  if (n === 0 || m === 0) return replaceAll(oldLines, newLines);
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const frontier = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let distance = 0; distance <= max && !found; distance++) {
    trace.push(frontier.slice());
    for (let diagonal = -distance; diagonal <= distance; diagonal += 2) {
      const down = diagonal === -distance || (diagonal !== distance && frontier[offset + diagonal - 1]! < frontier[offset + diagonal + 1]!);
      let x = down ? frontier[offset + diagonal + 1]! : frontier[offset + diagonal - 1]! + 1;
      let y = x - diagonal;
      while (x < n && y < m && sameLine(oldLines[x], newLines[y])) {
        x++;
        y++;
      }
      frontier[offset + diagonal] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  if (!found) return replaceAll(oldLines, newLines);

  const reversed: Operation[] = [];
  let x = n;
  let y = m;
  for (let distance = trace.length - 1; distance >= 0; distance--) {
    const previous = trace[distance]!;
    const diagonal = x - y;
    const down = diagonal === -distance || (diagonal !== distance && previous[offset + diagonal - 1]! < previous[offset + diagonal + 1]!);
    const previousDiagonal = down ? diagonal + 1 : diagonal - 1;
    const previousX = distance === 0 ? 0 : previous[offset + previousDiagonal]!;
    const previousY = distance === 0 ? 0 : previousX - previousDiagonal;
    while (x > previousX && y > previousY) {
      x--;
      y--;
      reversed.push({ kind: "equal", oldIndex: x, newIndex: y });
    }
    if (distance === 0) break;
    if (down) reversed.push({ kind: "insert", newIndex: --y });
    else reversed.push({ kind: "delete", oldIndex: --x });
  }
  return reversed.reverse();
}

interface Hunk {
  operations: Operation[];
  oldStart: number;
  newStart: number;
}

function buildHunks(operations: Operation[], context: number): Hunk[] {
  const changeIndexes = operations.flatMap((operation, index) => (operation.kind === "equal" ? [] : [index]));
  if (changeIndexes.length === 0) return [];
  const ranges: Array<[number, number]> = [];
  for (const index of changeIndexes) {
    const start = Math.max(0, index - context);
    const end = Math.min(operations.length - 1, index + context);
    const last = ranges.at(-1);
    if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end);
    else ranges.push([start, end]);
  }
  return ranges.map(([start, end]) => {
    // Where each side stands at the first operation of the hunk.
    let oldStart = 0;
    let newStart = 0;
    for (let index = 0; index < start; index++) {
      const operation = operations[index]!;
      if (operation.kind !== "insert") oldStart++;
      if (operation.kind !== "delete") newStart++;
    }
    return { operations: operations.slice(start, end + 1), oldStart, newStart };
  });
}

function renderHunk(hunk: Hunk, oldLines: Line[], newLines: Line[]): string[] {
  const oldCount = hunk.operations.filter((operation) => operation.kind !== "insert").length;
  const newCount = hunk.operations.filter((operation) => operation.kind !== "delete").length;
  const lines = [`@@ -${range(hunk.oldStart, oldCount)} +${range(hunk.newStart, newCount)} @@`];
  for (const operation of hunk.operations) {
    const line = operation.kind === "insert" ? newLines[operation.newIndex]! : oldLines[operation.oldIndex]!;
    const marker = operation.kind === "equal" ? " " : operation.kind === "delete" ? "-" : "+";
    lines.push(`${marker}${line.text}`);
    if (line.noNewline) lines.push("\\ No newline at end of file");
  }
  return lines;
}

// Git's convention: an empty range names the line before it; a one-line range has no count.
function range(start: number, count: number): string {
  if (count === 0) return `${start},0`;
  if (count === 1) return `${start + 1}`;
  return `${start + 1},${count}`;
}
