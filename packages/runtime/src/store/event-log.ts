import { open, readFile, type FileHandle } from "node:fs/promises";
import type { Logger } from "../log.js";

/** How long appended lines may wait before they are written (they are written sooner when large). */
const flushDelayMs = 5;
const maxBufferedBytes = 256 * 1024;

/**
 * Append-only `events.jsonl` writer. Lines are buffered and written in batches off the event path;
 * `flush({ durable: true })` also fsyncs (done when a run ends); `close` does that and releases the
 * file.
 *
 * @example
 * const log = new EventLog(path, logger);
 * log.append(JSON.stringify(event));
 * await log.flush({ durable: true });
 */
export class EventLog {
  private pending: string[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private handle: Promise<FileHandle> | undefined;
  /** The chain of writes; each write waits for the previous one. */
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    readonly path: string,
    private readonly logger: Logger,
  ) {}

  /** Queues one line (without its newline). */
  append(line: string): void {
    if (this.closed) return;
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= maxBufferedBytes) {
      void this.flush();
      return;
    }
    this.timer ??= setTimeout(() => void this.flush(), flushDelayMs);
  }

  /** Writes everything queued so far; with `durable`, waits until it is on disk. */
  flush(options: { durable?: boolean } = {}): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const batch = this.takePending();
    const durable = options.durable === true;
    if (!batch && !durable) return this.writing;
    this.writing = this.writing.then(async () => {
      try {
        const handle = await this.openHandle();
        if (batch) await handle.write(batch);
        if (durable) await handle.datasync();
      } catch (error) {
        this.logger.error(`failed to write ${this.path}`, error);
      }
    });
    return this.writing;
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    await this.flush({ durable: true });
    this.closed = true;
    const handle = this.handle;
    this.handle = undefined;
    if (handle) await (await handle).close().catch(() => undefined);
  }

  private takePending(): string {
    if (this.pending.length === 0) return "";
    const batch = `${this.pending.join("\n")}\n`;
    this.pending = [];
    this.pendingBytes = 0;
    return batch;
  }

  private openHandle(): Promise<FileHandle> {
    this.handle ??= open(this.path, "a");
    return this.handle;
  }
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
