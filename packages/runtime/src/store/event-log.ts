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

/** What reading an events file found. */
export interface ReadEventsResult<T> {
  events: T[];
  /** The JSON text of every readable event, comma-separated (the inside of a JSON array). */
  arrayBody: string;
  /** How many readable events the file holds. */
  count: number;
  /** Lines that could not be parsed (a torn last line after a crash, or corruption). */
  skippedLines: number;
}

/**
 * Reads `events.jsonl`. A line that does not parse (typically the torn last line of a crash) is
 * skipped and counted, never fatal.
 */
export async function readEventsFile<T>(path: string, logger: Logger): Promise<ReadEventsResult<T>> {
  const text = await readFile(path, "utf8");
  // Fast path: the file is one JSON array once its newlines become commas; per-line parsing only
  // when some line is damaged (or blank).
  const arrayBody = text.trimEnd().replaceAll("\n", ",");
  try {
    const events = JSON.parse(`[${arrayBody}]`) as T[];
    return { events, arrayBody, count: events.length, skippedLines: 0 };
  } catch {
    return readLineByLine<T>(text, path, logger);
  }
}

function readLineByLine<T>(text: string, path: string, logger: Logger): ReadEventsResult<T> {
  const events: T[] = [];
  const lines: string[] = [];
  let skippedLines = 0;
  let start = 0;
  let lineNumber = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    lineNumber++;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === "") continue;
    try {
      events.push(JSON.parse(line) as T);
      lines.push(line);
    } catch {
      skippedLines++;
      logger.warn(`skipping unreadable line ${lineNumber} of ${path} (torn write?)`);
    }
  }
  return { events, arrayBody: lines.join(","), count: lines.length, skippedLines };
}
