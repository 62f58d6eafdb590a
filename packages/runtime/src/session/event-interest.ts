import { randomUUID } from "node:crypto";

/**
 * Which clients said they read events of a type in a session (`session.eventLog.registerInterest`).
 * An interest changes what the runtime does: with one in `command.queued`, a slash command the
 * runtime does not know (`session.commands.enqueue`) is queued for the client to run instead of
 * being refused. Each handle belongs to the client that registered it and ends with it, with
 * `releaseInterest`, or when the session closes.
 *
 * @example
 * const handle = interests.register(sessionId, "command.queued", client);
 * interests.has(sessionId, "command.queued"); // true
 * interests.release(handle); // releasing again is fine
 */
export class EventInterests {
  private readonly byHandle = new Map<string, { sessionId: string; eventType: string }>();

  /** Registers an interest of `owner`; it is released when `owner` closes. */
  register(sessionId: string, eventType: string, owner: { onClose(listener: () => void): void }): string {
    const handle = randomUUID();
    this.byHandle.set(handle, { sessionId, eventType });
    owner.onClose(() => this.byHandle.delete(handle));
    return handle;
  }

  /** Releases a handle; unknown and already released handles are fine. */
  release(handle: string): void {
    this.byHandle.delete(handle);
  }

  /** Whether some client is interested in `eventType` events of the session. */
  has(sessionId: string, eventType: string): boolean {
    for (const interest of this.byHandle.values()) if (interest.sessionId === sessionId && interest.eventType === eventType) return true;
    return false;
  }

  /** How many interests the session holds. */
  countOf(sessionId: string): number {
    let count = 0;
    for (const interest of this.byHandle.values()) if (interest.sessionId === sessionId) count++;
    return count;
  }

  /** Drops every interest in a session (it closed). */
  dropSession(sessionId: string): void {
    for (const [handle, interest] of this.byHandle) if (interest.sessionId === sessionId) this.byHandle.delete(handle);
  }
}
