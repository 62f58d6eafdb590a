/**
 * @tandem/protocol — the zod schemas of the Copilot SDK protocol as Tandem speaks it: every JSON-RPC
 * method (params + result, as typed tokens) and every session event (envelope + data). No I/O.
 */
export * from "./core.js";
export { clientToServerRequests, serverNotifications, serverToClientRequests } from "./method-lists.js";
export {
  QueuePendingItem,
  SessionEventLogRead,
  SessionEventLogTail,
  SessionNameGet,
  SessionNameSet,
  SessionOptionsUpdate,
  SessionPermissionsConfigure,
  SessionPermissionsSetApproveAll,
  SessionQueueClear,
  SessionQueuePendingItems,
  SessionQueueRemoveAt,
  SessionQueueRemoveMostRecent,
  SessionsFork,
  SessionWorkspacesCreateFile,
  SessionWorkspacesListFiles,
  SessionWorkspacesReadFile,
  eventLogPageLimits,
  sessionApiRequests,
} from "./methods/session-api.js";
export { ExtensionInfo, SessionExtensionsList, SessionExtensionsReload, extensionRequests } from "./methods/extensions.js";
export { McpAppsHostContext, McpConfigAdd, McpConfigDisable, McpConfigEnable, McpConfigList, McpConfigReload, McpConfigRemove, McpConfigUpdate, McpEnvValueMode, McpToolInfo, SessionMcpAppsCallTool, SessionMcpAppsDiagnose, SessionMcpAppsGetHostContext, SessionMcpAppsListTools, SessionMcpAppsReadResource, SessionMcpAppsSetHostContext, SessionMcpCancelSamplingExecution, SessionMcpExecuteSampling, SessionMcpIsServerRunning, SessionMcpListTools, SessionEventLogRegisterInterest, SessionEventLogReleaseInterest, McpOauthAnswer, SessionMcpOauthHandlePendingRequest, SessionMcpOauthLogin, SessionMcpRemoveGitHub, SessionMcpRestartServer, SessionMcpSetEnvValueMode, SessionMcpStartServer, SessionMcpStopServer, mcpRequests } from "./methods/mcp.js";
export { InvokedSkill, SessionExtensionsDisable, SessionExtensionsEnable, SessionPluginInfo, SessionPluginsList, SessionSkillsEnsureLoaded, SessionSkillsGetInvoked, skillsPluginsRequests } from "./methods/skills-plugins.js";
export { InstalledPluginInfo, MarketplaceInfo, PluginsDisable, PluginsEnable, PluginsInstall, PluginsList, PluginsMarketplacesAdd, PluginsMarketplacesBrowse, PluginsMarketplacesList, PluginsMarketplacesRefresh, PluginsMarketplacesRemove, PluginsUninstall, PluginsUpdate, PluginsUpdateAll, pluginRequests } from "./methods/plugins.js";
export { InferenceHeaders, LlmInferenceHttpResponseChunk, LlmInferenceHttpResponseStart, LlmInferenceSetProvider, llmInferenceRequests } from "./methods/llm-inference.js";
export {
  SessionCommandsExecute,
  SessionCommandsHandlePendingCommand,
  SessionCommandsInvoke,
  SessionCommandsList,
  SessionCommandsRespondToQueuedCommand,
  SessionRespondToQueuedCommand,
  SessionToolsExecute,
  SlashCommandInfo,
  SlashCommandInvocationResult,
  commandRequests,
} from "./methods/commands.js";
export {
  HistoryRewindFilePreview,
  HistoryRewindMode,
  HistoryRewindOutcome,
  HistoryRewindPoint,
  HistoryRewindUnavailableReason,
  SessionHistoryListRewindPoints,
  SessionHistoryPreviewRewind,
  SessionHistoryRewind,
  SessionHistoryTruncate,
  historyRequests,
} from "./methods/history.js";
export {
  SessionWorkspacesDiff,
  SessionWorkspacesGetWorkspace,
  SessionWorkspacesListCheckpoints,
  SessionWorkspacesReadCheckpoint,
  WorkspaceDiffMode,
  WorkspacesCheckpoint,
  workspacesRequests,
} from "./methods/workspaces.js";
export { LocalSessionEntry, SessionsBulkDelete, SessionsCheckInUse, SessionsClose, SessionsConnect, SessionsContext, SessionsEnrichMetadata, SessionsFindByPrefix, SessionsFindByTaskId, SessionsGetLastForContext, SessionsGetSizes, SessionsList, SessionsLoadDeferredRepoHooks, SessionsOpen, SessionsOpenParams, SessionsPruneOld, SessionsReleaseLock, SessionsReloadPluginHooks, SessionsSave, SessionsSetAdditionalPlugins, sessionsAdminRequests } from "./methods/sessions-admin.js";
export { RemoteControlStatus, SessionRemoteDisable, SessionRemoteEnable, SessionRemoteNotifySteerableChanged, SessionsGetRemoteControlStatus, SessionsSetRemoteControlSteering, SessionsStartRemoteControl, SessionsStopRemoteControl, SessionsTransferRemoteControl, remoteControlRequests } from "./methods/remote-control.js";
export { AgentRegistrySpawn, SecretsAddFilterValues, SessionExtensionsSendAttachmentsToMessage, SessionFsSetProvider, serverMiscRequests } from "./methods/server-misc.js";
export { UserSettingMetadata, UserSettingsGet, UserSettingsReload, UserSettingsSet, userSettingsRequests } from "./methods/user-settings.js";
export { AgentsDiscover, AgentsGetDiscoveryPaths, DiscoveredAgent, DiscoveredInstructionSource, DiscoveredSkill, InstructionsDiscover, InstructionsGetDiscoveryPaths, McpDiscover, SkillsConfigSetDisabledSkills, SkillsDiscover, SkillsGetDiscoveryPaths, discoveryRequests } from "./methods/discovery.js";
export { AccountGetAllUsers, AccountGetCurrentAuth, AccountLogin, AccountLogout, AuthInfo, ProviderEndpoint, SessionGitHubAuthGetStatus, SessionProviderGetEndpoint, sessionAuthRequests } from "./methods/session-auth.js";
export { SessionShutdown, WorkspaceSummary, SessionMetadataSnapshot, SessionMetadataIsProcessing, SessionMetadataActivity, SessionContextInfo, SessionMetadataContextInfo, ContextAttributionEntry, SessionMetadataGetContextAttribution, SessionMetadataGetContextHeaviestMessages, SessionMetadataRecomputeContextTokens, WorkingDirectoryContext, SessionMetadataRecordContextChange, SessionMetadataSetWorkingDirectory, SessionModelSetReasoningEffort, SessionModelList, SessionNameSetAuto, SessionUsageGetMetrics, InstructionSource, SessionInstructionsGetSources, SessionCredentials, SessionGitHubAuthSetCredentials, SessionLspInitialize, SessionTelemetrySetFeatureOverrides, SessionTelemetryGetEngagementId, sessionStateRequests } from "./methods/session-state.js";
export { SessionPermissionsGetAllowAll, SessionPermissionsSetAllowAll, SessionPermissionsResetSessionApprovals, SessionPermissionsPendingRequests, SessionCompletionsGetTriggerCharacters, SessionCompletionsRequest, SessionVisibilityGet, SessionVisibilitySet, SessionToolsInitializeAndValidate, SessionToolsGetCurrentMetadata, SubagentSettingsEntry, SessionToolsUpdateSubagentSettings, SessionPluginsReload, NamedProvider, ProviderModel, SessionProviderAdd, SessionPlanReadSqlTodos, SessionPlanReadSqlTodosWithDependencies, ScheduleEntry, SessionScheduleList, SessionScheduleStop, SessionScheduleAdd, SessionCommandsEnqueue, SessionWorkspacesSaveLargePaste, SessionUiEphemeralQuery, sessionExtrasRequests } from "./methods/session-extras.js";
export { SessionHistoryAbortManualCompaction, SessionHistoryCancelBackgroundCompaction, SessionHistoryClearContext, SessionHistorySummarizeForHandoff, compactionControlRequests } from "./methods/compaction-control.js";
export { DiscoveredCanvas, OpenCanvasInstance, SessionCanvasActionInvoke, SessionCanvasClose, SessionCanvasList, SessionCanvasListOpen, SessionCanvasOpen, canvasRequests } from "./methods/canvas.js";
export { FactoryAbort, FactoryAgentOptions, FactoryExecute, FactoryProgressPage, FactoryRunDetail, FactoryRunResult, FactoryRunStatus, FactoryRunSummary, SessionFactoryAgent, SessionFactoryCancel, SessionFactoryGetRun, SessionFactoryGetRunDetail, SessionFactoryGetRunProgress, SessionFactoryJournalGet, SessionFactoryJournalPut, SessionFactoryListRuns, SessionFactoryLog, SessionFactoryResume, SessionFactoryRun, factoryRequests } from "./methods/factory.js";
export { PermissionRuleShape, SessionPermissionsFolderTrustAddTrusted, SessionPermissionsFolderTrustIsTrusted, SessionPermissionsLocationsAddToolApproval, SessionPermissionsLocationsApply, SessionPermissionsLocationsResolve, permissionLocationRequests } from "./methods/permission-locations.js";
export { PermissionPolicyRule, SessionPermissionsModifyRules, SessionPermissionsNotifyPromptShown, SessionPermissionsPathsAdd, SessionPermissionsPathsIsPathWithinAllowedDirectories, SessionPermissionsPathsIsPathWithinWorkspace, SessionPermissionsPathsList, SessionPermissionsPathsUpdatePrimary, SessionPermissionsSetRequired, SessionPermissionsUrlsSetUnrestrictedMode, permissionPolicyRequests } from "./methods/permission-policy.js";
export { SessionTasksCancel, SessionTasksGetCurrentPromotable, SessionTasksGetProgress, SessionTasksList, SessionTasksPromoteCurrentToBackground, SessionTasksPromoteToBackground, SessionTasksRefresh, SessionTasksRemove, SessionTasksSendMessage, SessionTasksStartAgent, SessionTasksWaitForPending, TaskAgentInfo, taskRequests } from "./methods/tasks.js";
export {
  SandboxEnforcementStatus,
  SessionSandboxDisableForSession,
  SessionSandboxGetEnforcementStatus,
  sandboxRequests,
} from "./methods/sandbox.js";
export { SessionShellCancelUserRequested, SessionShellExec, SessionShellExecuteUserRequested, SessionShellKill, ShellExitNotification, ShellOutputNotification, shellRequests } from "./methods/shell.js";
export { ElicitationSchema, SessionMcpHeadersHandlePendingHeadersRefreshRequest, SessionUiElicitation, SessionUiHandlePendingAutoModeSwitch, SessionUiHandlePendingSampling, SessionUiHandlePendingSessionLimitsExhausted, SessionUiHandlePendingUserInput, SessionUiRegisterDirectAutoModeSwitchHandler, SessionUiUnregisterDirectAutoModeSwitchHandler, uiRequests } from "./methods/ui.js";
export { SessionSuspend, lifecycleRequests } from "./methods/lifecycle.js";
export { SessionFsAppendFile, SessionFsError, SessionFsExists, SessionFsMkdir, SessionFsReadFile, SessionFsReaddir, SessionFsReaddirWithTypes, SessionFsRename, SessionFsRm, SessionFsSqliteExists, SessionFsSqliteQuery, SessionFsSqliteQueryType, SessionFsSqliteResult, SessionFsSqliteTransaction, SessionFsStat, SessionFsWriteFile, sessionFsClientRequests } from "./methods/session-fs.js";
