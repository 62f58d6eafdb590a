import type { AgentMode, SessionCreateParams } from "@tandem/protocol";
import type { CompatProfile } from "../compat/profile.js";
import type { Logger } from "../log.js";
import type { FolderTrust } from "./folder-trust.js";
import type { AbleClients } from "./client-asks.js";
import type { ClientPort } from "./clients.js";
import type { EventEmitterPort } from "./events.js";
import type { ConversationMessage } from "./conversation.js";
import type { PendingRequests } from "./pending.js";

/** The attached clients as a session's subsystems ask them: who answers a need, whose hooks run. */
export interface ScopeClients extends AbleClients {
  /** Every client whose hooks run, in order: the application's (the most recent one with hooks), then the extensions'. */
  hookClients(): ClientPort[];
}

/**
 * One session's scope as the folders below the session see it: its ids, where it works, its
 * events, log, configuration and client generation, the attached clients and the requests waiting
 * for them. The session's `SessionScope` (`session/scope.ts`) is one; a subsystem names the part
 * it reads with `Pick<SessionScopePort, ...>` instead of declaring its own mirror of the session.
 * Fields that change (configuration, model, mode, working folder, profile) are read at each use.
 *
 * @example
 * type HookScope = Pick<SessionScopePort, "sessionId" | "emitter" | "logger">;
 */
export interface SessionScopePort {
  readonly sessionId: string;
  /** The session's folder (`session.db`, `workspace.yaml` and file backups live there). */
  readonly workspacePath: string;
  /** When the session was created. */
  readonly startTime: Date;
  /** Where the session works (moved by `session.metadata.setWorkingDirectory`). */
  readonly workingDirectory: string;
  /** The conversation the model sees (compaction and rewinds rewrite it in place). */
  readonly messages: ConversationMessage[];
  readonly emitter: EventEmitterPort;
  /** The runtime's logger with the session's id (and the running message's interaction id) on every line. */
  readonly logger: Logger;
  /** The configuration, with the attached clients' registrations laid over it. */
  readonly config: SessionCreateParams;
  readonly model: string;
  readonly mode: AgentMode;
  /** What the client generation that opened the session expects (see `compat/profile.ts`). */
  readonly profile: CompatProfile;
  readonly clients: ScopeClients;
  readonly pending: PendingRequests;
  /** The protocol version the runtime speaks to clients (2: requests to the client; 3: events and `handlePending*`). */
  readonly protocolVersion: 2 | 3;
  /** How long a request whose client went away waits for another able client (see `ports/client-asks.ts`). */
  readonly clientReaskMs: number;
  /** The user's trust in working folders (none trusted without the runtime's). */
  readonly folderTrust: FolderTrust;
  /** Switches the agent mode (`interactive`, `plan`, `autopilot`); a change emits `session.mode_changed`. */
  setMode(mode: AgentMode): void;
}
