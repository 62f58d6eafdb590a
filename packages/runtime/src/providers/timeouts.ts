/** The abort reason of a finished call (made once: a DOMException captures a stack trace). */
const callOver = new DOMException("The model call is over.", "AbortError");

/** How long a model call may take. */
export interface ProviderTimeouts {
  /** The whole call, from the request to the last byte. */
  requestTimeoutMs: number;
  /** Streaming only: the longest silence (before the first byte or between two chunks). */
  streamIdleTimeoutMs: number;
}

/** The default: 10 minutes per call, 2 minutes of silence in a stream. */
export const defaultProviderTimeouts: ProviderTimeouts = { requestTimeoutMs: 10 * 60_000, streamIdleTimeoutMs: 2 * 60_000 };

/**
 * Reads `TANDEM_REQUEST_TIMEOUT_MS` / `TANDEM_STREAM_IDLE_TIMEOUT_MS` (positive numbers), else the
 * defaults.
 *
 * @example
 * providerTimeoutsFromEnv({ TANDEM_STREAM_IDLE_TIMEOUT_MS: "5000" }); // { requestTimeoutMs: 600000, streamIdleTimeoutMs: 5000 }
 */
export function providerTimeoutsFromEnv(env: NodeJS.ProcessEnv): ProviderTimeouts {
  return {
    requestTimeoutMs: positiveNumber(env.TANDEM_REQUEST_TIMEOUT_MS) ?? defaultProviderTimeouts.requestTimeoutMs,
    streamIdleTimeoutMs: positiveNumber(env.TANDEM_STREAM_IDLE_TIMEOUT_MS) ?? defaultProviderTimeouts.streamIdleTimeoutMs,
  };
}

/**
 * The signal of one model call: aborts when the caller aborts, when the call exceeds the request
 * timeout, or (when watching a stream) when no byte arrived for the idle timeout. Call
 * {@link activity} on every byte and {@link dispose} when the call is over (this also tears down
 * whatever is still open).
 *
 * @example
 * const deadline = new CallDeadline(request.signal, timeouts, request.stream);
 * try { await fetch(url, { signal: deadline.signal }); } finally { deadline.dispose(); }
 */
export class CallDeadline {
  /** Set when the deadline (not the caller) ended the call: the message to report. */
  timeoutMessage: string | undefined;
  private readonly controller = new AbortController();
  private readonly requestTimer: NodeJS.Timeout;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly onParentAbort = (): void => this.controller.abort(this.parent.reason);

  constructor(
    private readonly parent: AbortSignal,
    private readonly timeouts: ProviderTimeouts,
    private readonly watchIdle: boolean,
  ) {
    if (parent.aborted) this.controller.abort(parent.reason);
    else parent.addEventListener("abort", this.onParentAbort, { once: true });
    this.requestTimer = setTimeout(() => this.expire(`Model request timed out after ${formatDuration(timeouts.requestTimeoutMs)}`), timeouts.requestTimeoutMs);
    this.requestTimer.unref();
    this.armIdleTimer();
  }

  /** The signal to hand to the provider package. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Something arrived from the server: the idle clock starts over. */
  activity(): void {
    this.armIdleTimer();
  }

  /** Stops the clocks and cancels whatever part of the call is still open. */
  dispose(): void {
    clearTimeout(this.requestTimer);
    clearTimeout(this.idleTimer);
    this.parent.removeEventListener("abort", this.onParentAbort);
    if (!this.controller.signal.aborted) this.controller.abort(callOver);
  }

  private armIdleTimer(): void {
    if (!this.watchIdle || this.controller.signal.aborted) return;
    // Called for every chunk of a stream: restart the one timer rather than make a new one.
    if (this.idleTimer) {
      this.idleTimer.refresh();
      return;
    }
    const idleMs = this.timeouts.streamIdleTimeoutMs;
    this.idleTimer = setTimeout(() => this.expire(`Model stream was idle for ${formatDuration(idleMs)}`), idleMs);
    this.idleTimer.unref();
  }

  private expire(message: string): void {
    if (this.controller.signal.aborted) return;
    this.timeoutMessage = message;
    this.controller.abort(new DOMException(message, "TimeoutError"));
  }
}

function formatDuration(milliseconds: number): string {
  return milliseconds >= 1000 ? `${Math.round(milliseconds / 100) / 10} s` : `${milliseconds} ms`;
}

function positiveNumber(value: string | undefined): number | undefined {
  const parsed = Number(value);
  return value && Number.isFinite(parsed) && parsed > 0 ? parsed : undefined;
}
