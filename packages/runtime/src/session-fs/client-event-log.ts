import type { TandemError } from "../errors.js";
import type { Logger } from "../log.js";
import { endOfLog } from "../store/event-log-pages.js";
import { BatchedAppends } from "../store/batched-appends.js";
import { persistenceFailed } from "../store/persistence-error.js";
import type { LogPage, LogPosition, LogRange, LogScan, SessionEventLog } from "../store/types.js";
import type { ClientFileSystem } from "./client-file-system.js";

/**
 * A session's `events.jsonl` in the file system a client provides. Positions count entries (the
 * n-th complete line occupies `[n - 1, n)`), so they do not depend on how the client stores text.
 * Appends are batched (one batch per turn of the event loop, or 500 events) into one
 * `sessionFs.appendFile`; reads fetch the file once per call. A failed append keeps the batch in memory, in order, tells the observers once and
 * is retried by the next explicit `flush`, as the other logs do.
 *
 * @example
 * const log = new ClientEventLog(fs, sessionId, logger);
 * log.append(JSON.stringify(event));
 * await log.flush();
 */
export class ClientEventLog extends BatchedAppends implements SessionEventLog {
  /** A client's file system is this node's own store: held events are shown after a failed write. */
  readonly showsHeldEvents = true;
  /** Entries this writer knows the log holds (undefined until read or written). */
  private written: number | undefined;
  private readonly path: string;

  constructor(
    private readonly fs: ClientFileSystem,
    private readonly sessionId: string,
    logger: Logger,
  ) {
    super(logger);
    this.path = fs.statePath("events.jsonl");
  }

  get location(): string {
    return this.fs.describe(this.path);
  }

  position(): Promise<{ endOffset: number | undefined; pending: readonly string[] }> {
    return this.settled().then(() => ({ endOffset: this.written, pending: [...this.pending] }));
  }

  async scan(start: number, onLine: (line: string, range: LogRange) => boolean | void): Promise<LogScan> {
    const { lines, tornBytes } = await this.entries();
    let bytesRead = 0;
    let end = Math.max(0, start);
    for (let index = end; index < lines.length; index++) {
      const line = lines[index]!;
      bytesRead += Buffer.byteLength(line) + 1;
      if (onLine(line, [index, index + 1]) === false) return { end: index + 1, bytesRead, tornBytes: 0 };
      end = index + 1;
    }
    if (this.written === undefined && this.pending.length === 0) this.written = end;
    return { end, bytesRead, tornBytes };
  }

  async entryAt(range: LogRange): Promise<string | undefined> {
    const [start, end] = range;
    if (end !== start + 1 || start < 0) return undefined;
    return (await this.entries()).lines[start];
  }

  /** Every entry before `end` but the `excluded` ones, then `pending`, as one JSON array's bytes. */
  async arrayBytes(end: number, excluded: readonly LogRange[], pending: readonly string[], prefix: string, suffix: string): Promise<Buffer> {
    const { lines } = await this.entries();
    const skipped = new Set(excluded.filter(([start, stop]) => stop === start + 1).map(([start]) => start));
    const kept = lines.slice(0, end).filter((_, index) => !skipped.has(index));
    return Buffer.from(`${prefix}${[...kept, ...pending].join(",")}${suffix}`);
  }

  async readPage(position: LogPosition, max: number, accept: (line: string) => boolean): Promise<LogPage> {
    const { lines } = await this.entries();
    const last = lines.length;
    const offset = position.offset === endOfLog ? last : position.offset;
    const expired = !Number.isSafeInteger(offset) || offset < 0 || offset > last;
    if (position.direction === "forward") {
      const page: string[] = [];
      let next = expired ? 0 : offset;
      while (next < last && page.length < max) {
        const line = lines[next]!;
        if (accept(line)) page.push(line);
        next++;
      }
      return { lines: page, next: { offset: next, direction: "forward" }, hasMore: next < last, expired };
    }
    const newestFirst: string[] = [];
    let next = expired ? last : offset;
    while (next > 0 && newestFirst.length < max) {
      const line = lines[next - 1]!;
      if (accept(line)) newestFirst.push(line);
      next--;
    }
    return { lines: newestFirst.reverse(), next: { offset: next, direction: "backward" }, hasMore: next > 0, expired };
  }

  async tail(): Promise<LogPosition> {
    return { offset: (await this.entries()).lines.length, direction: "forward" };
  }

  /** The complete lines of the file (a last line without its newline is torn, not an entry). */
  private async entries(): Promise<{ lines: string[]; tornBytes: number }> {
    const text = (await this.fs.read(this.sessionId, this.path)) ?? "";
    const parts = text.split("\n");
    const torn = parts.pop() ?? "";
    return { lines: parts, tornBytes: Buffer.byteLength(torn) };
  }

  protected async prepare(): Promise<void> {
    if (this.written === undefined) this.written = (await this.entries()).lines.length;
  }

  protected async writeBatch(batch: string[]): Promise<void> {
    await this.fs.append(this.sessionId, this.path, `${batch.join("\n")}\n`);
    this.written = (this.written ?? 0) + batch.length;
  }

  protected describeFailure(error: unknown): TandemError {
    return persistenceFailed(this.location, error);
  }
}
