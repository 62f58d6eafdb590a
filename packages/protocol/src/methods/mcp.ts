/**
 * MCP methods of the official SDK 1.0.x beyond list/enable/disable/reload: one server's tools and
 * process (`session.mcp.listTools`, `isServerRunning`, `startServer`, `stopServer`,
 * `restartServer`), how `env` values are read, sampling, OAuth login, MCP Apps, and the user's MCP
 * configuration file (`mcp.config.*`, server-scoped).
 */
import { z } from "zod";
import { McpServerConfig, SessionId } from "../common.js";
import { defineRequest } from "../method.js";

const sessionScoped = { sessionId: SessionId };
const serverScoped = { ...sessionScoped, serverName: z.string().min(1) };
const Empty = z.lazy(() => z.looseObject({}));
const EmptyOrNull = z.lazy(() => z.looseObject({}).nullable().optional());

/** One tool of a connected server as `session.mcp.listTools` reports it. */
export const McpToolInfo = z.lazy(() => z.looseObject({ name: z.string(), description: z.string().optional() }));

/** `session.mcp.listTools`: every tool the named, connected server lists (allow-list not applied). */
export const SessionMcpListTools = defineRequest("session.mcp.listTools", () => z.looseObject(serverScoped), () => z.looseObject({ tools: z.array(McpToolInfo) }));
/** `session.mcp.isServerRunning`: whether the named server has a live connection (false for an unknown name). */
export const SessionMcpIsServerRunning = defineRequest("session.mcp.isServerRunning", () => z.looseObject(serverScoped), () => z.looseObject({ running: z.boolean() }));
/** `session.mcp.startServer`: connects a configured server (a failed or stopped one included). */
export const SessionMcpStartServer = defineRequest("session.mcp.startServer", () => z.looseObject(serverScoped), () => EmptyOrNull);
/** `session.mcp.stopServer`: stops a server (its tools are withdrawn); `startServer` or `enable` brings it back. */
export const SessionMcpStopServer = defineRequest("session.mcp.stopServer", () => z.looseObject(serverScoped), () => EmptyOrNull);
/** `session.mcp.restartServer`: stops and connects a server again. */
export const SessionMcpRestartServer = defineRequest("session.mcp.restartServer", () => z.looseObject(serverScoped), () => EmptyOrNull);

/** How local servers' `env` values are read: `direct` passes them as written, `indirect` reads `$NAME` / `${NAME}` from the runtime's environment. */
export const McpEnvValueMode = z.lazy(() => z.enum(["direct", "indirect"]));
export type McpEnvValueMode = z.infer<typeof McpEnvValueMode>;
/** `session.mcp.setEnvValueMode`: applies to servers (re)started afterwards. */
export const SessionMcpSetEnvValueMode = defineRequest(
  "session.mcp.setEnvValueMode",
  () => z.looseObject({ ...sessionScoped, mode: McpEnvValueMode }),
  () => z.looseObject({ mode: McpEnvValueMode }),
);
/** `session.mcp.removeGitHub`: removes the GitHub MCP server the runtime added (Copilot API mode); `removed` is false when there is none or the application configured its own under that name. */
export const SessionMcpRemoveGitHub = defineRequest("session.mcp.removeGitHub", () => z.looseObject(sessionScoped), () => z.looseObject({ removed: z.boolean() }));

/** `session.mcp.executeSampling`: runs an MCP `sampling/createMessage` request on the session's model. */
export const SessionMcpExecuteSampling = defineRequest(
  "session.mcp.executeSampling",
  () => z.looseObject({ ...serverScoped, requestId: z.string().min(1), mcpRequestId: z.union([z.string(), z.number()]), request: z.looseObject({}) }),
  () => z.looseObject({ action: z.enum(["success", "failure", "cancelled"]), result: z.looseObject({}).optional(), error: z.string().optional() }),
);
/** `session.mcp.cancelSamplingExecution`: cancels a running `executeSampling` by its `requestId`. */
export const SessionMcpCancelSamplingExecution = defineRequest(
  "session.mcp.cancelSamplingExecution",
  () => z.looseObject({ ...sessionScoped, requestId: z.string() }),
  () => z.looseObject({ cancelled: z.boolean() }),
);

/** `session.mcp.oauth.login`: starts an OAuth login for a configured remote server. */
export const SessionMcpOauthLogin = defineRequest(
  "session.mcp.oauth.login",
  () => z.looseObject({ ...serverScoped, forceReauth: z.boolean().optional(), clientName: z.string().optional(), callbackSuccessMessage: z.string().optional() }),
  () => z.looseObject({ authorizationUrl: z.string().optional() }),
);

/** What the application tells MCP App views about itself (theme, locale, display modes, …). */
export const McpAppsHostContext = z.lazy(() => z.looseObject({
  theme: z.string().optional(),
  locale: z.string().optional(),
  timeZone: z.string().optional(),
  displayMode: z.string().optional(),
  availableDisplayModes: z.array(z.string()).optional(),
  platform: z.string().optional(),
  userAgent: z.string().optional(),
}));
/** `session.mcp.apps.setHostContext`. */
export const SessionMcpAppsSetHostContext = defineRequest(
  "session.mcp.apps.setHostContext",
  () => z.looseObject({ ...sessionScoped, context: McpAppsHostContext }),
  () => EmptyOrNull,
);
/** `session.mcp.apps.getHostContext`: the context last set (empty until then). */
export const SessionMcpAppsGetHostContext = defineRequest("session.mcp.apps.getHostContext", () => z.looseObject(sessionScoped), () => z.looseObject({ context: McpAppsHostContext }));
/** `session.mcp.apps.diagnose`: whether MCP Apps are on, and what the named server lists for them. */
export const SessionMcpAppsDiagnose = defineRequest(
  "session.mcp.apps.diagnose",
  () => z.looseObject(serverScoped),
  () =>
    z.looseObject({
      capability: z.looseObject({ sessionHasMcpApps: z.boolean(), featureFlagEnabled: z.boolean(), advertised: z.boolean() }),
      server: z.looseObject({ connected: z.boolean(), toolCount: z.number(), toolsWithUiMeta: z.number(), sampleToolNames: z.array(z.string()) }),
    }),
);
/** `session.mcp.apps.listTools`: the tools an app view of `originServerName` may call on its own server. */
export const SessionMcpAppsListTools = defineRequest(
  "session.mcp.apps.listTools",
  () => z.looseObject({ ...serverScoped, originServerName: z.string().optional() }),
  () => z.looseObject({ tools: z.array(z.looseObject({})) }),
);
/** `session.mcp.apps.callTool`: an app view calls a tool of its own server. */
export const SessionMcpAppsCallTool = defineRequest(
  "session.mcp.apps.callTool",
  () => z.looseObject({ ...serverScoped, toolName: z.string(), originServerName: z.string().optional(), arguments: z.record(z.string(), z.unknown()).optional() }),
  () => z.looseObject({}),
);
/** `session.mcp.apps.readResource`: reads a resource (typically `ui://…`) of a connected server. */
export const SessionMcpAppsReadResource = defineRequest(
  "session.mcp.apps.readResource",
  () => z.looseObject({ ...serverScoped, uri: z.string().min(1) }),
  () => z.looseObject({ contents: z.array(z.looseObject({ uri: z.string() })) }),
);

/** The application's answer to an `mcp.oauth_required` event. */
export const McpOauthAnswer = z.lazy(() => z.union([
  z.looseObject({ kind: z.literal("token"), accessToken: z.string().min(1), tokenType: z.string().optional(), expiresIn: z.number().optional() }),
  z.looseObject({ kind: z.literal("cancelled") }),
]));
/** `session.mcp.oauth.handlePendingRequest`: answers an `mcp.oauth_required` request; `success` is false for an unknown or answered one. */
export const SessionMcpOauthHandlePendingRequest = defineRequest(
  "session.mcp.oauth.handlePendingRequest",
  () => z.looseObject({ ...sessionScoped, requestId: z.string(), result: McpOauthAnswer }),
  () => z.looseObject({ success: z.boolean() }),
);
/** `session.eventLog.registerInterest`: the client will answer events of this type (e.g. `mcp.oauth_required`). */
export const SessionEventLogRegisterInterest = defineRequest(
  "session.eventLog.registerInterest",
  () => z.looseObject({ ...sessionScoped, eventType: z.string().min(1) }),
  () => z.looseObject({ handle: z.string() }),
);
/** `session.eventLog.releaseInterest`: withdraws a registration by its handle. */
export const SessionEventLogReleaseInterest = defineRequest(
  "session.eventLog.releaseInterest",
  () => z.looseObject({ ...sessionScoped, handle: z.string() }),
  () => z.looseObject({ success: z.boolean() }),
);

const configNames = z.lazy(() => z.looseObject({ names: z.array(z.string().min(1)).min(1) }));
/** `mcp.config.list`: the servers of the user's MCP configuration (`<home>/mcp-config.json`), by name. */
export const McpConfigList = defineRequest("mcp.config.list", () => Empty.optional(), () => z.looseObject({ servers: z.record(z.string(), z.looseObject({})) }));
/** `mcp.config.add`: adds a server; fails when the name is taken. */
export const McpConfigAdd = defineRequest("mcp.config.add", () => z.looseObject({ name: z.string().min(1), config: McpServerConfig }), () => EmptyOrNull);
/** `mcp.config.update`: replaces a server's configuration; fails when there is none. */
export const McpConfigUpdate = defineRequest("mcp.config.update", () => z.looseObject({ name: z.string().min(1), config: McpServerConfig }), () => EmptyOrNull);
/** `mcp.config.remove`: removes a server (and its disabled mark); fails when there is none. */
export const McpConfigRemove = defineRequest("mcp.config.remove", () => z.looseObject({ name: z.string().min(1) }), () => EmptyOrNull);
/** `mcp.config.enable`: clears the disabled mark of these servers. */
export const McpConfigEnable = defineRequest("mcp.config.enable", () => configNames, () => EmptyOrNull);
/** `mcp.config.disable`: marks these servers disabled (sessions do not start them). */
export const McpConfigDisable = defineRequest("mcp.config.disable", () => configNames, () => EmptyOrNull);
/** `mcp.config.reload`: reads the configuration file again. */
export const McpConfigReload = defineRequest("mcp.config.reload", () => Empty.optional(), () => EmptyOrNull);

/** The requests of this file, for `clientToServerRequests`. */
export const mcpRequests = [
  SessionMcpListTools,
  SessionMcpIsServerRunning,
  SessionMcpStartServer,
  SessionMcpStopServer,
  SessionMcpRestartServer,
  SessionMcpSetEnvValueMode,
  SessionMcpRemoveGitHub,
  SessionMcpExecuteSampling,
  SessionMcpCancelSamplingExecution,
  SessionMcpOauthLogin,
  SessionMcpOauthHandlePendingRequest,
  SessionEventLogRegisterInterest,
  SessionEventLogReleaseInterest,
  SessionMcpAppsSetHostContext,
  SessionMcpAppsGetHostContext,
  SessionMcpAppsDiagnose,
  SessionMcpAppsListTools,
  SessionMcpAppsCallTool,
  SessionMcpAppsReadResource,
  McpConfigList,
  McpConfigAdd,
  McpConfigUpdate,
  McpConfigRemove,
  McpConfigEnable,
  McpConfigDisable,
  McpConfigReload,
] as const;
