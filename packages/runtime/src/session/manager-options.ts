import type { McpServerConfig, SessionCreateParams, SessionLifecycleEvent } from "@tandem/protocol";
import type { CompactionServices } from "../compaction/session-compaction.js";
import type { GitContextReader } from "../context/git-context-reader.js";
import type { Logger } from "../log.js";
import type { RetryPolicy } from "../loop/retry.js";
import type { BearerTokenSource } from "../providers/routing.js";
import type { ModelClient } from "../providers/types.js";
import type { SessionFiles, SessionStore } from "../store/types.js";
import type { LargeOutputSpill } from "../tools/large-output.js";
import type { SqlDatabase } from "../tools/builtin/sql/session-database.js";
import type { BuiltinToolOptions } from "../tools/registry.js";
import type { FolderTrust } from "../trust/folder-consent.js";
import type { SandboxEnvironment } from "../sandbox/session-sandbox.js";
import type { SessionEmitter } from "./emitter.js";

/** What the session manager (and the opener it hands them to) needs from the runtime. */
export interface SessionManagerOptions {
  store: SessionStore;
  logger: Logger;
  protocolVersion: 2 | 3;
  retryPolicy: RetryPolicy;
  /** How many model calls one user message may make. */
  maxModelCallsPerTurn: number;
  runtimeVersion: string;
  defaultModel: string;
  hookTimeoutMs: number;
  /** How long a request whose client went away waits for another able client (`TANDEM_CLIENT_REASK_MS`). */
  clientReaskMs?: number;
  /** `--report-intent on|off`: whether sessions offer `report_intent` when they do not say (unset: per client generation). */
  reportIntent?: boolean;
  /** `--sandbox` / `TANDEM_SANDBOX` and `TANDEM_BWRAP`: every session's sandbox default and the bubblewrap binary. */
  sandbox?: SandboxEnvironment;
  /** Settings of every session's built-in tools (the `sql` tool's time limit). */
  builtinTools?: BuiltinToolOptions;
  /** The `sql` tool's database of a session its store keeps itself (a client's file system); undefined: its `session.db`. */
  sqlDatabaseFor?(sessionId: string): SqlDatabase | undefined;
  /** Where a session keeps tool outputs too long for the model (a client's file system); undefined: they are cut. */
  largeOutputSpillFor?(sessionId: string, files: SessionFiles): LargeOutputSpill | undefined;
  /** The summary call's timeout and the model lists compaction reads windows from. */
  compaction: CompactionServices;
  /** `logger`: the session's, whose lines carry its id (the model-call line among them). */
  createModelClient(config: SessionCreateParams, sessionId: string, bearerTokens: BearerTokenSource, logger: Logger): ModelClient;
  /** The MCP servers the runtime adds to a session with this config (the GitHub MCP server in Copilot API mode). */
  builtinMcpServers?(config: SessionCreateParams): Record<string, McpServerConfig>;
  /** Sends a `session.lifecycle` notification to every connected client. */
  broadcastLifecycle(event: SessionLifecycleEvent): void;
  /** Called with each session's emitter when the session opens (telemetry listens to its events). */
  observeSession?(sessionId: string, emitter: SessionEmitter): void;
  /** Reads the sessions' git contexts (shared between sessions of one folder). */
  gitContexts?: GitContextReader;
  /** The user's trust in working folders (`--allow-all`, `trustedFolders`); without it no folder is trusted. */
  folderTrust?: FolderTrust;
  /** Applied to every event's JSON text before it is persisted or sent (`secrets.addFilterValues`). */
  redact?(json: string): string;
  /** How long a session whose clients all left keeps the work it waits on (see `HeldWork`; default 5 minutes). */
  pendingWorkGraceMs?: number;
}
