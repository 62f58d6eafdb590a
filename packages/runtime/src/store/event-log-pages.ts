import { open, type FileHandle } from "node:fs/promises";
import type { LogPage, LogPosition } from "./types.js";

/** How many bytes of `events.jsonl` one page reads at most (a single longer event is still returned whole). */
export const pageByteBudget = 1024 * 1024;

/** The offset that stands for "the end of the file", whatever its size. */
export const endOfLog = Number.MAX_SAFE_INTEGER;

export type { LogPage, LogPosition } from "./types.js";

/** Opaque cursor text for a position (`f` or `b`, then the offset in base 36). */
export function encodeCursor(position: LogPosition): string {
  return `${position.direction === "forward" ? "f" : "b"}${position.offset.toString(36)}`;
}

/** The position a cursor names, or undefined when the text is not a cursor. */
export function decodeCursor(cursor: string): LogPosition | undefined {
  const match = /^([fb])([0-9a-z]{1,12})$/.exec(cursor);
  if (!match) return undefined;
  const offset = Number.parseInt(match[2]!, 36);
  if (!Number.isSafeInteger(offset)) return undefined;
  return { offset, direction: match[1] === "f" ? "forward" : "backward" };
}

/**
 * Reads one bounded page of an `events.jsonl` file: at most `max` events whose line `accept`s,
 * scanning at most about {@link pageByteBudget} bytes (so a filter that matches nothing still
 * returns promptly, with `hasMore` and a cursor further on). Forward pages run from `position`
 * toward the end; backward pages end at `position` (the file's end when it is past it) and run
 * toward the start. A torn last line (no newline yet) is left for a later read. A position that
 * is not at a line start — the file was rewritten since the cursor was made — is `expired`: the
 * page starts at the beginning (forward) or the end (backward) instead.
 */
export async function readLogPage(path: string, position: LogPosition, max: number, accept: (line: string) => boolean): Promise<LogPage> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return { lines: [], next: position, hasMore: false, expired: false };
  }
  try {
    const size = (await handle.stat()).size;
    // A backward read without a cursor starts at the end.
    const offset = position.offset === endOfLog ? size : position.offset;
    const expired = !(await atLineStart(handle, offset, size));
    if (position.direction === "forward") return await forwardPage(handle, size, expired ? 0 : offset, max, accept, expired);
    return await backwardPage(handle, size, expired ? size : offset, max, accept, expired);
  } finally {
    await handle.close();
  }
}

async function atLineStart(handle: FileHandle, offset: number, size: number): Promise<boolean> {
  if (offset === 0) return true;
  if (offset > size) return false;
  const byte = Buffer.alloc(1);
  await handle.read(byte, 0, 1, offset - 1);
  return byte[0] === 0x0a;
}

async function forwardPage(handle: FileHandle, size: number, start: number, max: number, accept: (line: string) => boolean, expired: boolean): Promise<LogPage> {
  const lines: string[] = [];
  let offset = start;
  let scanned = 0;
  while (offset < size && lines.length < max && scanned < pageByteBudget) {
    const chunk = await readRange(handle, offset, Math.min(size, offset + pageByteBudget - scanned));
    let lineStart = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1 && lines.length < max; newline = chunk.indexOf(0x0a, lineStart)) {
      const line = chunk.toString("utf8", lineStart, newline);
      if (line.trim() !== "" && accept(line)) lines.push(line);
      lineStart = newline + 1;
    }
    if (lineStart === 0) {
      // One line longer than what is left of the budget: read it whole (or stop at a torn last line).
      const end = await lineEnd(handle, offset, size);
      if (end === undefined) break;
      const line = (await readRange(handle, offset, end)).toString("utf8");
      if (accept(line)) lines.push(line);
      lineStart = end + 1 - offset;
    }
    offset += lineStart;
    scanned += lineStart;
  }
  const hasMore = (await lineEnd(handle, offset, size)) !== undefined;
  return { lines, next: { offset, direction: "forward" }, hasMore, expired };
}

async function backwardPage(handle: FileHandle, size: number, end: number, max: number, accept: (line: string) => boolean, expired: boolean): Promise<LogPage> {
  // Only complete lines count: a torn tail (no newline) is not an event yet.
  let limit = end;
  if (limit === size && size > 0) limit = (await lastNewlineBefore(handle, size)) + 1;
  const newestFirst: string[] = [];
  let cursor = limit;
  while (cursor > 0 && newestFirst.length < max && limit - cursor < pageByteBudget) {
    const from = Math.max(0, cursor - (pageByteBudget - (limit - cursor)));
    const chunk = await readRange(handle, from, cursor);
    // chunk ends with the newline of the newest line not yet read.
    let end = chunk.length - 1;
    let consumed = false;
    while (newestFirst.length < max) {
      const previous = end === 0 ? -1 : chunk.lastIndexOf(0x0a, end - 1);
      if (previous === -1 && from > 0) break;
      const line = chunk.toString("utf8", previous + 1, end);
      if (line.trim() !== "" && accept(line)) newestFirst.push(line);
      cursor = from + previous + 1;
      consumed = true;
      if (previous === -1) break;
      end = previous;
    }
    if (consumed) continue;
    // One line longer than what is left of the budget: read it whole.
    const start = (await lastNewlineBefore(handle, cursor - 1)) + 1;
    const line = (await readRange(handle, start, cursor - 1)).toString("utf8");
    if (accept(line)) newestFirst.push(line);
    cursor = start;
  }
  return { lines: newestFirst.reverse(), next: { offset: cursor, direction: "backward" }, hasMore: cursor > 0, expired };
}

/** The offset of the last newline before `end` (exclusive), or -1. Reads backward in 64 KiB steps. */
async function lastNewlineBefore(handle: FileHandle, end: number): Promise<number> {
  const step = 64 * 1024;
  for (let stop = end; stop > 0; ) {
    const start = Math.max(0, stop - step);
    const chunk = await readRange(handle, start, stop);
    const index = chunk.lastIndexOf(0x0a);
    if (index !== -1) return start + index;
    stop = start;
  }
  return -1;
}

/** The offset of the newline ending the line that starts at `start`, or undefined when it has none yet. */
async function lineEnd(handle: FileHandle, start: number, size: number): Promise<number | undefined> {
  const step = 64 * 1024;
  for (let from = start; from < size; from += step) {
    const chunk = await readRange(handle, from, Math.min(size, from + step));
    const index = chunk.indexOf(0x0a);
    if (index !== -1) return from + index;
  }
  return undefined;
}

async function readRange(handle: FileHandle, start: number, end: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, end - start));
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, start + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** The position just past the file's last complete line (where the next event will start). */
export async function tailPosition(path: string): Promise<LogPosition> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return { offset: 0, direction: "forward" };
  }
  try {
    const size = (await handle.stat()).size;
    return { offset: (await lastNewlineBefore(handle, size)) + 1, direction: "forward" };
  } finally {
    await handle.close();
  }
}
