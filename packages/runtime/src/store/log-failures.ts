import type { TandemError } from "../errors.js";
import type { Logger } from "../log.js";
import type { EventLogObserver } from "./types.js";

/**
 * An event log's standing write failure and its observers, shared by the file and PostgreSQL logs:
 * a failure is logged each time, told to the observers once per run of failures, and kept until a
 * write succeeds again.
 */
export class LogFailures {
  private current: TandemError | undefined;
  private readonly observers = new Set<EventLogObserver>();

  constructor(
    private readonly logger: Logger,
    /** Names the log in the message logged when an observer throws. */
    private readonly what: string,
  ) {}

  /** The standing failure, or undefined while the log is writable. */
  get failure(): TandemError | undefined {
    return this.current;
  }

  /** Adds an observer; returns a function that removes it. */
  watch(observer: EventLogObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Records a failed write; `held` is how many entries wait in memory. */
  report(error: TandemError, held: number): void {
    const first = this.current === undefined;
    this.current = error;
    this.logger.error(`${error.message} (${held} event(s) held in memory)`);
    if (!first) return;
    for (const observer of this.observers) {
      try {
        observer.failed(error);
      } catch (observerError) {
        this.logger.error(`an ${this.what} failure observer threw`, observerError);
      }
    }
  }

  /** A write succeeded: returns whether a failure was standing until now. */
  recovered(): boolean {
    if (!this.current) return false;
    this.current = undefined;
    return true;
  }
}
