/**
 * Every method of the protocol in one list per direction (for JSON Schema files, other-language
 * SDKs and tests). Kept apart from the tokens so that a module which names only some methods loads
 * only those files' tokens.
 * @module
 */
import {
  AccountGetQuota,
  AuthGetStatus,
  Connect,
  HooksInvoke,
  ModelsList,
  PermissionRequestV2,
  Ping,
  SessionAbort,
  SessionAgentDeselect,
  SessionAgentGetCurrent,
  SessionAgentList,
  SessionAgentReload,
  SessionAgentSelect,
  SessionCompactionCompact,
  SessionCreate,
  SessionDelete,
  SessionDestroy,
  SessionEventNotification,
  SessionExitPlanModeHandlePendingRequest,
  SessionFleetStart,
  SessionGetForeground,
  SessionGetLastId,
  SessionGetMessages,
  SessionLifecycleNotification,
  SessionList,
  SessionLog,
  SessionMcpDisable,
  SessionMcpEnable,
  SessionMcpList,
  SessionMcpReload,
  SessionModeGet,
  SessionModelGetCurrent,
  SessionModelSwitchTo,
  SessionModeSet,
  SessionPermissionsHandlePendingPermissionRequest,
  SessionPlanDelete,
  SessionPlanRead,
  SessionPlanUpdate,
  SessionResume,
  SessionSend,
  SessionSetForeground,
  SessionSkillsDisable,
  SessionSkillsEnable,
  SessionSkillsList,
  SessionSkillsReload,
  SessionToolsHandlePendingToolCall,
  SessionUiHandlePendingElicitation,
  SessionWorkspaceCreateFile,
  SessionWorkspaceListFiles,
  SessionWorkspaceReadFile,
  StatusGet,
  SystemMessageTransform,
  ToolCallV2,
  ToolsList,
  UserInputRequest,
} from "./methods.js";
import { canvasRequests } from "./methods/canvas.js";
import { commandRequests } from "./methods/commands.js";
import { compactionControlRequests } from "./methods/compaction-control.js";
import { currentClientRequests } from "./methods/current.js";
import { discoveryRequests } from "./methods/discovery.js";
import { extensionRequests } from "./methods/extensions.js";
import { factoryRequests } from "./methods/factory.js";
import { historyRequests } from "./methods/history.js";
import { lifecycleRequests } from "./methods/lifecycle.js";
import { llmInferenceRequests } from "./methods/llm-inference.js";
import { mcpRequests } from "./methods/mcp.js";
import { permissionLocationRequests } from "./methods/permission-locations.js";
import { permissionPolicyRequests } from "./methods/permission-policy.js";
import { pluginRequests } from "./methods/plugins.js";
import { remoteControlRequests } from "./methods/remote-control.js";
import { sandboxRequests } from "./methods/sandbox.js";
import { serverMiscRequests } from "./methods/server-misc.js";
import { sessionApiRequests } from "./methods/session-api.js";
import { sessionAuthRequests } from "./methods/session-auth.js";
import { sessionExtrasRequests } from "./methods/session-extras.js";
import { sessionStateRequests } from "./methods/session-state.js";
import { sessionsAdminRequests } from "./methods/sessions-admin.js";
import { shellRequests, ShellOutputNotification, ShellExitNotification } from "./methods/shell.js";
import { skillsPluginsRequests } from "./methods/skills-plugins.js";
import { taskRequests } from "./methods/tasks.js";
import { uiRequests } from "./methods/ui.js";
import { userSettingsRequests } from "./methods/user-settings.js";
import { workspacesRequests } from "./methods/workspaces.js";

/** All requests a client may send to the runtime. */
export const clientToServerRequests = [
  Connect,
  Ping,
  StatusGet,
  AuthGetStatus,
  ModelsList,
  ToolsList,
  AccountGetQuota,
  SessionCreate,
  SessionResume,
  SessionSend,
  SessionAbort,
  SessionGetMessages,
  SessionDestroy,
  SessionDelete,
  SessionList,
  SessionGetLastId,
  SessionGetForeground,
  SessionSetForeground,
  SessionLog,
  SessionToolsHandlePendingToolCall,
  SessionPermissionsHandlePendingPermissionRequest,
  SessionModelGetCurrent,
  SessionModelSwitchTo,
  SessionModeGet,
  SessionModeSet,
  SessionPlanRead,
  SessionPlanUpdate,
  SessionPlanDelete,
  SessionWorkspaceListFiles,
  SessionWorkspaceReadFile,
  SessionWorkspaceCreateFile,
  SessionAgentList,
  SessionAgentGetCurrent,
  SessionAgentSelect,
  SessionAgentDeselect,
  SessionAgentReload,
  SessionFleetStart,
  SessionCompactionCompact,
  SessionMcpList,
  SessionMcpEnable,
  SessionMcpDisable,
  SessionMcpReload,
  SessionSkillsList,
  SessionSkillsEnable,
  SessionSkillsDisable,
  SessionSkillsReload,
  SessionUiHandlePendingElicitation,
  SessionExitPlanModeHandlePendingRequest,
  ...sessionApiRequests,
  ...currentClientRequests,
  ...commandRequests,
  ...extensionRequests,
  ...mcpRequests,
  ...skillsPluginsRequests,
  ...pluginRequests,
  ...llmInferenceRequests,
  ...historyRequests,
  ...taskRequests,
  ...shellRequests,
  ...sandboxRequests,
  ...uiRequests,
  ...lifecycleRequests,
  ...workspacesRequests,
  ...sessionsAdminRequests,
  ...remoteControlRequests,
  ...serverMiscRequests,
  ...userSettingsRequests,
  ...discoveryRequests,
  ...sessionAuthRequests,
  ...sessionStateRequests,
  ...sessionExtrasRequests,
  ...compactionControlRequests,
  ...canvasRequests,
  ...factoryRequests,
  ...permissionLocationRequests,
  ...permissionPolicyRequests,
] as const;

/** All requests the runtime may send to a client. */
export const serverToClientRequests = [ToolCallV2, PermissionRequestV2, UserInputRequest, HooksInvoke, SystemMessageTransform] as const;
/** All notifications the runtime sends. */
export const serverNotifications = [SessionEventNotification, SessionLifecycleNotification, ShellOutputNotification, ShellExitNotification] as const;
