/**
 * How far a log's writes have come: how many entries were appended and how many of them are
 * written (committed to the database, or handed to the kernel by a completed file write).
 * Entries are written in the order they were appended, so one number says which are written.
 * Listeners hear each advance; the session emitter uses it to send an event to clients only once
 * it is written (see `session/emitter.ts`).
 *
 * @example
 * const progress = new LogProgress();
 * progress.appended(); // 1 appended, 0 written
 * progress.onWritten((written) => console.log(`${written} written`));
 * progress.written(1);
 */
export class LogProgress {
  private appendedCount = 0;
  private writtenCount = 0;
  private readonly listeners = new Set<(written: number) => void>();

  /** How many entries were appended so far. */
  get appendedTotal(): number {
    return this.appendedCount;
  }

  /** How many of the appended entries are written. */
  get writtenTotal(): number {
    return this.writtenCount;
  }

  /** Counts one appended entry. */
  appended(): void {
    this.appendedCount++;
  }

  /** Counts `count` more entries, the oldest not yet written, as written and tells the listeners. */
  written(count: number): void {
    if (count <= 0) return;
    this.writtenCount = Math.min(this.appendedCount, this.writtenCount + count);
    for (const listener of this.listeners) {
      try {
        listener(this.writtenCount);
      } catch {
        // A faulty listener must not stop the others or the log's writes.
      }
    }
  }

  /** Adds a listener of advances; returns a function that removes it. */
  onWritten(listener: (written: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
