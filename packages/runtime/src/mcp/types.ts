import type { ElicitationResult } from "@tandem/protocol";
import type { Logger } from "../log.js";
import type { EventEmitterPort } from "../ports/events.js";
import type { ProcessLauncher } from "../sandbox/launcher.js";

/** The status of one configured MCP server, as `session.mcp.list` reports it. */
export type McpServerStatus = "connected" | "failed" | "pending" | "disabled" | "not_configured" | "needs-auth";

/** A remote server's Bearer challenge, passed to the application as an `mcp.oauth_required` request. */
export interface McpTokenRequest {
  serverName: string;
  serverUrl: string;
  reason: "initial" | "refresh" | "upscope" | "reauth";
  challenge: { resourceMetadataUrl?: string; scope?: string; error?: string };
  /** The protected-resource metadata document (JSON text), when the challenge named one that could be read. */
  resourceMetadata?: string;
}

/** A token the application provided. */
export interface McpToken {
  accessToken: string;
  tokenType?: string;
}

/** Asks the application for a token; undefined when it declined or nobody can answer. */
export type McpTokenRequester = (request: McpTokenRequest) => Promise<McpToken | undefined>;

/**
 * How a local server's `env` values are read: `direct` passes them as written; `indirect` replaces
 * `$NAME` / `${NAME}` references with the runtime's environment variable of that name.
 */
export type McpEnvValueMode = "direct" | "indirect";

/** An MCP tool call about to be sent, as the `preMcpToolCall` hook sees it. */
export interface McpToolCallHookInput {
  toolCallId: string;
  serverName: string;
  /** The server's own tool name (not the `{server}-{tool}` name the model sees). */
  toolName: string;
  arguments: Record<string, unknown>;
  /** The request's `_meta` so far (none by default). */
  meta?: Record<string, unknown>;
}

/** What the hook decided for the request's `_meta`: keep it (undefined), replace it (object) or drop it (null). */
export type McpMetaDecision = Record<string, unknown> | null | undefined;

/** One row of `session.mcp.list` / `session.mcp_servers_loaded`. */
export type McpServerSummary = {
  name: string;
  status: McpServerStatus;
  /** Why the server failed (only with `status: "failed"`). */
  error?: string;
  /** `builtin` for a server the runtime added (the GitHub MCP server); absent for configured ones. */
  source?: "builtin";
};

/** A form an MCP server wants the user to fill in (`elicitation/create`). */
export interface McpElicitationRequest {
  serverName: string;
  /** The tool call that was running on that server when the server asked, when it is unambiguous. */
  toolCallId?: string;
  message: string;
  /** JSON Schema of the form: `{ type: "object", properties, required? }`. */
  requestedSchema?: { type: "object"; properties: Record<string, unknown>; required?: string[] };
}

/**
 * What an {@link McpManager} needs from its session. The session implements `elicit` with a pending
 * request, an `elicitation.requested` event and the client's `session.ui.handlePendingElicitation`.
 *
 * @example
 * const host: McpHost = {
 *   emitter, logger, workingDirectory: "/repo",
 *   elicit: async () => ({ action: "decline" }),
 *   onToolsChanged: () => session.refreshTools(),
 * };
 */
export interface McpHost {
  /** Where `session.mcp_*` and `session.warning` events go. */
  readonly emitter: Pick<EventEmitterPort, "emit">;
  readonly logger: Pick<Logger, "debug" | "info" | "warn" | "error">;
  /** The default `cwd` of local servers (a relative `cwd` in a config is resolved against it). */
  readonly workingDirectory: string;
  /** Asks the user to fill in a form; `signal` aborts when the server or the tool call gives up. */
  elicit(request: McpElicitationRequest, signal: AbortSignal): Promise<ElicitationResult>;
  /**
   * Called when the set of MCP tools changed after `start()` began: a server connected, crashed,
   * was enabled, disabled or reloaded, or announced a new tool list. Read `tools()` again.
   */
  onToolsChanged?(): void;
  /**
   * Called before each `tools/call` (the application's `preMcpToolCall` hook): an object replaces
   * the request's `_meta`, `null` removes it, undefined keeps it.
   */
  beforeToolCall?(call: McpToolCallHookInput, signal: AbortSignal): Promise<McpMetaDecision>;
  /** Asks the application for a remote server's token (see {@link McpHostAuth}); without it, challenges go unanswered. */
  requestToken?: McpTokenRequester;
  /** How local (stdio) servers are started: the session's sandbox; without it, as they are. */
  readonly launcher?: ProcessLauncher;
}

/** Tunables of an {@link McpManager}; the defaults suit production, tests shorten them. */
export interface McpManagerOptions {
  /** How long connecting and listing tools may take, per server (default 30 s). */
  connectTimeoutMs?: number;
  /** The tool call timeout of servers whose config has no `timeout` (default 60 s). */
  defaultCallTimeoutMs?: number;
  /** The client name sent in `initialize` (default `tandem`). */
  clientName?: string;
  /** Servers that start disabled (the session's `disabledMcpServers`): listed, not started until enabled. */
  disabledServers?: readonly string[];
  /** Servers the runtime added (not the application): listed with `source: "builtin"`, removable with `removeBuiltin`. */
  builtinServers?: readonly string[];
  /**
   * Whether the built-in servers join only when the host starts (`start()`: the session's first
   * turn, or the first listing of its servers). Until then they are not listed, not removable and
   * do not count as servers. Default: they are there from construction.
   */
  builtinsJoinAtStart?: boolean;
}
