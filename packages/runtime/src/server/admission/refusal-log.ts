import type { Logger } from "../../log.js";

/** Refusal lines written per peer and second before the rest are counted instead. */
const LINES_PER_SECOND = 10;

/**
 * Logs why TCP clients were refused without letting a flood fill the log: per peer, the first
 * lines of each second are written, the rest are counted and summed up in one line when the
 * second is over.
 *
 * @example
 * refusals.refused("uid 65534", "127.0.0.1:50412", "wrong connection token");
 */
export class RefusalLog {
  private readonly windows = new Map<string, { written: number; dropped: number; lastReason: string }>();

  constructor(private readonly logger: Logger) {}

  /** Logs (or counts) that the client at `address` of `peer` was refused for `reason`. */
  refused(peer: string, address: string, reason: string): void {
    const window = this.windows.get(peer);
    if (!window) {
      this.windows.set(peer, { written: 1, dropped: 0, lastReason: reason });
      setTimeout(() => this.closeWindow(peer), 1000).unref();
      this.logger.warn(`refused TCP client ${address}: ${reason}`);
      return;
    }
    if (window.written < LINES_PER_SECOND) {
      window.written += 1;
      this.logger.warn(`refused TCP client ${address}: ${reason}`);
      return;
    }
    window.dropped += 1;
    window.lastReason = reason;
  }

  private closeWindow(peer: string): void {
    const window = this.windows.get(peer);
    this.windows.delete(peer);
    if (!window || window.dropped === 0) return;
    this.logger.warn(`refused ${window.dropped} more TCP clients of ${peer} in the last second (the last: ${window.lastReason})`);
  }
}
