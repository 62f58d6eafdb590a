import { open } from "node:fs/promises";

/** How much of the file is read at a time. */
const chunkBytes = 1024 * 1024;

/** A byte range `[start, end)` of the events file (a whole line with its newline). */
export type ByteRange = readonly [start: number, end: number];

/** What a pass over the lines of an events file saw. */
export interface LineScan {
  /** The offset just past the last complete (newline-terminated) line. */
  end: number;
  /** Bytes read from the file. */
  bytesRead: number;
  /** Bytes after the last complete line (a torn last line); 0 when the pass stopped early. */
  tornBytes: number;
}

/**
 * Calls `onLine` for every complete line of `path` from byte `start` on, in order, with the line's
 * text (without its newline) and its byte range (newline included). A last line without a newline
 * (a torn write) is not handed out: the events log cuts it off before it appends. `onLine` returns
 * `false` to stop early. Reads in 1 MiB chunks, so memory stays bounded whatever the file's size.
 *
 * @example
 * await forEachLine(path, 0, (line, range) => { events.push(JSON.parse(line)); });
 */
export async function forEachLine(path: string, start: number, onLine: (line: string, range: ByteRange) => boolean | void): Promise<LineScan> {
  const handle = await open(path, "r");
  let carry: Buffer = Buffer.alloc(0);
  /** The file offset of `carry[0]`. */
  let carryStart = start;
  let position = start;
  let bytesRead = 0;
  try {
    const chunk = Buffer.alloc(chunkBytes);
    for (;;) {
      const { bytesRead: read } = await handle.read(chunk, 0, chunkBytes, position);
      if (read === 0) break;
      position += read;
      bytesRead += read;
      const buffer = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, read)]) : chunk.subarray(0, read);
      let lineStart = 0;
      for (let newline = buffer.indexOf(0x0a); newline !== -1; newline = buffer.indexOf(0x0a, lineStart)) {
        const range: ByteRange = [carryStart + lineStart, carryStart + newline + 1];
        if (onLine(buffer.toString("utf8", lineStart, newline), range) === false) return { end: range[1], bytesRead, tornBytes: 0 };
        lineStart = newline + 1;
      }
      // Copied: `chunk` is reused by the next read.
      carry = Buffer.from(buffer.subarray(lineStart));
      carryStart += lineStart;
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
  return { end: carryStart, bytesRead, tornBytes: carry.length };
}

/**
 * The inside of a JSON array of the events in `path`'s bytes `[0, end)`: the lines joined with
 * commas, without parsing them (each line is one event's JSON text), leaving out `excluded` line
 * ranges (unreadable or blank lines, sorted). Works on bytes: the text is decoded once, at the end.
 *
 * @example
 * const body = await eventsArrayBody(path, 4096, []); // '{"type":…},{"type":…}'
 */
export async function eventsArrayBody(path: string, end: number, excluded: readonly ByteRange[]): Promise<string> {
  if (end <= 0) return "";
  const handle = await open(path, "r");
  const bytes = Buffer.allocUnsafe(end);
  try {
    let filled = 0;
    while (filled < end) {
      const { bytesRead } = await handle.read(bytes, filled, end - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled < end) throw Object.assign(new Error(`${path} is shorter than expected (${filled} < ${end} bytes)`), { code: "EIO" });
  } finally {
    await handle.close().catch(() => undefined);
  }
  const kept = keptRanges(end, excluded).map(([from, to]) => bytes.subarray(from, to));
  const joined = kept.length === 1 ? (kept[0] as Buffer) : Buffer.concat(kept);
  // Every kept line ends with its newline: each becomes the comma before the next event.
  for (let newline = joined.indexOf(0x0a); newline !== -1; newline = joined.indexOf(0x0a, newline + 1)) joined[newline] = 0x2c;
  return joined.toString("utf8", 0, Math.max(0, joined.length - 1));
}

/** `[0, end)` without the excluded ranges. */
function keptRanges(end: number, excluded: readonly ByteRange[]): ByteRange[] {
  const kept: ByteRange[] = [];
  let from = 0;
  for (const [start, stop] of excluded) {
    if (stop > end) break;
    if (start > from) kept.push([from, start]);
    from = Math.max(from, stop);
  }
  if (from < end) kept.push([from, end]);
  return kept;
}
