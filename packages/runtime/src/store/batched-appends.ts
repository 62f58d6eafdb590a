import type { TandemError } from "../errors.js";
import type { Logger } from "../log.js";
import { FlushSoon } from "./flush-soon.js";
import { LogFailures } from "./log-failures.js";
import { LogProgress } from "./log-progress.js";
import type { EventLogObserver } from "./types.js";

const maxBatchEvents = 500;

/**
 * The append side that event logs kept elsewhere share (PostgreSQL, a client's file system):
 * appended lines wait in memory and go out as one batch at the end of the event loop's turn
 * (`flush-soon.ts`), or at once when 500 wait;
 * batches are written one after another. A failed write keeps its lines in memory, in order, tells
 * the observers once, and is retried by the next explicit {@link flush}. A subclass says how to
 * learn where the log ends ({@link prepare}), how to write one batch ({@link writeBatch}) and what
 * error a failure is ({@link describeFailure}).
 *
 * @example
 * class MyLog extends BatchedAppends {
 *   get location() { return "my store"; }
 *   protected async prepare() {}
 *   protected async writeBatch(batch: string[]) { await store.write(batch); }
 *   protected describeFailure(error: unknown) { return persistenceFailed(this.location, error); }
 * }
 */
export abstract class BatchedAppends {
  /** Lines appended and not yet written, oldest first. */
  protected pending: string[] = [];
  /** Lines appended and lines written (see `log-progress.ts`). */
  readonly progress = new LogProgress();
  protected readonly failures: LogFailures;
  private readonly soon = new FlushSoon(() => void this.flush());
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(protected readonly logger: Logger) {
    this.failures = new LogFailures(logger, "event-log");
  }

  /** Where the log is, for messages. */
  abstract get location(): string;

  /** Learns where the log ends, before the first write (a read). */
  protected abstract prepare(): Promise<void>;

  /** Writes one batch after what the log holds; throws when it was not written. */
  protected abstract writeBatch(batch: string[]): Promise<void>;

  /** The error a failed read (`prepare`) or write (`writeBatch`) is reported as. */
  protected abstract describeFailure(error: unknown, operation: "read" | "write"): TandemError;

  /** Called after a failure was reported (the lines stay pending). */
  protected failed(_failure: TandemError): void {}

  get failure(): TandemError | undefined {
    return this.failures.failure;
  }

  get heldLines(): number {
    return this.pending.length;
  }

  watch(observer: EventLogObserver): () => void {
    return this.failures.watch(observer);
  }

  append(line: string): void {
    if (this.closed) return;
    this.pending.push(line);
    this.progress.appended();
    if (this.failures.failure) return;
    if (this.pending.length >= maxBatchEvents) {
      void this.flush();
      return;
    }
    this.soon.schedule();
  }

  /** Writes what waits; a write that succeeded is as durable as the store makes it, so `durable` asks nothing more. */
  flush(_options: { durable?: boolean } = {}): Promise<void> {
    this.soon.cancel();
    if (this.closed || (this.pending.length === 0 && !this.failures.failure)) return this.writing;
    this.writing = this.writing.then(() => this.attempt());
    return this.writing;
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    if (this.failures.failure && this.pending.length > 0) {
      this.logger.error(`${this.pending.length} event(s) of ${this.location} were never written and are lost: ${this.failures.failure.message}`);
    }
  }

  /** Resolves once the batches started so far are written (or failed). */
  protected settled(): Promise<void> {
    return this.writing;
  }

  /** One write of what is pending, in batches (run inside the `writing` chain, never concurrently). */
  private async attempt(): Promise<void> {
    let operation: "read" | "write" = "read";
    try {
      await this.prepare();
      operation = "write";
      while (this.pending.length > 0) {
        const batch = this.pending.slice(0, maxBatchEvents);
        await this.writeBatch(batch);
        this.pending = this.pending.slice(batch.length);
        this.progress.written(batch.length);
      }
    } catch (error) {
      this.soon.cancel();
      const failure = this.describeFailure(error, operation);
      this.failures.report(failure, this.pending.length);
      this.failed(failure);
      return;
    }
    if (!this.failures.recovered()) return;
    if (this.pending.length > 0) this.soon.schedule();
  }
}
