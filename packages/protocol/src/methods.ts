import { z } from "zod";
import {
  AgentMode,
  Attachment,
  CustomAgentConfig,
  InfiniteSessionConfig,
  JsonObject,
  McpServerConfig,
  GitHubMcpToolConfig,
  ModelInfo,
  PermissionRequest,
  PermissionResult,
  ModelCapabilitiesOverride,
  NamedProviderConfig,
  ProviderConfig,
  ProviderModelConfig,
  ReasoningEffort,
  SessionId,
  SessionMetadata,
  SystemMessageConfig,
  ToolDefinition,
  ToolResultObject,
  authStatusFields,
  skillSummaryFields,
} from "./common.js";
import { SessionEventSchema } from "./events.js";
import { defineNotification, defineRequest } from "./method.js";
import { SessionOwnerHint } from "./cluster.js";
import { CommandRegistration, SandboxConfig } from "./session-declarations.js";
import { PingResultCurrent, SessionModeGetResultCurrent, SessionModeSetResultCurrent, SessionSkillsReloadResultCurrent } from "./methods/current.js";

const sessionScoped = { sessionId: SessionId };
const Success = z.looseObject({ success: z.boolean(), error: z.string().optional() });
const Empty = z.looseObject({});

// ---- Server-scoped requests -------------------------------------------------------------------

/**
 * `ping`: health check; reports the protocol version. `message` may be null (the Python SDK sends
 * it). The time is epoch ms for 0.2.0 clients, an ISO string for current ones (see methods/current.ts).
 */
export const Ping = defineRequest(
  "ping",
  () => z.looseObject({ message: z.string().nullish() }).optional(),
  () => z.union([z.object({ message: z.string(), timestamp: z.number(), protocolVersion: z.number() }), PingResultCurrent]),
);
/**
 * `connect`: the official SDK's (1.0.x) opening handshake. Carries the connection token (required
 * when the runtime was started with `COPILOT_CONNECTION_TOKEN`) and answers the protocol version.
 * Clients that get -32601 back fall back to `ping` (older runtimes).
 */
export const Connect = defineRequest(
  "connect",
  () => z
    .looseObject({
      token: z.string().optional(),
      enableGitHubTelemetryForwarding: z.boolean().optional(),
      clientInfo: z.looseObject({}).optional(),
      supportedTaskKinds: z.array(z.string()).optional(),
    })
    .optional(),
  () => z.looseObject({ ok: z.literal(true), protocolVersion: z.number(), version: z.string() }),
);
/** `status.get`: runtime version and protocol version. */
export const StatusGet = defineRequest(
  "status.get",
  () => Empty.optional(),
  () => z.looseObject({ version: z.string(), protocolVersion: z.number() }),
);
/** `auth.getStatus`: whether the runtime has credentials for a model provider. */
export const AuthGetStatus = defineRequest("auth.getStatus", () => Empty.optional(), () => z.looseObject(authStatusFields()));
/** `models.list`: the models the configured provider offers. */
export const ModelsList = defineRequest("models.list", () => Empty.optional(), () => z.looseObject({ models: z.array(ModelInfo) }));
/** `tools.list`: the built-in tools. */
export const ToolsList = defineRequest(
  "tools.list",
  // The official SDK's `tools.list()` without arguments sends its absent argument as positional params (`[null]`).
  () => z.preprocess((value) => (Array.isArray(value) && value.every((item) => item === null || item === undefined) ? undefined : value), z.looseObject({ model: z.string().optional() }).optional()),
  () => z.looseObject({
    tools: z.array(
      z.looseObject({
        name: z.string(),
        namespacedName: z.string().optional(),
        description: z.string(),
        parameters: JsonObject.optional(),
        instructions: z.string().optional(),
      }),
    ),
  }),
);
/** One quota of a Copilot user (`account.getQuota`). */
export const AccountQuotaSnapshot = z.looseObject({
  isUnlimitedEntitlement: z.boolean(),
  entitlementRequests: z.number(),
  usedRequests: z.number(),
  usageAllowedWithExhaustedQuota: z.boolean(),
  remainingPercentage: z.number(),
  overage: z.number(),
  overageAllowedWithExhaustedQuota: z.boolean(),
  resetDate: z.string().optional(),
});
/**
 * `account.getQuota`: the Copilot quotas of a GitHub token (`gitHubToken`; else the account named
 * by `selectionId` from `account.getAllUsers`; else the runtime's own), by kind (`chat`,
 * `completions`, `premium_interactions`…), as GitHub reports them.
 */
export const AccountGetQuota = defineRequest(
  "account.getQuota",
  () => Empty.extend({ gitHubToken: z.string().optional(), selectionId: z.string().optional() }).optional(),
  () => z.looseObject({ quotaSnapshots: z.record(z.string(), AccountQuotaSnapshot) }),
);

// ---- Session lifecycle --------------------------------------------------------------------------

/** Every field the official SDK sends in `session.create` / `session.resume`. */
const SessionConfigFields = {
  model: z.string().optional(),
  /** The session's own GitHub token for the Copilot API (instead of the runtime's). */
  gitHubToken: z.string().optional(),
  clientName: z.string().optional(),
  reasoningEffort: ReasoningEffort.optional(),
  tools: z.array(ToolDefinition).optional(),
  systemMessage: SystemMessageConfig.optional(),
  availableTools: z.array(z.string()).optional(),
  excludedTools: z.array(z.string()).optional(),
  /** The main agent's own settings (SDK 1.0.x): `excludedTools` are hidden from it while no custom agent is selected. */
  defaultAgent: z.looseObject({ excludedTools: z.array(z.string()).optional() }).optional(),
  provider: ProviderConfig.optional(),
  /** Ask an Anthropic provider for citations of attached documents (PDF blobs). */
  enableCitations: z.boolean().optional(),
  /** What the model can do, over what its provider reports (SDK 1.0.x); `supports.vision: false` keeps images from it. */
  modelCapabilities: ModelCapabilitiesOverride.optional(),
  /** Named BYOK providers (SDK 1.0.x multi-provider registry), next to the default provider. */
  providers: z.array(NamedProviderConfig).optional(),
  /** Models served by the named providers; each is selected as `<provider>/<id>`. */
  models: z.array(ProviderModelConfig).optional(),
  requestPermission: z.boolean().optional(),
  requestUserInput: z.boolean().optional(),
  /** The client answers `exitPlanMode.request` (the official 1.0.x `onExitPlanModeRequest`). */
  requestExitPlanMode: z.boolean().optional(),
  hooks: z.boolean().optional(),
  workingDirectory: z.string().optional(),
  streaming: z.boolean().optional(),
  mcpServers: z.record(z.string(), McpServerConfig).optional(),
  /** MCP servers listed but not started (their names), built-in ones included. */
  disabledMcpServers: z.array(z.string()).optional(),
  /** The GitHub MCP server's settings (Copilot API mode only). */
  githubMcpToolConfig: GitHubMcpToolConfig.optional(),
  envValueMode: z.string().optional(),
  customAgents: z.array(CustomAgentConfig).optional(),
  agent: z.string().optional(),
  configDir: z.string().optional(),
  skillDirectories: z.array(z.string()).optional(),
  disabledSkills: z.array(z.string()).optional(),
  /** Built-in agent types the `task` tool does not offer (SDK 1.0.x). */
  excludedBuiltinAgents: z.array(z.string()).optional(),
  /** More directories whose `*.instructions.md` files join the system prompt (SDK 1.0.x). */
  instructionDirectories: z.array(z.string()).optional(),
  /** Skip the working directory's AGENTS.md / .github/copilot-instructions.md (SDK 1.0.x). */
  skipCustomInstructions: z.boolean().optional(),
  /** Instructions of the organization, added to the system prompt (SDK 1.0.x). */
  organizationCustomInstructions: z.string().optional(),
  infiniteSessions: InfiniteSessionConfig.optional(),
  traceparent: z.string().optional(),
  tracestate: z.string().optional(),
  /** Official SDK 1.0: opt in to capturing file changes for rewind (Tandem: git checkpoints, in a git repository). */
  enableFileChangeTracking: z.boolean().optional(),
  /**
   * Tandem: offer the model `report_intent` (its calls become `assistant.intent` events). Unset:
   * the runtime's `--report-intent`, else what the client's SDK generation expects.
   */
  reportIntent: z.boolean().optional(),
  /** Tandem: run the session in its own `git worktree` on branch `tandem/<sessionId>` (create only). */
  worktreeIsolation: z.boolean().optional(),
  /** Slash commands this client runs (SDK 1.0.x `commands`): handed to it as `command.execute`. */
  commands: z.array(CommandRegistration).optional(),
  /** Run the session's bash commands (and stdio MCP servers) in an OS sandbox; unset: the runtime's `--sandbox` default. */
  sandbox: SandboxConfig.optional(),
};

/** `session.create` params. Unknown fields are kept (loose) so newer clients never fail. */
export const SessionCreateParams = z.looseObject({
  sessionId: SessionId.optional(),
  ...SessionConfigFields,
});
export type SessionCreateParams = z.infer<typeof SessionCreateParams>;

const SessionOpenResult = z.looseObject({
  sessionId: z.string(),
  workspacePath: z.string().optional(),
  capabilities: z.looseObject({ ui: z.looseObject({ elicitation: z.boolean() }).optional() }).optional(),
  /** Tandem, on a cluster: the session runs on another node, reachable there (official SDKs ignore it). */
  owner: SessionOwnerHint.optional(),
});

/** `session.create`: start a new session. */
export const SessionCreate = defineRequest("session.create", SessionCreateParams, SessionOpenResult);

/** `session.resume` params. */
export const SessionResumeParams = z.looseObject({
  ...sessionScoped,
  ...SessionConfigFields,
  disableResume: z.boolean().optional(),
  /**
   * Take over the work the session's turn still waits on (external tool calls, permission
   * requests) when its clients all left; without it, that held work is interrupted.
   */
  continuePendingWork: z.boolean().optional(),
});
export type SessionResumeParams = z.infer<typeof SessionResumeParams>;
/** `session.resume`: reopen a persisted (or live) session. */
export const SessionResume = defineRequest("session.resume", SessionResumeParams, SessionOpenResult);

/** `session.send` params. */
export const SessionSendParams = z.looseObject({
  ...sessionScoped,
  prompt: z.string(),
  attachments: z.array(Attachment).optional(),
  mode: z.enum(["enqueue", "immediate"]).optional(),
  /** The mode the user was in when they sent it (SDK 1.0.x); recorded on its `user.message`, the session's mode by default. */
  agentMode: z.enum(["interactive", "plan", "autopilot", "shell"]).optional(),
  /** Extra HTTP headers for the model requests of this message's turn (SDK 1.0.x). */
  requestHeaders: z.record(z.string(), z.string()).optional(),
  /**
   * Tandem: a key unique to this message (a UUID). A send retried with the same key (after a lost
   * connection or a node failover) is answered with the original `messageId` and runs once. The
   * key is stored with the message's `user.message` event.
   */
  idempotencyKey: z.string().optional(),
});
export type SessionSendParams = z.infer<typeof SessionSendParams>;
/** `session.send`: queue a user message; returns at once with its id. */
export const SessionSend = defineRequest("session.send", SessionSendParams, () => z.looseObject({ messageId: z.string() }));
/** `session.abort`: cancel the running turn. */
export const SessionAbort = defineRequest("session.abort", () => z.looseObject(sessionScoped), Success);
/** `session.getMessages`: the session's events. */
export const SessionGetMessages = defineRequest(
  "session.getMessages",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ events: z.array(SessionEventSchema) }),
);
/** `session.destroy`: release in-memory resources (disk is kept). */
export const SessionDestroy = defineRequest("session.destroy", () => z.looseObject(sessionScoped), Success);
/**
 * `session.delete`: delete the session and its data. Its git state (the checkpoint refs, and for a
 * `worktreeIsolation` session its worktree and `tandem/…` branch) goes too, unless `keepGitState`
 * (a Tandem extension) says to leave it in the repository.
 */
export const SessionDelete = defineRequest(
  "session.delete",
  () => z.looseObject({ ...sessionScoped, keepGitState: z.boolean().optional() }),
  Success,
);
/** `session.list`: persisted sessions, newest first. */
export const SessionList = defineRequest(
  "session.list",
  () => z.looseObject({ filter: z.looseObject({ cwd: z.string().optional(), gitRoot: z.string().optional(), repository: z.string().optional(), branch: z.string().optional() }).nullish() }).optional(),
  () => z.looseObject({ sessions: z.array(SessionMetadata) }),
);
/** `session.getLastId`: the most recently modified session. */
export const SessionGetLastId = defineRequest("session.getLastId", () => Empty.optional(), () => z.looseObject({ sessionId: z.string().optional() }));
/** `session.getForeground`: the foreground session (a headless runtime has one only if set). */
export const SessionGetForeground = defineRequest(
  "session.getForeground",
  () => Empty.optional(),
  () => z.looseObject({ sessionId: z.string().optional(), workspacePath: z.string().optional() }),
);
/** `session.setForeground`. */
export const SessionSetForeground = defineRequest("session.setForeground", () => z.looseObject(sessionScoped), Success);
/** `session.log`: write a message to the session timeline. */
export const SessionLog = defineRequest(
  "session.log",
  () => z.looseObject({
    ...sessionScoped,
    message: z.string(),
    level: z.enum(["info", "warning", "error"]).optional(),
    ephemeral: z.boolean().optional(),
    url: z.string().optional(),
  }),
  () => z.looseObject({ eventId: z.string() }),
);

/** `session.tools.handlePendingToolCall`: the client's answer to `external_tool.requested`. */
export const SessionToolsHandlePendingToolCall = defineRequest(
  "session.tools.handlePendingToolCall",
  () => z.looseObject({
    ...sessionScoped,
    requestId: z.string(),
    result: z.union([z.string(), ToolResultObject]).optional(),
    error: z.string().optional(),
  }),
  Success,
);
/** `session.permissions.handlePendingPermissionRequest`: the client's answer to `permission.requested`. */
export const SessionPermissionsHandlePendingPermissionRequest = defineRequest(
  "session.permissions.handlePendingPermissionRequest",
  // Any value is taken here: an answer the runtime cannot read still settles the request (as a
  // denial), so the turn never waits forever on an invalid answer.
  () => z.looseObject({ ...sessionScoped, requestId: z.string(), result: z.unknown() }),
  Success,
);

// ---- Session-scoped RPC (model, mode, plan, workspace, agents, skills, mcp, fleet) -------------

/** `session.model.getCurrent`. */
export const SessionModelGetCurrent = defineRequest(
  "session.model.getCurrent",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ modelId: z.string().optional(), reasoningEffort: z.string().optional() }),
);
/** `session.model.switchTo`. */
export const SessionModelSwitchTo = defineRequest(
  "session.model.switchTo",
  () => z.looseObject({ ...sessionScoped, modelId: z.string().min(1), reasoningEffort: ReasoningEffort.optional(), modelCapabilities: ModelCapabilitiesOverride.optional() }),
  () => z.looseObject({ modelId: z.string().optional() }),
);
/** `session.mode.get`: `{ mode }` for 0.2.0 clients, the bare mode for current ones. */
export const SessionModeGet = defineRequest(
  "session.mode.get",
  () => z.looseObject(sessionScoped),
  () => z.union([z.looseObject({ mode: AgentMode }), SessionModeGetResultCurrent]),
);
/** `session.mode.set`: `{ mode }` for 0.2.0 clients, `{ status, modelChanged, modeApplied }` for current ones. */
export const SessionModeSet = defineRequest(
  "session.mode.set",
  () => z.looseObject({ ...sessionScoped, mode: AgentMode }),
  () => z.union([z.looseObject({ mode: AgentMode }), SessionModeSetResultCurrent]),
);
/** `session.plan.read`. */
export const SessionPlanRead = defineRequest(
  "session.plan.read",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ exists: z.boolean(), content: z.string().nullable(), path: z.string().nullable() }),
);
/** `session.plan.update`. */
export const SessionPlanUpdate = defineRequest("session.plan.update", () => z.looseObject({ ...sessionScoped, content: z.string() }), Empty);
/** `session.plan.delete`. */
export const SessionPlanDelete = defineRequest("session.plan.delete", () => z.looseObject(sessionScoped), Empty);
/** `session.workspace.listFiles`. */
export const SessionWorkspaceListFiles = defineRequest(
  "session.workspace.listFiles",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ files: z.array(z.string()) }),
);
/** `session.workspace.readFile`. */
export const SessionWorkspaceReadFile = defineRequest(
  "session.workspace.readFile",
  () => z.looseObject({ ...sessionScoped, path: z.string() }),
  () => z.looseObject({ content: z.string() }),
);
/** `session.workspace.createFile`. */
export const SessionWorkspaceCreateFile = defineRequest(
  "session.workspace.createFile",
  () => z.looseObject({ ...sessionScoped, path: z.string(), content: z.string() }),
  Empty,
);
const AgentSummary = z.looseObject({ name: z.string(), displayName: z.string(), description: z.string() });
/** `session.agent.list`. */
export const SessionAgentList = defineRequest("session.agent.list", () => z.looseObject(sessionScoped), () => z.looseObject({ agents: z.array(AgentSummary) }));
/** `session.agent.getCurrent`. */
export const SessionAgentGetCurrent = defineRequest(
  "session.agent.getCurrent",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ agent: AgentSummary.nullable() }),
);
/** `session.agent.select`. */
export const SessionAgentSelect = defineRequest(
  "session.agent.select",
  () => z.looseObject({ ...sessionScoped, name: z.string() }),
  () => z.looseObject({ agent: AgentSummary }),
);
/** `session.agent.deselect`. */
export const SessionAgentDeselect = defineRequest("session.agent.deselect", () => z.looseObject(sessionScoped), Empty);
/** `session.agent.reload`. */
export const SessionAgentReload = defineRequest("session.agent.reload", () => z.looseObject(sessionScoped), () => z.looseObject({ agents: z.array(AgentSummary) }));
/** `session.fleet.start`. */
export const SessionFleetStart = defineRequest(
  "session.fleet.start",
  () => z.looseObject({ ...sessionScoped, prompt: z.string().optional() }),
  () => z.looseObject({ started: z.boolean() }),
);
/** `session.compaction.compact`. */
export const SessionCompactionCompact = defineRequest(
  "session.compaction.compact",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ success: z.boolean(), tokensRemoved: z.number(), messagesRemoved: z.number() }),
);

const McpServerStatus = z.looseObject({
  name: z.string(),
  status: z.enum(["connected", "failed", "pending", "disabled", "not_configured", "needs-auth"]),
  source: z.string().optional(),
  error: z.string().optional(),
});
/** `session.mcp.list`: the session's MCP servers and their status. */
export const SessionMcpList = defineRequest("session.mcp.list", () => z.looseObject(sessionScoped), () => z.looseObject({ servers: z.array(McpServerStatus) }));
/** `session.mcp.enable`. */
export const SessionMcpEnable = defineRequest("session.mcp.enable", () => z.looseObject({ ...sessionScoped, serverName: z.string() }), Empty);
/** `session.mcp.disable`. */
export const SessionMcpDisable = defineRequest("session.mcp.disable", () => z.looseObject({ ...sessionScoped, serverName: z.string() }), Empty);
/** `session.mcp.reload`: restart every enabled server. */
export const SessionMcpReload = defineRequest("session.mcp.reload", () => z.looseObject(sessionScoped), Empty);

const SkillSummary = z.looseObject(skillSummaryFields());
/** `session.skills.list`. */
export const SessionSkillsList = defineRequest("session.skills.list", () => z.looseObject(sessionScoped), () => z.looseObject({ skills: z.array(SkillSummary) }));
/** `session.skills.enable`. */
export const SessionSkillsEnable = defineRequest("session.skills.enable", () => z.looseObject({ ...sessionScoped, name: z.string() }), Empty);
/** `session.skills.disable`. */
export const SessionSkillsDisable = defineRequest("session.skills.disable", () => z.looseObject({ ...sessionScoped, name: z.string() }), Empty);
/** `session.skills.reload`: read the skill directories again (current clients also get `{ warnings, errors }`). */
export const SessionSkillsReload = defineRequest("session.skills.reload", () => z.looseObject(sessionScoped), () => z.union([Empty, SessionSkillsReloadResultCurrent]));

/** The answer to an elicitation form. */
export const ElicitationResult = z.looseObject({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
});
export type ElicitationResult = z.infer<typeof ElicitationResult>;
/** `session.ui.handlePendingElicitation` (Tandem): the client's answer to `elicitation.requested`. */
export const SessionUiHandlePendingElicitation = defineRequest(
  "session.ui.handlePendingElicitation",
  () => z.looseObject({ ...sessionScoped, requestId: z.string(), result: ElicitationResult }),
  Success,
);
/** `session.exitPlanMode.handlePendingRequest` (Tandem): the client's answer to `exit_plan_mode.requested`. */
export const SessionExitPlanModeHandlePendingRequest = defineRequest(
  "session.exitPlanMode.handlePendingRequest",
  () => z.looseObject({ ...sessionScoped, requestId: z.string(), action: z.string(), feedback: z.string().optional() }),
  Success,
);

// ---- Runtime → client requests and notifications -------------------------------------------------

/** `session.event` notification: one session event. */
export const SessionEventNotification = defineNotification(
  "session.event",
  () => z.looseObject({ sessionId: z.string(), event: SessionEventSchema }),
);
/** `session.lifecycle` notification. */
export const SessionLifecycleNotification = defineNotification(
  "session.lifecycle",
  () => z.looseObject({
    type: z.enum(["session.created", "session.deleted", "session.updated", "session.foreground", "session.background"]),
    sessionId: z.string(),
    metadata: z.looseObject({ startTime: z.string(), modifiedTime: z.string(), summary: z.string().optional() }).optional(),
  }),
);
export type SessionLifecycleEvent = z.infer<typeof SessionLifecycleNotification.params>;

/** Protocol v2: `tool.call` (runtime asks the client to run a custom tool). */
export const ToolCallV2 = defineRequest(
  "tool.call",
  () => z.looseObject({ sessionId: z.string(), toolCallId: z.string(), toolName: z.string(), arguments: z.unknown() }),
  () => z.looseObject({ result: z.union([ToolResultObject, z.string()]).optional() }),
);
/** Protocol v2: `permission.request`. */
export const PermissionRequestV2 = defineRequest(
  "permission.request",
  () => z.looseObject({ sessionId: z.string(), permissionRequest: PermissionRequest }),
  () => z.looseObject({ result: PermissionResult }),
);
/** `userInput.request` (the ask_user tool). */
export const UserInputRequest = defineRequest(
  "userInput.request",
  () => z.looseObject({
    sessionId: z.string(),
    question: z.string(),
    choices: z.array(z.string()).optional(),
    allowFreeform: z.boolean().optional(),
  }),
  () => z.looseObject({ answer: z.string(), wasFreeform: z.boolean().optional() }),
);
/** `hooks.invoke`. */
export const HooksInvoke = defineRequest(
  "hooks.invoke",
  () => z.looseObject({ sessionId: z.string(), hookType: z.string(), input: z.unknown() }),
  () => z.looseObject({ output: z.unknown().optional() }).nullish(),
);

/** `systemMessage.transform`: the runtime asks the client to transform system-prompt sections. */
export const SystemMessageTransform = defineRequest(
  "systemMessage.transform",
  () => z.looseObject({ sessionId: z.string(), sections: z.record(z.string(), z.looseObject({ content: z.string() })) }),
  () => z.looseObject({ sections: z.record(z.string(), z.looseObject({ content: z.string() })) }),
);
