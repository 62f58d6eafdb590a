import {
  SessionMcpAppsCallTool,
  SessionMcpAppsDiagnose,
  SessionMcpAppsGetHostContext,
  SessionMcpAppsListTools,
  SessionMcpAppsReadResource,
  SessionMcpAppsSetHostContext,
  SessionMcpCancelSamplingExecution,
  SessionMcpExecuteSampling,
  SessionMcpIsServerRunning,
  SessionMcpListTools,
  SessionEventLogRegisterInterest,
  SessionEventLogReleaseInterest,
  SessionMcpOauthHandlePendingRequest,
  SessionMcpOauthLogin,
  SessionMcpRemoveGitHub,
  SessionMcpRestartServer,
  SessionMcpSetEnvValueMode,
  SessionMcpStartServer,
  SessionMcpStopServer,
} from "@tandem/protocol/methods/mcp";
import type { z } from "zod";
import type { McpAppsHostContext } from "@tandem/protocol";
import { ErrorCodes, errorMessage, invalidParams, TandemError } from "../../errors.js";
import { isRemoteConfig } from "../../mcp/config.js";
import { McpSampling, type SamplingPort } from "../../mcp/sampling.js";
import type { ModelClient } from "../../providers/types.js";
import type { EventInterests } from "../../session/event-interests.js";
import type { PendingRequests } from "../../session/pending.js";
import type { SessionToolset } from "../../session/toolset.js";
import { gitHubMcpServerName } from "../../mcp/github-server.js";
import type { MethodTable } from "../method-table.js";

/** What these handlers need of a session: its MCP servers, and its model for sampling. */
export interface McpSessionView {
  readonly scope: {
    readonly eventInterests: EventInterests;
    readonly model: string;
    /** The session's settings (`enableMcpApps` gives it the mcp-apps capability). */
    readonly config: object;
    /** Where `mcp.oauth_required` requests wait for their answer. */
    readonly pending: Pick<PendingRequests, "settle">;
  };
  /** The session's MCP servers; removes the GitHub MCP server the runtime added (`session.mcp.removeGitHub`). */
  readonly toolset: Pick<SessionToolset, "mcp" | "removeBuiltinMcpServer">;
  /** The model client sampling requests go to. */
  readonly models: { client(): ModelClient };
}

/** What these handlers need of the runtime. */
export interface McpMethodsHost {
  /** The live session, or a `SessionNotFound` error. */
  session(sessionId: string): McpSessionView;
  /** The runtime's environment (the MCP Apps switch: `COPILOT_MCP_APPS` / `MCP_APPS`). */
  readonly env: NodeJS.ProcessEnv;
}

/** State these methods keep per session, dropped with the session object. */
interface McpSessionState {
  sampling: McpSampling;
  hostContext: z.infer<typeof McpAppsHostContext>;
}

/**
 * `session.mcp.*` beyond list/enable/disable/reload: one server's tools and process, the env value
 * mode, sampling on the session's model, OAuth login and tokens the application provides, and MCP
 * Apps: a session created with `enableMcpApps` lets an app view list and call its own server's
 * app-visible tools; without it those calls are refused with a typed error saying so.
 */
export function registerMcpMethods(table: MethodTable, host: McpMethodsHost): void {
  const states = new WeakMap<McpSessionView, McpSessionState>();
  const stateOf = (session: McpSessionView): McpSessionState => {
    let state = states.get(session);
    if (!state) {
      state = { sampling: new McpSampling(samplingPort(session)), hostContext: {} };
      states.set(session, state);
    }
    return state;
  };

  table.on(SessionMcpListTools, ({ sessionId, serverName }) => ({
    tools: host.session(sessionId).toolset.mcp.serverTools(serverName).map((tool) => ({ name: tool.name, ...(tool.description ? { description: tool.description } : {}) })),
  }));
  table.on(SessionMcpIsServerRunning, ({ sessionId, serverName }) => ({ running: host.session(sessionId).toolset.mcp.isRunning(serverName) }));
  table.on(SessionMcpStartServer, async ({ sessionId, serverName }) => {
    await host.session(sessionId).toolset.mcp.enable(serverName);
    return {};
  });
  table.on(SessionMcpStopServer, async ({ sessionId, serverName }) => {
    await host.session(sessionId).toolset.mcp.stop(serverName);
    return {};
  });
  table.on(SessionMcpRestartServer, async ({ sessionId, serverName }) => {
    await host.session(sessionId).toolset.mcp.restart(serverName);
    return {};
  });
  table.on(SessionMcpSetEnvValueMode, ({ sessionId, mode }) => {
    const { mcp } = host.session(sessionId).toolset;
    mcp.envValueMode = mode;
    return { mode: mcp.envValueMode };
  });
  // Only the server the runtime added in Copilot API mode, once it joined the session (its first
  // message, or a listing of its servers): before that there is nothing to remove. One the
  // application configured under that name (or as `github`) is the application's, and a session of
  // another provider has none.
  table.on(SessionMcpRemoveGitHub, async ({ sessionId }) => ({ removed: await host.session(sessionId).toolset.removeBuiltinMcpServer(gitHubMcpServerName) }));

  table.on(SessionMcpExecuteSampling, ({ sessionId, requestId, serverName, request }) => {
    const session = host.session(sessionId);
    if (!session.toolset.mcp.configOf(serverName)) throw invalidParams(`MCP server "${serverName}" is not configured in this session; sampling requests come from its servers`, { serverName });
    return stateOf(session).sampling.execute({ requestId, serverName, request });
  });
  table.on(SessionMcpCancelSamplingExecution, ({ sessionId, requestId }) => ({ cancelled: stateOf(host.session(sessionId)).sampling.cancel(requestId) }));

  table.on(SessionMcpOauthLogin, ({ sessionId, serverName }) => {
    const { mcp } = host.session(sessionId).toolset;
    mcp.requireHost("MCP host is not available");
    const config = mcp.configOf(serverName);
    if (!config) throw invalidParams(`MCP server "${serverName}" is not configured in this session`, { serverName });
    if (!isRemoteConfig(config)) throw invalidParams(`MCP server "${serverName}" is not a remote server: OAuth login applies to HTTP and SSE servers only`, { serverName });
    throw new TandemError(
      ErrorCodes.NotAvailable,
      `MCP OAuth login is not available for "${serverName}": Tandem does not run OAuth flows itself; give the server's credentials in its config's headers`,
      { serverName },
    );
  });

  table.on(SessionMcpOauthHandlePendingRequest, ({ sessionId, requestId, result }) => ({ success: host.session(sessionId).scope.pending.settle(requestId, "mcpOauth", result) }));
  table.on(SessionEventLogRegisterInterest, ({ sessionId, eventType }, client) => {
    try {
      return { handle: host.session(sessionId).scope.eventInterests.register(eventType, client) };
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      throw new TandemError(ErrorCodes.InvalidParams, `Session ${sessionId}: ${error.message}`, { sessionId });
    }
  });
  table.on(SessionEventLogReleaseInterest, ({ sessionId, handle }) => {
    host.session(sessionId).scope.eventInterests.release(handle);
    return { success: true };
  });

  table.on(SessionMcpAppsSetHostContext, ({ sessionId, context }) => {
    stateOf(host.session(sessionId)).hostContext = { ...context };
    return {};
  });
  table.on(SessionMcpAppsGetHostContext, ({ sessionId }) => ({ context: { ...stateOf(host.session(sessionId)).hostContext } }));
  table.on(SessionMcpAppsDiagnose, ({ sessionId, serverName }) => {
    const session = host.session(sessionId);
    const { mcp } = session.toolset;
    if (!mcp.configOf(serverName)) throw invalidParams(`MCP server "${serverName}" is not configured in this session`, { serverName });
    const tools = mcp.isRunning(serverName) ? mcp.serverTools(serverName) : [];
    const withUi = tools.filter((tool) => hasUiMeta(tool._meta));
    return {
      capability: { sessionHasMcpApps: hasMcpApps(session.scope.config), featureFlagEnabled: mcpAppsSwitchedOn(host.env), advertised: false },
      server: { connected: mcp.isRunning(serverName), toolCount: tools.length, toolsWithUiMeta: withUi.length, sampleToolNames: withUi.slice(0, 5).map((tool) => tool.name) },
    };
  });
  table.on(SessionMcpAppsListTools, ({ sessionId, serverName, originServerName }) => {
    const session = host.session(sessionId);
    checkAppCall(session.scope.config, serverName, originServerName);
    return { tools: session.toolset.mcp.serverTools(serverName).filter((tool) => appCallable(tool._meta)).map((tool) => ({ ...tool })) };
  });
  table.on(SessionMcpAppsCallTool, ({ sessionId, serverName, toolName, originServerName, arguments: args }) => {
    const session = host.session(sessionId);
    checkAppCall(session.scope.config, serverName, originServerName);
    const tool = session.toolset.mcp.serverTools(serverName).find((candidate) => candidate.name === toolName);
    if (tool && !appCallable(tool._meta)) throw invalidParams(`The tool "${toolName}" of "${serverName}" is not visible to apps (its _meta.ui.visibility leaves out "app")`, { serverName, toolName });
    return session.toolset.mcp.callServerTool(serverName, toolName, args ?? {});
  });
  table.on(SessionMcpAppsReadResource, async ({ sessionId, serverName, uri }) => {
    const { mcp } = host.session(sessionId).toolset;
    try {
      return await mcp.readResource(serverName, uri);
    } catch (error) {
      if (error instanceof TandemError) throw error;
      throw new TandemError(ErrorCodes.NotAvailable, `MCP server "${serverName}" could not read resource ${uri}: ${errorMessage(error)}`, { serverName, uri });
    }
  });
}

/** Whether the runtime was started with MCP Apps switched on. */
function mcpAppsSwitchedOn(env: NodeJS.ProcessEnv): boolean {
  return [env.COPILOT_MCP_APPS, env.MCP_APPS].some((value) => value !== undefined && /^(1|true|on|yes)$/i.test(value));
}

function hasUiMeta(meta: unknown): boolean {
  const ui = (meta as { ui?: unknown } | undefined)?.ui;
  return typeof ui === "object" && ui !== null && Object.keys(ui).length > 0;
}

/** Whether the session was created with the mcp-apps capability (`requestMcpApps`, the SDK's `enableMcpApps`). */
function hasMcpApps(config: object): boolean {
  return (config as { requestMcpApps?: unknown }).requestMcpApps === true;
}

/** A tool an app view may call: its `_meta.ui.visibility` (or the flat `ui.visibility` key) is absent or names "app". */
function appCallable(meta: unknown): boolean {
  const record = (meta ?? {}) as { ui?: { visibility?: unknown }; "ui.visibility"?: unknown };
  const visibility = record.ui?.visibility ?? record["ui.visibility"];
  return !Array.isArray(visibility) || visibility.includes("app");
}

/**
 * App views may call only their own server's tools (the origin must be named and match), and only
 * in a session that has the mcp-apps capability.
 */
function checkAppCall(config: object, serverName: string, originServerName: string | undefined): void {
  if (!hasMcpApps(config)) {
    throw new TandemError(
      ErrorCodes.NotAvailable,
      `The mcp-apps capability is not available in this session: it was created without enableMcpApps, so "${serverName}" has no app-callable tools`,
      { serverName },
    );
  }
  if (originServerName !== serverName) {
    throw new TandemError(ErrorCodes.InvalidParams, `An mcp-apps view of "${originServerName ?? "(no origin)"}" may only call tools of its own server, not of "${serverName}"`, { serverName, originServerName });
  }
}

/** The session's current model and its client, for sampling. */
function samplingPort(session: McpSessionView): SamplingPort {
  return {
    get model() {
      return session.scope.model;
    },
    modelClient: () => session.models.client(),
  };
}
