/**
 * Tracks whether a response's connection is still open, so waits and streams
 * stop as soon as the client aborts or the server shuts down.
 */
import type { ServerResponse } from "node:http";

/** Watches one response; `sleep` and `drain` resolve early (with `false`) when the connection closes. */
export class ResponseLifetime {
  private isClosed = false;
  private readonly closeListeners = new Set<() => void>();

  constructor(private readonly response: ServerResponse) {
    response.once("close", () => {
      this.isClosed = true;
      for (const listener of this.closeListeners) listener();
      this.closeListeners.clear();
    });
  }

  /** True once the response finished or its connection closed. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Waits `ms` milliseconds; resolves `true` if the connection is still open afterwards. */
  sleep(ms: number): Promise<boolean> {
    if (this.isClosed) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onClose = (): void => {
        clearTimeout(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        this.closeListeners.delete(onClose);
        resolve(!this.isClosed);
      }, ms);
      this.closeListeners.add(onClose);
    });
  }

  /** Waits for the socket buffer to drain; resolves `false` if the connection closed instead. */
  drain(): Promise<boolean> {
    if (this.isClosed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onClose = (): void => {
        this.response.off("drain", onDrain);
        resolve(false);
      };
      const onDrain = (): void => {
        this.closeListeners.delete(onClose);
        resolve(true);
      };
      this.response.once("drain", onDrain);
      this.closeListeners.add(onClose);
    });
  }

  /** Resolves when the connection closes (used by hanging steps). */
  untilClosed(): Promise<void> {
    if (this.isClosed) return Promise.resolve();
    return new Promise((resolve) => this.closeListeners.add(resolve));
  }
}
