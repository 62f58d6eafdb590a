import type { AgentMode, McpServerConfig, SessionCreateParams } from "@tandem/protocol";
import type { CompatProfile } from "../compat/profile.js";
import type { CompactionServices } from "../compaction/session-compaction.js";
import type { Logger } from "../log.js";
import type { ConversationMessage } from "../loop/messages.js";
import type { RetryPolicy } from "../loop/retry.js";
import { defaultReaskWaitMs } from "../ports/client-asks.js";
import type { SessionScopePort } from "../ports/session-scope.js";
import type { BearerTokenSource } from "../providers/routing.js";
import type { ModelClient } from "../providers/types.js";
import type { SandboxEnvironment } from "../sandbox/session-sandbox.js";
import type { SessionFiles } from "../store/types.js";
import type { BuiltinToolOptions } from "../tools/registry.js";
import { untrusting, type FolderTrust } from "../trust/folder-consent.js";
import { SessionClients } from "./clients.js";
import type { SessionEmitter } from "./emitter.js";
import { EventInterests } from "./event-interests.js";
import { PendingRequests } from "./pending.js";

/** Services a session's subsystems borrow from the runtime. */
export interface ScopeServices {
  readonly logger: Logger;
  readonly protocolVersion: 2 | 3;
  readonly retryPolicy: RetryPolicy;
  /** How many model calls one user message may make (see `loop/model-call-limit.ts`). */
  readonly maxModelCallsPerTurn: number;
  createModelClient(config: SessionCreateParams, bearerTokens: BearerTokenSource, logger: Logger): ModelClient;
  /** The MCP servers the runtime adds to a session with this config (the GitHub MCP server in Copilot API mode). */
  builtinMcpServers?(config: SessionCreateParams): Record<string, McpServerConfig>;
  /** How long a hook may take. */
  readonly hookTimeoutMs: number;
  /** How long a request whose client went away waits for another able client (default {@link defaultReaskWaitMs}). */
  readonly clientReaskMs?: number;
  /** Settings of the session's built-in tools. */
  readonly builtinTools?: BuiltinToolOptions;
  /** The summary call's timeout and the model lists compaction reads windows from. */
  readonly compaction: CompactionServices;
  /** The user's trust in working folders; without it no folder is trusted. */
  readonly folderTrust?: FolderTrust;
  /** The runtime's `--report-intent` setting, if it was given. */
  readonly reportIntent?: boolean;
  /** The runtime's sandbox default (`--sandbox`) and bubblewrap binary. */
  readonly sandbox: SandboxEnvironment;
}

/** What a scope starts with. */
export interface ScopeInit {
  sessionId: string;
  config: SessionCreateParams;
  workingDirectory: string;
  workspacePath: string;
  /** The session's plan, checkpoints, resume point and workspace files in the store. */
  files: SessionFiles;
  model: string;
  emitter: SessionEmitter;
  services: ScopeServices;
  messages?: ConversationMessage[];
  startTime: Date;
  mode?: AgentMode;
  /** The profile of the client generation opening the session. */
  profile: CompatProfile;
}

/**
 * The scope of one session, built before any of its subsystems: its ids and folders, its emitter
 * and logger, its configuration, model, mode and client generation, its conversation, the attached
 * clients and the requests waiting for them, and the runtime's services. Subsystems are built from
 * it (and from each other); whoever changes one of its fields emits the event that says so.
 *
 * @example
 * const scope = new SessionScope({ sessionId, config, workingDirectory, workspacePath, files, model, emitter, services, startTime: new Date(), profile });
 * const prompt = new SessionPrompt(scope);
 */
export class SessionScope implements SessionScopePort {
  readonly sessionId: string;
  /** The session's folder (`session.db`, `workspace.yaml` and the event log live there). */
  readonly workspacePath: string;
  /** The session's plan, checkpoints, resume point and workspace files in the store. */
  readonly files: SessionFiles;
  readonly startTime: Date;
  readonly emitter: SessionEmitter;
  readonly logger: Logger;
  readonly services: ScopeServices;
  /** The conversation the model sees (compaction and rewinds rewrite it in place). */
  readonly messages: ConversationMessage[];
  /** The attached clients and what each registered (tools, handlers). */
  readonly clients = new SessionClients();
  readonly pending = new PendingRequests();
  /** The event types the clients said they answer (`session.eventLog.registerInterest`). */
  readonly eventInterests = new EventInterests();
  readonly protocolVersion: 2 | 3;
  readonly clientReaskMs: number;
  /** The user's trust in working folders (none trusted without the runtime's). */
  readonly folderTrust: FolderTrust;
  workingDirectory: string;
  config: SessionCreateParams;
  model: string;
  mode: AgentMode;
  /**
   * The profile of the client generation that created the session or last resumed it (recorded in
   * `workspace.yaml`): tools offered by default, the events around create, event spellings.
   */
  profile: CompatProfile;

  /** @param interactionId the interaction id of the message being answered, put on each log line. */
  constructor(init: ScopeInit, interactionId: () => string | undefined = () => undefined) {
    this.sessionId = init.sessionId;
    this.workspacePath = init.workspacePath;
    this.files = init.files;
    this.startTime = init.startTime;
    this.emitter = init.emitter;
    this.services = init.services;
    this.logger = init.services.logger.child(() => ({ sessionId: this.sessionId, interactionId: interactionId() }));
    this.messages = init.messages ?? [];
    this.protocolVersion = init.services.protocolVersion;
    this.clientReaskMs = init.services.clientReaskMs ?? defaultReaskWaitMs;
    this.folderTrust = init.services.folderTrust ?? untrusting;
    this.workingDirectory = init.workingDirectory;
    this.config = init.config;
    this.model = init.model;
    this.mode = init.mode ?? "interactive";
    this.profile = init.profile;
    // Every event of the session is shaped by the profile it has at the time.
    init.emitter.shapeEventsWith((type, data) => (this.profile.sendsEvent(type, data) ? this.profile.shapeEvent(type, data) : "omit"));
  }

  /** Switches the agent mode (`interactive`, `plan`, `autopilot`); a change emits `session.mode_changed`. */
  setMode(mode: AgentMode): void {
    if (mode === this.mode) return;
    const previousMode = this.mode;
    this.mode = mode;
    this.emitter.emit("session.mode_changed", { previousMode, newMode: mode });
  }
}
