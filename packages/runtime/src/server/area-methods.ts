/**
 * The methods of the handler areas that load on first use (`dispatch.ts`), by name only: the table
 * that declares them then loads none of their tokens or schemas (each area's module imports its
 * own, so they come in that module's chunk). `AreaMethodsMatchTheProtocol` checks at compile time
 * that every list names exactly the methods of its area's tokens.
 * @module
 */
import type {
  AccountGetAllUsers,
  AccountGetCurrentAuth,
  AccountGetQuota,
  AccountLogin,
  AccountLogout,
  canvasRequests,
  commandRequests,
  compactionControlRequests,
  discoveryRequests,
  extensionRequests,
  factoryRequests,
  historyRequests,
  lifecycleRequests,
  llmInferenceRequests,
  mcpRequests,
  permissionLocationRequests,
  permissionPolicyRequests,
  pluginRequests,
  remoteControlRequests,
  sandboxRequests,
  serverMiscRequests,
  sessionApiRequests,
  SessionExtensionsDisable,
  SessionExtensionsEnable,
  sessionExtrasRequests,
  SessionFsSetProvider,
  SessionGitHubAuthGetStatus,
  SessionPluginsList,
  SessionProviderGetEndpoint,
  sessionsAdminRequests,
  SessionSkillsEnsureLoaded,
  SessionSkillsGetInvoked,
  sessionStateRequests,
  shellRequests,
  taskRequests,
  uiRequests,
  userSettingsRequests,
  workspacesRequests,
} from "@tandem/protocol";
import type { AnyToken } from "./method-table.js";

/** The methods of the session API (`session.name.*`, `session.queue.*`, `session.eventLog.read`, …). */
export const sessionApiMethods = [
  "session.name.get", "session.name.set", "session.options.update", "session.eventLog.read", "session.eventLog.tail",
  "session.queue.pendingItems", "session.queue.removeAt", "session.queue.removeMostRecent", "session.queue.clear",
  "session.permissions.setApproveAll", "session.permissions.configure", "sessions.fork",
  "session.workspaces.listFiles", "session.workspaces.readFile", "session.workspaces.createFile",
] as const;
/** The methods of rewind points, rewinds and the workspace checkpoints (`session.history.*`, `session.workspaces.*`). */
export const historyMethods = [
  "session.history.listRewindPoints", "session.history.previewRewind", "session.history.rewind",
  "session.history.truncate", "session.workspaces.getWorkspace", "session.workspaces.listCheckpoints",
  "session.workspaces.readCheckpoint", "session.workspaces.diff",
] as const;
/** The methods of slash commands (`session.commands.*`). */
export const commandMethods = [
  "session.commands.list", "session.commands.invoke", "session.commands.execute",
  "session.commands.handlePendingCommand", "session.commands.respondToQueuedCommand", "session.respondToQueuedCommand",
  "session.tools.execute",
] as const;
/** The methods of extensions (`session.extensions.*`). */
export const extensionMethods = [
  "session.extensions.list", "session.extensions.reload", "session.extensions.enable", "session.extensions.disable",
] as const;
/** The methods of stored sessions (`sessions.*`). */
export const sessionsAdminMethods = [
  "sessions.list", "sessions.findByPrefix", "sessions.findByTaskId", "sessions.getLastForContext", "sessions.getSizes",
  "sessions.checkInUse", "sessions.save", "sessions.close", "sessions.releaseLock", "sessions.bulkDelete",
  "sessions.pruneOld", "sessions.enrichMetadata", "sessions.open", "sessions.connect", "sessions.setAdditionalPlugins",
  "sessions.reloadPluginHooks", "sessions.loadDeferredRepoHooks",
] as const;
/** The methods of remote control. */
export const remoteControlMethods = [
  "sessions.getRemoteControlStatus", "sessions.setRemoteControlSteering", "sessions.stopRemoteControl",
  "sessions.transferRemoteControl", "sessions.startRemoteControl", "session.remote.enable", "session.remote.disable",
  "session.remote.notifySteerableChanged",
] as const;
/** The methods of secrets, the agent registry and attachments (all of the misc server methods but `sessionFs.setProvider`). */
export const serverMiscMethods = ["secrets.addFilterValues", "agentRegistry.spawn", "session.extensions.sendAttachmentsToMessage"] as const;
/** The methods of a client file system for sessions. */
export const sessionFsMethods = ["sessionFs.setProvider"] as const;
/** The methods of user settings (`user.settings.*`). */
export const userSettingsMethods = ["user.settings.get", "user.settings.set", "user.settings.reload"] as const;
/** The methods of discovery of skills, agents, instructions and MCP servers. */
export const discoveryMethods = [
  "skills.discover", "skills.getDiscoveryPaths", "skills.config.setDisabledSkills", "agents.discover",
  "agents.getDiscoveryPaths", "instructions.discover", "instructions.getDiscoveryPaths", "mcp.discover",
] as const;
/** The methods of a session provider's endpoint. */
export const sessionAuthMethods = ["session.provider.getEndpoint"] as const;
/** The methods of accounts (`account.*`). */
export const accountMethods = [
  "account.getCurrentAuth", "account.getAllUsers", "account.login", "account.logout", "account.getQuota",
] as const;
/** The methods of a session's MCP servers (`session.mcp.*`; not `mcp.config.*`). */
export const mcpMethods = [
  "session.mcp.listTools", "session.mcp.isServerRunning", "session.mcp.startServer", "session.mcp.stopServer",
  "session.mcp.restartServer", "session.mcp.setEnvValueMode", "session.mcp.removeGitHub",
  "session.mcp.executeSampling", "session.mcp.cancelSamplingExecution", "session.mcp.oauth.login",
  "session.mcp.oauth.handlePendingRequest", "session.eventLog.registerInterest", "session.eventLog.releaseInterest",
  "session.mcp.apps.setHostContext", "session.mcp.apps.getHostContext", "session.mcp.apps.diagnose",
  "session.mcp.apps.listTools", "session.mcp.apps.callTool", "session.mcp.apps.readResource",
] as const;
/** The methods of the user's MCP configuration (`mcp.config.*`). */
export const mcpConfigMethods = [
  "mcp.config.list", "mcp.config.add", "mcp.config.update", "mcp.config.remove", "mcp.config.enable",
  "mcp.config.disable", "mcp.config.reload",
] as const;
/** The methods of plugins and marketplaces (`plugins.*`). */
export const pluginMethods = [
  "plugins.list", "plugins.install", "plugins.uninstall", "plugins.update", "plugins.updateAll", "plugins.enable",
  "plugins.disable", "plugins.marketplaces.list", "plugins.marketplaces.add", "plugins.marketplaces.remove",
  "plugins.marketplaces.browse", "plugins.marketplaces.refresh",
] as const;
/** The methods of a session's skills and plugins. */
export const skillsPluginsMethods = ["session.skills.ensureLoaded", "session.skills.getInvoked", "session.plugins.list"] as const;
/** The methods of session state and metadata. */
export const sessionStateMethods = [
  "session.shutdown", "session.metadata.snapshot", "session.metadata.isProcessing", "session.metadata.activity",
  "session.metadata.contextInfo", "session.metadata.getContextAttribution",
  "session.metadata.getContextHeaviestMessages", "session.metadata.recomputeContextTokens",
  "session.metadata.recordContextChange", "session.metadata.setWorkingDirectory", "session.model.setReasoningEffort",
  "session.model.list", "session.name.setAuto", "session.usage.getMetrics", "session.instructions.getSources",
  "session.gitHubAuth.setCredentials", "session.lsp.initialize", "session.telemetry.setFeatureOverrides",
  "session.telemetry.getEngagementId", "session.gitHubAuth.getStatus",
] as const;
/** The methods of the further 1.0.x session methods. */
export const sessionExtrasMethods = [
  "session.permissions.getAllowAll", "session.permissions.setAllowAll", "session.permissions.resetSessionApprovals",
  "session.permissions.pendingRequests", "session.completions.getTriggerCharacters", "session.completions.request",
  "session.visibility.get", "session.visibility.set", "session.tools.initializeAndValidate",
  "session.tools.getCurrentMetadata", "session.tools.updateSubagentSettings", "session.plugins.reload",
  "session.provider.add", "session.plan.readSqlTodos", "session.plan.readSqlTodosWithDependencies",
  "session.schedule.list", "session.schedule.stop", "session.schedule.add", "session.commands.enqueue",
  "session.workspaces.saveLargePaste", "session.ui.ephemeralQuery",
] as const;
/** The methods of compaction control. */
export const compactionControlMethods = [
  "session.history.cancelBackgroundCompaction", "session.history.abortManualCompaction",
  "session.history.summarizeForHandoff", "session.history.clearContext",
] as const;
/** The methods of canvases (`session.canvas.*`). */
export const canvasMethods = [
  "session.canvas.list", "session.canvas.listOpen", "session.canvas.open", "session.canvas.close",
  "session.canvas.action.invoke",
] as const;
/** The methods of permission locations and folder trust. */
export const permissionLocationMethods = [
  "session.permissions.locations.resolve", "session.permissions.locations.addToolApproval",
  "session.permissions.locations.apply", "session.permissions.folderTrust.isTrusted",
  "session.permissions.folderTrust.addTrusted",
] as const;
/** The methods of tasks (`session.tasks.*`). */
export const taskMethods = [
  "session.tasks.startAgent", "session.tasks.list", "session.tasks.refresh", "session.tasks.waitForPending",
  "session.tasks.getProgress", "session.tasks.getCurrentPromotable", "session.tasks.promoteToBackground",
  "session.tasks.promoteCurrentToBackground", "session.tasks.cancel", "session.tasks.remove",
  "session.tasks.sendMessage",
] as const;
/** The methods of shell commands (`session.shell.*`). */
export const shellMethods = [
  "session.shell.exec", "session.shell.kill", "session.shell.executeUserRequested",
  "session.shell.cancelUserRequested",
] as const;
/** The methods of user interface answers (`session.ui.*`). */
export const uiMethods = [
  "session.ui.elicitation", "session.ui.handlePendingUserInput", "session.ui.handlePendingSampling",
  "session.ui.handlePendingAutoModeSwitch", "session.ui.handlePendingSessionLimitsExhausted",
  "session.mcp.headers.handlePendingHeadersRefreshRequest", "session.ui.registerDirectAutoModeSwitchHandler",
  "session.ui.unregisterDirectAutoModeSwitchHandler",
] as const;
/** The methods of suspending a session. */
export const lifecycleMethods = ["session.suspend"] as const;
/** The methods of model calls through the client (`llmInference.*`). */
export const llmInferenceMethods = [
  "llmInference.setProvider", "llmInference.httpResponseStart", "llmInference.httpResponseChunk",
] as const;
/** The methods of the permission policy. */
export const permissionPolicyMethods = [
  "session.permissions.setRequired", "session.permissions.notifyPromptShown", "session.permissions.modifyRules",
  "session.permissions.urls.setUnrestrictedMode", "session.permissions.paths.list", "session.permissions.paths.add",
  "session.permissions.paths.updatePrimary", "session.permissions.paths.isPathWithinAllowedDirectories",
  "session.permissions.paths.isPathWithinWorkspace",
] as const;
/** The methods of factories (`session.factory.*`). */
export const factoryMethods = [
  "session.factory.run", "session.factory.resume", "session.factory.getRun", "session.factory.listRuns",
  "session.factory.getRunDetail", "session.factory.getRunProgress", "session.factory.cancel", "session.factory.log",
  "session.factory.agent", "session.factory.journal.get", "session.factory.journal.put",
] as const;
/** The methods of the sandbox (`session.sandbox.*`). */
export const sandboxMethods = ["session.sandbox.getEnforcementStatus", "session.sandbox.disableForSession"] as const;

/** The method names of a list of tokens. */
type MethodOf<Tokens extends readonly AnyToken[]> = Tokens[number]["method"];
/** `true` when `Names` holds every method of `Methods` and no other. */
type NamesExactly<Names extends readonly string[], Methods extends string> = [Names[number]] extends [Methods] ? ([Methods] extends [Names[number]] ? true : false) : false;
type AllTrue<Checks extends readonly true[]> = Checks;

/** Fails to compile when a list above and its area's tokens in the protocol disagree. */
export type AreaMethodsMatchTheProtocol = AllTrue<[
  NamesExactly<typeof sessionApiMethods, MethodOf<typeof sessionApiRequests>>,
  NamesExactly<typeof historyMethods, MethodOf<typeof historyRequests> | MethodOf<typeof workspacesRequests>>,
  NamesExactly<typeof commandMethods, MethodOf<typeof commandRequests>>,
  NamesExactly<typeof extensionMethods, MethodOf<typeof extensionRequests> | MethodOf<[typeof SessionExtensionsEnable, typeof SessionExtensionsDisable]>>,
  NamesExactly<typeof sessionsAdminMethods, MethodOf<typeof sessionsAdminRequests>>,
  NamesExactly<typeof remoteControlMethods, MethodOf<typeof remoteControlRequests>>,
  NamesExactly<typeof serverMiscMethods, Exclude<MethodOf<typeof serverMiscRequests>, MethodOf<[typeof SessionFsSetProvider]>>>,
  NamesExactly<typeof sessionFsMethods, MethodOf<[typeof SessionFsSetProvider]>>,
  NamesExactly<typeof userSettingsMethods, MethodOf<typeof userSettingsRequests>>,
  NamesExactly<typeof discoveryMethods, MethodOf<typeof discoveryRequests>>,
  NamesExactly<typeof sessionAuthMethods, MethodOf<[typeof SessionProviderGetEndpoint]>>,
  NamesExactly<typeof accountMethods, MethodOf<[typeof AccountGetCurrentAuth, typeof AccountGetAllUsers, typeof AccountLogin, typeof AccountLogout, typeof AccountGetQuota]>>,
  NamesExactly<typeof mcpMethods, Exclude<MethodOf<typeof mcpRequests>, `mcp.config.${string}`>>,
  NamesExactly<typeof mcpConfigMethods, Extract<MethodOf<typeof mcpRequests>, `mcp.config.${string}`>>,
  NamesExactly<typeof pluginMethods, MethodOf<typeof pluginRequests>>,
  NamesExactly<typeof skillsPluginsMethods, MethodOf<[typeof SessionSkillsEnsureLoaded, typeof SessionSkillsGetInvoked, typeof SessionPluginsList]>>,
  NamesExactly<typeof sessionStateMethods, MethodOf<typeof sessionStateRequests> | MethodOf<[typeof SessionGitHubAuthGetStatus]>>,
  NamesExactly<typeof sessionExtrasMethods, MethodOf<typeof sessionExtrasRequests>>,
  NamesExactly<typeof compactionControlMethods, MethodOf<typeof compactionControlRequests>>,
  NamesExactly<typeof canvasMethods, MethodOf<typeof canvasRequests>>,
  NamesExactly<typeof permissionLocationMethods, MethodOf<typeof permissionLocationRequests>>,
  NamesExactly<typeof taskMethods, MethodOf<typeof taskRequests>>,
  NamesExactly<typeof shellMethods, MethodOf<typeof shellRequests>>,
  NamesExactly<typeof uiMethods, MethodOf<typeof uiRequests>>,
  NamesExactly<typeof lifecycleMethods, MethodOf<typeof lifecycleRequests>>,
  NamesExactly<typeof llmInferenceMethods, MethodOf<typeof llmInferenceRequests>>,
  NamesExactly<typeof permissionPolicyMethods, MethodOf<typeof permissionPolicyRequests>>,
  NamesExactly<typeof factoryMethods, MethodOf<typeof factoryRequests>>,
  NamesExactly<typeof sandboxMethods, MethodOf<typeof sandboxRequests>>,
]>;
