import { writeSync } from "node:fs";
import { open, readFile, type FileHandle } from "node:fs/promises";
import type { TandemError } from "../errors.js";
import type { Logger } from "../log.js";
import { importOnce } from "../import-once.js";
import { FlushSoon } from "./flush-soon.js";
import { LogFailures } from "./log-failures.js";
import { LogProgress } from "./log-progress.js";
import { persistenceFailed, type PersistenceOperation } from "./persistence-error.js";
import type { EventLogObserver, LogPage, LogPosition, LogRange, LogScan, SessionEventLog } from "./types.js";

export type { EventLogObserver } from "./types.js";

/** Reading the file whole or line by line (resume, history, `getMessages`), loaded with the first read: a new session only appends. */
const loadEventLines = importOnce(() => import("./event-lines.js"));
/** Reading the file a page at a time (`session.events.*`), loaded with the first page. */
const loadLogPages = importOnce(() => import("./event-log-pages.js"));

/**
 * Batches up to this size are written with a synchronous `write` (to the page cache: microseconds)
 * instead of through libuv's thread pool: a client sees a step's events only once they are written,
 * and the pool's round trip made each step of a 20-step custom-tool loop ~0.8 ms slower (`npm run
 * bench` scenario 4: 2.72 → 1.96 ms overhead per step, against 1.84 ms when events went out before
 * they were written). Larger batches (a big tool output) go through the pool.
 */
const syncWriteBytes = 64 * 1024;
/** Appended lines are written at the end of the event loop's turn, or at once past this many bytes. */
const maxBufferedBytes = 256 * 1024;
/** How much of the file's end is read at a time when looking for the end of its last line. */
const tailChunkBytes = 64 * 1024;

/**
 * Append-only `events.jsonl` writer. Lines are buffered and written in batches, one per turn of the
 * event loop (`flush-soon.ts`); `flush({ durable: true })` also fsyncs (done when a run ends);
 * `close` does that and releases the file.
 *
 * The file only ever holds complete lines, in the order they were appended:
 * - The log knows the byte offset of the end of the last complete line it wrote (`endOffset`). When
 *   the file is opened, a torn last line a crash left behind is cut off there (the reader skips it
 *   anyway, and an append would otherwise glue the next event onto it, losing both).
 * - A batch is written to the end until every byte is on disk (`write` may be partial on a full
 *   disk without failing). When a write fails (ENOSPC, EIO, EDQUOT, EROFS…), the complete lines
 *   that made it stay, the file is truncated back to the end of the last of them, and the unwritten
 *   lines go back, in order, to the front of the queue in memory. If the truncation fails too, it
 *   is repeated before the next write.
 * - A failure is reported once to the observers (`watch`) and kept in `failure`. While failed, the
 *   log writes nothing on its own (no timer retries against a broken disk): lines keep queueing in
 *   memory, and the next explicit `flush` (the owner's retry, a run end, `close`) tries again,
 *   oldest line first. A failed datasync is repeated by every later flush until it succeeds (after a
 *   failed fsync Linux may already have dropped the dirty pages; the failure is reported, and a
 *   later success is the best that can be known).
 *
 * @example
 * const log = new EventLog(path, logger);
 * log.watch({ failed: (error) => console.error(error.message) });
 * log.append(JSON.stringify(event));
 * await log.flush({ durable: true });
 * if (log.failure) console.error(`${log.heldLines} lines are held in memory`);
 */
export class EventLog implements SessionEventLog {
  /** Lines not yet on disk, oldest first (including those a failed write gave back). */
  private pending: string[] = [];
  /** Lines appended and lines handed to the kernel (a completed `write`: they survive the process, not yet a power loss). */
  readonly progress = new LogProgress();
  readonly showsHeldEvents = true;
  private pendingBytes = 0;
  private readonly soon = new FlushSoon(() => void this.flush());
  private handle: FileHandle | undefined;
  /** The byte offset of the end of the last complete line in the file (known once it is open). */
  private endOffset = 0;
  /** The file may extend past `endOffset` (a failed write whose truncation failed too). */
  private mustTruncate = false;
  /** A datasync failed: every flush repeats it until it succeeds. */
  private mustSync = false;
  private readonly failures: LogFailures;
  /** The chain of writes; each write waits for the previous one. */
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  /** The file was opened here once (so `endOffset` is known, also after `close`). */
  private opened = false;

  constructor(
    readonly path: string,
    private readonly logger: Logger,
  ) {
    this.failures = new LogFailures(logger, "events-file");
  }

  /** The events file. */
  get location(): string {
    return this.path;
  }

  /** Calls `onLine` for every complete line from byte `start` on (see `forEachLine` in `event-lines.ts`); a missing file has none. */
  async scan(start: number, onLine: (line: string, range: LogRange) => boolean | void): Promise<LogScan> {
    return (await loadEventLines()).forEachLine(this.path, start, onLine);
  }

  /** The line at the byte range, when the file holds exactly one complete line there (preceded by a newline). */
  async entryAt(range: LogRange): Promise<string | undefined> {
    const [lineStart, offset] = range;
    const handle = await open(this.path, "r").catch(() => undefined);
    if (!handle) return undefined;
    try {
      const size = (await handle.stat()).size;
      if (size < offset) return undefined;
      const readStart = Math.max(0, lineStart - 1);
      const bytes = Buffer.alloc(offset - readStart);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, readStart);
      if (bytesRead !== bytes.length || bytes[bytes.length - 1] !== 0x0a) return undefined;
      if (lineStart > 0 && bytes[0] !== 0x0a) return undefined;
      return bytes.toString("utf8", lineStart - readStart, bytes.length - 1);
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** The file's bytes `[0, end)` and the pending lines as a JSON array (see `eventsArrayBytes` in `event-lines.ts`). */
  async arrayBytes(end: number, excluded: readonly LogRange[], pending: readonly string[], prefix: string, suffix: string): Promise<Buffer> {
    return (await loadEventLines()).eventsArrayBytes(this.path, end, excluded, pending, prefix, suffix);
  }

  /** One page of the file's lines by byte-offset positions (see `readLogPage` in `event-log-pages.ts`). */
  async readPage(position: LogPosition, max: number, accept: (line: string) => boolean): Promise<LogPage> {
    return (await loadLogPages()).readLogPage(this.path, position, max, accept);
  }

  /** The position just past the file's last complete line. */
  async tail(): Promise<LogPosition> {
    return (await loadLogPages()).tailPosition(this.path);
  }

  /** Adds an observer of write failures; returns a function that removes it. */
  watch(observer: EventLogObserver): () => void {
    return this.failures.watch(observer);
  }

  /** The standing write failure, or undefined while the file is writable. */
  get failure(): TandemError | undefined {
    return this.failures.failure;
  }

  /** How many lines are waiting in memory (after a failure: the ones held until a retry succeeds). */
  get heldLines(): number {
    return this.pending.length;
  }

  /** Queues one line (without its newline). */
  append(line: string): void {
    if (this.closed) return;
    this.pending.push(line);
    this.progress.appended();
    this.pendingBytes += line.length;
    // While failed, lines wait for the owner's next flush (see the class comment).
    if (this.failures.failure) return;
    if (this.pendingBytes >= maxBufferedBytes) {
      void this.flush();
      return;
    }
    this.soon.schedule();
  }

  /**
   * Writes everything queued so far (and retries what a failure held back); with `durable`, waits
   * until it is on disk. Never rejects: afterwards `failure` tells whether it worked.
   */
  flush(options: { durable?: boolean } = {}): Promise<void> {
    this.soon.cancel();
    if (this.closed) return this.writing;
    const durable = options.durable === true;
    if (this.pending.length === 0 && !durable && !this.failures.failure) return this.writing;
    this.writing = this.writing.then(() => this.attempt(durable));
    return this.writing;
  }

  /**
   * Once the writes under way are done: the end of the file's last complete line written through
   * this log (undefined while the file was never opened here) and the lines not yet written, in
   * order. The file's first `endOffset` bytes followed by `pending` are every line appended so far.
   */
  position(): Promise<{ endOffset: number | undefined; pending: readonly string[] }> {
    return this.writing.then(() => ({ endOffset: this.opened ? this.endOffset : undefined, pending: [...this.pending] }));
  }

  /** Flushes and closes the file; lines that still cannot be written are logged as lost. */
  async close(): Promise<void> {
    await this.flush({ durable: true });
    this.closed = true;
    if (this.failures.failure && this.pending.length > 0) {
      this.logger.error(`${this.pending.length} event(s) of ${this.path} were never written and are lost: ${this.failures.failure.message}`);
    }
    const handle = this.handle;
    this.handle = undefined;
    // After a successful datasync a close error loses nothing on a local file system.
    if (handle) await handle.close().catch(() => undefined);
  }

  /** One write of everything pending (run inside the `writing` chain, so never concurrently). */
  private async attempt(durable: boolean): Promise<void> {
    const lines = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    let operation: PersistenceOperation = "open";
    /** Bytes of this batch known to be in the file. */
    let written = 0;
    try {
      const handle = this.handle ?? (await this.openHandle());
      if (this.mustTruncate) {
        operation = "truncate";
        await handle.truncate(this.endOffset);
        this.mustTruncate = false;
      }
      if (lines.length > 0) {
        operation = "write";
        const bytes = Buffer.from(`${lines.join("\n")}\n`);
        this.mustTruncate = true;
        while (written < bytes.length) {
          const bytesWritten = await writeSome(handle, bytes, written);
          if (bytesWritten <= 0) throw Object.assign(new Error("the write made no progress"), { code: "EIO" });
          written += bytesWritten;
        }
        this.mustTruncate = false;
        this.endOffset += bytes.length;
        this.progress.written(lines.length);
      }
      if (durable || this.mustSync) {
        operation = "datasync";
        this.mustSync = true;
        await handle.datasync();
        this.mustSync = false;
      }
    } catch (error) {
      const unwritten = unwrittenLines(operation, lines, () => this.keepCompleteLines(lines, written));
      if (unwritten.length > 0) this.pending = [...unwritten, ...this.pending];
      this.pendingBytes = this.pending.reduce((total, line) => total + line.length, 0);
      await this.cutTornTail();
      this.fail(persistenceFailed(this.path, error, operation));
      return;
    }
    if (!this.failures.recovered()) return;
    // Lines appended while failed were not scheduled.
    if (this.pending.length > 0) this.soon.schedule();
  }

  /** After a failed write of `lines` of which `written` bytes reached the file: counts the complete lines as written and returns the rest. */
  private keepCompleteLines(lines: readonly string[], written: number): string[] {
    let complete = 0;
    let bytes = 0;
    for (const line of lines) {
      const lineBytes = Buffer.byteLength(line) + 1;
      if (bytes + lineBytes > written) break;
      bytes += lineBytes;
      complete++;
    }
    this.endOffset += bytes;
    this.progress.written(complete);
    return lines.slice(complete);
  }

  /** Truncates the file back to the end of its last complete line (repeated before the next write if it fails). */
  private async cutTornTail(): Promise<void> {
    if (!this.mustTruncate || !this.handle) return;
    try {
      await this.handle.truncate(this.endOffset);
      this.mustTruncate = false;
    } catch (error) {
      this.logger.error(`could not cut a partly written line from ${this.path}; will retry before the next write`, error);
    }
  }

  private fail(error: TandemError): void {
    this.soon.cancel();
    this.failures.report(error, this.pending.length);
  }


  /** Opens the file for appending (once) and cuts a torn last line left by a crash. */
  private async openHandle(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    // "a+" (not "a"): the end of the file must be readable to find its last complete line.
    const handle = await open(this.path, "a+");
    try {
      const { size } = await handle.stat();
      const end = await endOfLastCompleteLine(handle, size);
      if (end < size) {
        this.logger.warn(`cutting a torn last line (${size - end} bytes) from ${this.path}`);
        await handle.truncate(end);
      }
      this.endOffset = end;
      this.opened = true;
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    this.handle = handle;
    return handle;
  }
}

/** Which lines of a failed batch must be written again, by the step that failed. */
function unwrittenLines(operation: PersistenceOperation, lines: string[], afterPartialWrite: () => string[]): string[] {
  if (operation === "write") return afterPartialWrite();
  // A failed datasync comes after the lines were written: they are in the file (not yet durable).
  if (operation === "datasync") return [];
  return lines;
}

/** The offset just past the last newline of a file of `size` bytes (0 when it has none). */
async function endOfLastCompleteLine(handle: FileHandle, size: number): Promise<number> {
  if (size === 0) return 0;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  if (last[0] === 0x0a) return size;
  const chunk = Buffer.alloc(tailChunkBytes);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - tailChunkBytes);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (newline !== -1) return start + newline + 1;
    end = start;
  }
  return 0;
}

/** What reading an events file found, besides the events handed out one by one. */
export interface EventsFileSummary {
  /** The JSON text of every readable event, comma-separated (the inside of a JSON array). */
  arrayBody: string;
  /** How many readable events the file holds. */
  count: number;
  /** Lines that could not be parsed (a torn last line after a crash, or corruption). */
  skippedLines: number;
}

/**
 * Reads `events.jsonl`, parsing it one line at a time and handing each readable event to
 * `onEvent`, in file order. Nothing here keeps the parsed events, so what the caller does not keep
 * dies young: resuming 100,000 events this way spends a fraction of the garbage-collection time of
 * parsing the file as one array (whose objects all survive until the end and get promoted). A line
 * that does not parse (typically the torn last line of a crash) is skipped with a warning and
 * counted, never fatal, and never part of `arrayBody`; blank lines are ignored.
 *
 * @example
 * const { arrayBody, count } = await readEventsFile<SessionEvent>(path, logger, (event) => history.add(event));
 */
export async function readEventsFile<T>(path: string, logger: Logger, onEvent: (event: T) => void): Promise<EventsFileSummary> {
  const text = await readFile(path, "utf8");
  /** Lines left out of `arrayBody` (unreadable or blank), by their start offset. */
  const leftOut = new Set<number>();
  let count = 0;
  let skippedLines = 0;
  let lineNumber = 0;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    lineNumber++;
    const line = text.slice(start, end);
    let event: T;
    try {
      event = JSON.parse(line) as T;
    } catch {
      leftOut.add(start);
      if (line.trim() !== "") {
        skippedLines++;
        logger.warn(`skipping unreadable line ${lineNumber} of ${path} (torn write?)`);
      }
      start = end + 1;
      continue;
    }
    count++;
    onEvent(event);
    start = end + 1;
  }
  return { arrayBody: leftOut.size === 0 ? text.trimEnd().replaceAll("\n", ",") : joinReadableLines(text, leftOut), count, skippedLines };
}

/** The lines of `text` not left out, joined with commas. */
function joinReadableLines(text: string, leftOut: ReadonlySet<number>): string {
  const kept: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    if (!leftOut.has(start)) kept.push(text.slice(start, end));
    start = end + 1;
  }
  return kept.join(",");
}

/** Writes the bytes of `bytes` from `offset` on to the file's end; how many were written (a small batch synchronously, see `syncWriteBytes`). */
async function writeSome(handle: FileHandle, bytes: Buffer, offset: number): Promise<number> {
  const length = bytes.length - offset;
  if (bytes.length <= syncWriteBytes) return writeSync(handle.fd, bytes, offset, length);
  return (await handle.write(bytes, offset, length)).bytesWritten;
}
