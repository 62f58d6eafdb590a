export type { RequestingClient } from "../ports/clients.js";

let nextClientId = 1;

/** A new id for a client of this process, unique across every kind of client (local, remote, unattended). */
export function newClientId(): number {
  return nextClientId++;
}

/**
 * Whether a client is still there, and who to tell when it goes: calls each `onClose` listener
 * once, at the close (or at once when added after it).
 */
export class ClientLifetime {
  private open = true;
  private readonly listeners: Array<() => void> = [];

  get isOpen(): boolean {
    return this.open;
  }

  onClose(listener: () => void): void {
    if (!this.open) {
      listener();
      return;
    }
    this.listeners.push(listener);
  }

  /** Marks the client gone and calls the listeners; false when it was gone already. */
  close(): boolean {
    if (!this.open) return false;
    this.open = false;
    for (const listener of this.listeners.splice(0)) listener();
    return true;
  }
}

/**
 * What every kind of client of this process shares: an id from {@link newClientId} and a
 * {@link ClientLifetime} that says whether it is still there. Subclasses close it their own way.
 */
export abstract class ClientBase {
  readonly id = newClientId();
  protected readonly lifetime = new ClientLifetime();

  get isOpen(): boolean {
    return this.lifetime.isOpen;
  }

  /** Calls `listener` once when the client goes away. */
  onClose(listener: () => void): void {
    this.lifetime.onClose(listener);
  }
}
