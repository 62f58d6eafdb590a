/**
 * Schedules a log's write for the end of the current turn of the event loop (`setImmediate`), not
 * after a delay: clients see an event only once it is stored, so a timer would add its delay to
 * every step of a turn (a 5 ms batch window made a 20-step tool loop ~4 ms per step slower than
 * sending at once). What is appended in one turn of the event loop — a model step's events, a
 * tool's start with its permission request — still goes out as one write, and a write under way
 * gathers everything appended meanwhile into the next one (the logs chain their writes).
 *
 * @example
 * const soon = new FlushSoon(() => void log.flush());
 * soon.schedule(); // once per append; one flush per turn of the event loop
 */
export class FlushSoon {
  private immediate: NodeJS.Immediate | undefined;

  constructor(private readonly flush: () => void) {}

  /** Flushes once the current turn of the event loop is over (no-op while one is scheduled). */
  schedule(): void {
    this.immediate ??= setImmediate(() => {
      this.immediate = undefined;
      this.flush();
    });
  }

  /** Drops the scheduled flush (the caller flushes now, or must not write on its own). */
  cancel(): void {
    if (this.immediate === undefined) return;
    clearImmediate(this.immediate);
    this.immediate = undefined;
  }
}
