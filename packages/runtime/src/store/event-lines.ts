import { open } from "node:fs/promises";
import type { LogRange, LogScan } from "./types.js";

/** How much of the file is read at a time. */
const chunkBytes = 1024 * 1024;

/** A byte range `[start, end)` of the events file (a whole line with its newline). */
export type ByteRange = LogRange;

/** What a pass over the lines of an events file saw. */
export type LineScan = LogScan;

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
      // The complete lines are decoded in one piece and cut into lines as a string (decoding each
      // line on its own was ~10 % of a resume); newlines sit at the same places in the bytes and in
      // the text (UTF-8 never uses 0x0a inside a character), so the byte ranges come from the bytes.
      const complete = buffer.lastIndexOf(0x0a) + 1;
      const text = complete > 0 ? buffer.toString("utf8", 0, complete) : "";
      let lineStart = 0;
      let charStart = 0;
      for (let newline = buffer.indexOf(0x0a); newline !== -1 && newline < complete; newline = buffer.indexOf(0x0a, lineStart)) {
        const charEnd = text.indexOf("\n", charStart);
        const range: ByteRange = [carryStart + lineStart, carryStart + newline + 1];
        if (onLine(text.slice(charStart, charEnd), range) === false) return { end: range[1], bytesRead, tornBytes: 0 };
        lineStart = newline + 1;
        charStart = charEnd + 1;
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
 * The events in `path`'s bytes `[0, end)` followed by the `pending` lines, as the UTF-8 bytes of a
 * JSON array between `prefix` and `suffix` (e.g. `{"events":[` and `]}`): the file's lines joined
 * with commas without parsing or decoding them (each line is one event's JSON text), leaving out
 * the `excluded` line ranges (unreadable or blank lines, sorted). One buffer, filled in place.
 *
 * @example
 * const bytes = await eventsArrayBytes(path, 4096, [], [], "[", "]"); // [{"type":…},{"type":…}]
 */
export async function eventsArrayBytes(path: string, end: number, excluded: readonly ByteRange[], pending: readonly string[], prefix: string, suffix: string): Promise<Buffer> {
  const pendingBytes = pending.reduce((total, line) => total + Buffer.byteLength(line, "utf8") + 1, 0);
  const bytes = Buffer.allocUnsafe(Buffer.byteLength(prefix) + end + pendingBytes + Buffer.byteLength(suffix));
  let length = bytes.write(prefix);
  if (end > 0) {
    await readInto(path, bytes, length, end);
    length += removeRanges(bytes, length, end, excluded);
  }
  for (const line of pending) {
    length += bytes.write(line, length);
    bytes[length++] = 0x0a;
  }
  const bodyStart = Buffer.byteLength(prefix);
  // Every line ends with its newline: each becomes the comma before the next event; the last one goes.
  for (let newline = bytes.indexOf(0x0a, bodyStart); newline !== -1 && newline < length; newline = bytes.indexOf(0x0a, newline + 1)) bytes[newline] = 0x2c;
  if (length > bodyStart) length--;
  length += bytes.write(suffix, length);
  return bytes.subarray(0, length);
}

/** Reads `path`'s first `count` bytes into `bytes` at `at`. */
async function readInto(path: string, bytes: Buffer, at: number, count: number): Promise<void> {
  const handle = await open(path, "r");
  try {
    let filled = 0;
    while (filled < count) {
      const { bytesRead } = await handle.read(bytes, at + filled, count - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    // The region ends with a complete line unless the file was changed behind the log's back (never send half a JSON text).
    if (filled < count || bytes[at + count - 1] !== 0x0a) throw Object.assign(new Error(`${path} changed outside the runtime: no complete line ends at byte ${count}`), { code: "EIO" });
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Moves the file bytes at `bytes[at, at + count)` together over the excluded line ranges; returns how many remain. */
function removeRanges(bytes: Buffer, at: number, count: number, excluded: readonly ByteRange[]): number {
  let kept = 0;
  let from = 0;
  for (const [start, stop] of excluded) {
    if (stop > count) break;
    if (start > from) bytes.copyWithin(at + kept, at + from, at + start);
    kept += Math.max(0, start - from);
    from = Math.max(from, stop);
  }
  if (from < count) bytes.copyWithin(at + kept, at + from, at + count);
  return kept + Math.max(0, count - from);
}
