import type { ClientGeneration, CompatProfile } from "../compat/profile.js";
import type { EventSink } from "./events.js";

/**
 * A connected client as sessions see it: it receives events and can be asked things (protocol v2
 * `tool.call` / `permission.request`, `userInput.request`, `hooks.invoke`).
 */
export interface ClientPort extends EventSink {
  readonly id: number;
  readonly isOpen: boolean;
  /** Set when the client is an extension the runtime started (its source-qualified id, e.g. `project:deploy`). */
  readonly extensionId?: string;
  /**
   * The SDK generation the client speaks (see `compat/profile.ts`); none for a stand-in that is no
   * SDK (a node continuing a turn nobody watches), which leaves a session's recorded generation as it is.
   */
  readonly generation?: ClientGeneration;
  sendRequest<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R>;
}

/**
 * What a session needs a client for: the one asked is a connected client that registered that
 * capability (see `SessionClients.clientFor`).
 */
export type ClientNeed =
  | { kind: "tool"; toolName: string }
  | { kind: "permission" }
  | { kind: "userInput" }
  | { kind: "hooks" }
  | { kind: "systemMessage" }
  | { kind: "providerToken" }
  | { kind: "exitPlanMode" }
  | { kind: "autoModeSwitch" }
  | { kind: "command"; name: string };

/**
 * The client a request came from, as method handlers see it: a connection of this process
 * (`ClientConnection`), or a client attached to another node of a cluster whose requests that node
 * forwards here (`cluster/remote-client.ts`).
 */
export interface RequestingClient extends ClientPort {
  /** Whether the client opened with `connect` (official SDK 1.0.x or ours); forwarded as is between cluster nodes. */
  readonly isCurrentClient: boolean;
  /** How this client's generation wants results shaped (see `compat/profile.ts`). */
  readonly profile: CompatProfile;
  /** Calls `listener` once when the client goes away. */
  onClose(listener: () => void): void;
  sendNotification(method: string, params: unknown): void;
}
