import { randomUUID } from "node:crypto";

/**
 * The event types a session's clients said they answer (`session.eventLog.registerInterest`), so
 * the runtime asks only when someone will reply: e.g. `mcp.oauth_required` is emitted only while a
 * client registered for it. Each registration has its own handle.
 *
 * @example
 * const handle = interests.register("mcp.oauth_required");
 * interests.has("mcp.oauth_required"); // true
 * interests.release(handle);
 */
export class EventInterests {
  private readonly byHandle = new Map<string, string>();

  /** Registers interest in an event type; returns the handle that releases it. */
  register(eventType: string): string {
    const handle = randomUUID();
    this.byHandle.set(handle, eventType);
    return handle;
  }

  /** Releases a registration; false for an unknown handle. */
  release(handle: string): boolean {
    return this.byHandle.delete(handle);
  }

  /** Whether any registration names this event type. */
  has(eventType: string): boolean {
    for (const registered of this.byHandle.values()) if (registered === eventType) return true;
    return false;
  }
}
