import type { ClientPort } from "../session/client-port.js";

/**
 * The client a request came from, as method handlers see it: a connection of this process
 * (`ClientConnection`), or a client attached to another node of a cluster whose requests that node
 * forwards here (`cluster/remote-client.ts`).
 */
export interface RequestingClient extends ClientPort {
  /** Whether the client opened with `connect` (official SDK 1.0.x or ours). */
  readonly isCurrentClient: boolean;
  /** Calls `listener` once when the client goes away. */
  onClose(listener: () => void): void;
  sendNotification(method: string, params: unknown): void;
}
