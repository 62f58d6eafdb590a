import type { PendingRequests } from "./pending.js";

/** How long a session whose clients all left keeps its waiting tool calls and permission requests (env `TANDEM_PENDING_WORK_GRACE_MS`). */
export const defaultPendingWorkGraceMs = 5 * 60_000;

/** The grace period from the environment, or the default. */
export function pendingWorkGraceFromEnv(env: NodeJS.ProcessEnv): number {
  const value = Number(env.TANDEM_PENDING_WORK_GRACE_MS);
  return Number.isFinite(value) && value >= 0 ? value : defaultPendingWorkGraceMs;
}

/** Whether a session waits on a client for work a resuming client can still answer. */
export function waitsOnClients(pending: PendingRequests): boolean {
  return pending.listOpen("tool").length > 0 || pending.listOpen("permission").length > 0;
}

/**
 * Sessions whose last client left while their turn waited on a client (an external tool call or a
 * permission request): instead of closing at once they stay open, their requests waiting, for a
 * grace period, so that a client resuming with `continuePendingWork: true` answers them and the
 * turn goes on. The rule that ends every such wait: when no client resumed the session in time,
 * `expire` runs (the manager closes the session; its waiting requests are abandoned and the turn's
 * tool calls end "interrupted"); a client that resumes without `continuePendingWork` has the
 * turn aborted the same way.
 *
 * @example
 * held.hold(sessionId, () => manager.destroy(sessionId));
 * if (held.release(sessionId)) ... // a client came back in time
 */
export class HeldWork {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(readonly graceMs: number) {}

  /** Holds a session's waiting work; `expire` runs when nobody came back within the grace period. */
  hold(sessionId: string, expire: () => void): void {
    this.release(sessionId);
    const timer = setTimeout(() => {
      this.timers.delete(sessionId);
      expire();
    }, this.graceMs);
    timer.unref();
    this.timers.set(sessionId, timer);
  }

  /** Ends the hold (a client came back, or the session closed); false when it was not held. */
  release(sessionId: string): boolean {
    const timer = this.timers.get(sessionId);
    if (!timer) return false;
    clearTimeout(timer);
    this.timers.delete(sessionId);
    return true;
  }

  /** Whether the session is held. */
  isHeld(sessionId: string): boolean {
    return this.timers.has(sessionId);
  }
}
