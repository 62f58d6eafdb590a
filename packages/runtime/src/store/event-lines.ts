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
  // One buffer: the incomplete last line of a read is moved to its front and the next read lands
  // after it (concatenating a copy of every 1 MiB chunk cost ~15 ms of a 40 MB resume).
  let buffer = Buffer.allocUnsafe(2 * chunkBytes);
  let carryLength = 0;
  /** The file offset of `buffer[0]`. */
  let carryStart = start;
  let position = start;
  let bytesRead = 0;
  try {
    for (;;) {
      if (buffer.length - carryLength < chunkBytes) {
        // A line longer than the buffer: the buffer doubles, so a 50 MB line is copied ~twice in
        // all (growing by one chunk copied it ~25 times, 1.1 s of CPU in one synchronous stretch).
        const bigger = Buffer.allocUnsafe(Math.max(carryLength + chunkBytes, 2 * buffer.length));
        buffer.copy(bigger, 0, 0, carryLength);
        buffer = bigger;
      }
      const { bytesRead: read } = await handle.read(buffer, carryLength, chunkBytes, position);
      if (read === 0) break;
      position += read;
      bytesRead += read;
      const length = carryLength + read;
      // The complete lines are decoded in one piece and cut into lines as a string (decoding each
      // line on its own was ~10 % of a resume); newlines sit at the same places in the bytes and in
      // the text (UTF-8 never uses 0x0a inside a character), so the byte ranges come from the bytes.
      // The carried bytes hold no newline: only what was just read is searched.
      const newline = buffer.subarray(carryLength, length).lastIndexOf(0x0a);
      const complete = newline === -1 ? 0 : carryLength + newline + 1;
      const text = complete > 0 ? buffer.toString("utf8", 0, complete) : "";
      const stopped = text.length === complete ? asciiLines(text, carryStart, onLine) : mixedLines(buffer, complete, text, carryStart, onLine);
      if (stopped !== undefined) return { end: stopped, bytesRead, tornBytes: 0 };
      buffer.copyWithin(0, complete, length);
      carryLength = length - complete;
      carryStart += complete;
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
  return { end: carryStart, bytesRead, tornBytes: carryLength };
}

/**
 * The lines of `text` when each of its characters came from one byte (as many characters as bytes:
 * ASCII, or invalid bytes each decoded alone), so character and byte offsets agree. Returns the
 * end of the line `onLine` stopped at, if it did.
 */
function asciiLines(text: string, offset: number, onLine: (line: string, range: ByteRange) => boolean | void): number | undefined {
  for (let lineStart = 0; lineStart < text.length; ) {
    const newline = text.indexOf("\n", lineStart);
    const range: ByteRange = [offset + lineStart, offset + newline + 1];
    if (onLine(text.slice(lineStart, newline), range) === false) return range[1];
    lineStart = newline + 1;
  }
  return undefined;
}

/** The lines of `text`, decoded from `bytes[0, complete)` with multi-byte characters: byte ranges from the bytes. */
function mixedLines(bytes: Buffer, complete: number, text: string, offset: number, onLine: (line: string, range: ByteRange) => boolean | void): number | undefined {
  let lineStart = 0;
  let charStart = 0;
  for (let newline = bytes.indexOf(0x0a); newline !== -1 && newline < complete; newline = bytes.indexOf(0x0a, lineStart)) {
    const charEnd = text.indexOf("\n", charStart);
    const range: ByteRange = [offset + lineStart, offset + newline + 1];
    if (onLine(text.slice(charStart, charEnd), range) === false) return range[1];
    lineStart = newline + 1;
    charStart = charEnd + 1;
  }
  return undefined;
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
