import { randomUUID } from "node:crypto";

/** How many interests one session holds at most (each is a few bytes; the bound stops a runaway client). */
export const maxEventInterestsPerSession = 1000;

/**
 * The event types a session's clients said they answer (`session.eventLog.registerInterest`), so
 * the runtime asks only when someone will reply: `mcp.oauth_required` is emitted, and a command
 * the runtime does not know is queued for the application (`command.queued`), only while a client
 * registered for it. Each registration has its own handle and ends when its client closes.
 *
 * @example
 * const handle = interests.register("mcp.oauth_required", client);
 * interests.has("mcp.oauth_required"); // true
 * interests.release(handle);
 */
export class EventInterests {
  private readonly byHandle = new Map<string, string>();

  /** Registers interest in an event type; returns the handle that releases it. */
  register(eventType: string, owner?: { onClose(listener: () => void): void }): string {
    if (this.byHandle.size >= maxEventInterestsPerSession) {
      throw new RangeError(`the session already has ${maxEventInterestsPerSession} registered interests: release some (session.eventLog.releaseInterest) first`);
    }
    const handle = randomUUID();
    this.byHandle.set(handle, eventType);
    owner?.onClose(() => this.byHandle.delete(handle));
    return handle;
  }

  /** Releases a registration; false for an unknown or already released handle. */
  release(handle: string): boolean {
    return this.byHandle.delete(handle);
  }

  /** Whether any registration names this event type. */
  has(eventType: string): boolean {
    for (const registered of this.byHandle.values()) if (registered === eventType) return true;
    return false;
  }
}
