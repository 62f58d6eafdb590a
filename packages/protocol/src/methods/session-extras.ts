import { z } from "zod";
import { PermissionRequest, SessionId } from "../common.js";
import { defineRequest } from "../method.js";

/**
 * More session-scoped methods of the current official SDK (1.0.x): allow-all and pending
 * permissions, completions, visibility, tool metadata and sub-agent settings, plugins, providers
 * added at runtime, the SQL todo list, scheduled prompts, event-log interest, large pastes and
 * one-off questions. Names and shapes follow the 1.0.x `rpc.d.ts`.
 */

const sessionScoped = { sessionId: SessionId };
const Nothing = z.lazy(() => z.null().or(z.undefined()).or(z.looseObject({})));
const Success = z.lazy(() => z.looseObject({ success: z.boolean() }));

/** `session.permissions.getAllowAll`: whether every tool call is approved without asking. */
export const SessionPermissionsGetAllowAll = defineRequest(
  "session.permissions.getAllowAll",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ enabled: z.boolean(), mode: z.enum(["off", "on", "auto"]).optional() }),
);

/** `session.permissions.setAllowAll`: turns allow-all on or off (`mode` `on`/`off`, or `enabled`). */
export const SessionPermissionsSetAllowAll = defineRequest(
  "session.permissions.setAllowAll",
  () => z.looseObject({ ...sessionScoped, enabled: z.boolean().optional(), mode: z.enum(["off", "on", "auto"]).optional(), source: z.string().optional() }),
  () => z.looseObject({ success: z.boolean(), enabled: z.boolean(), mode: z.enum(["off", "on", "auto"]).optional() }),
);

/** `session.permissions.resetSessionApprovals`: forgets the approvals remembered for the session. */
export const SessionPermissionsResetSessionApprovals = defineRequest(
  "session.permissions.resetSessionApprovals",
  () => z.looseObject({ ...sessionScoped, includeLocation: z.boolean().optional() }),
  () => Success,
);

/** `session.permissions.pendingRequests`: the permission requests waiting for an answer. */
export const SessionPermissionsPendingRequests = defineRequest(
  "session.permissions.pendingRequests",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ items: z.array(z.looseObject({ requestId: z.string(), request: PermissionRequest })) }),
);

/** `session.completions.getTriggerCharacters`: the characters after which the host offers completions. */
export const SessionCompletionsGetTriggerCharacters = defineRequest(
  "session.completions.getTriggerCharacters",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ triggerCharacters: z.array(z.string()) }),
);

/** `session.completions.request`: completions for the prompt being typed. */
export const SessionCompletionsRequest = defineRequest(
  "session.completions.request",
  () => z.looseObject({ ...sessionScoped, text: z.string(), offset: z.number().int().min(0) }),
  () => z.looseObject({ items: z.array(z.looseObject({ insertText: z.string(), label: z.string().optional(), kind: z.string().optional() })) }),
);

const Visibility = z.lazy(() => z.looseObject({ synced: z.boolean(), status: z.enum(["repo", "unshared"]).optional(), shareUrl: z.string().optional() }));
/** `session.visibility.get`: whether the session is shared through a hosted service (never, for a local session). */
export const SessionVisibilityGet = defineRequest("session.visibility.get", () => z.looseObject(sessionScoped), () => Visibility);
/** `session.visibility.set`: sharing a local session is not possible; the answer says it is not synced. */
export const SessionVisibilitySet = defineRequest(
  "session.visibility.set",
  () => z.looseObject({ ...sessionScoped, status: z.enum(["repo", "unshared"]) }),
  () => Visibility,
);

/** `session.tools.initializeAndValidate`: builds the session's tool set now (it is otherwise built lazily). */
export const SessionToolsInitializeAndValidate = defineRequest(
  "session.tools.initializeAndValidate",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({}),
);

/** `session.tools.getCurrentMetadata`: the tools offered to the model now. */
export const SessionToolsGetCurrentMetadata = defineRequest(
  "session.tools.getCurrentMetadata",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({
    tools: z
      .array(z.looseObject({ name: z.string(), description: z.string(), mcpServerName: z.string().optional(), input_schema: z.record(z.string(), z.unknown()).optional() }))
      .nullable(),
  }),
);

/** Settings of one kind of sub-agent. */
export const SubagentSettingsEntry = z.lazy(() => z.looseObject({
  model: z.string().optional(),
  effortLevel: z.string().optional(),
  contextTier: z.enum(["inherit", "default", "long_context"]).optional(),
}));

/** `session.tools.updateSubagentSettings`: models and efforts of sub-agents by agent name; null clears them. */
export const SessionToolsUpdateSubagentSettings = defineRequest(
  "session.tools.updateSubagentSettings",
  () => z.looseObject({ ...sessionScoped, subagents: z.record(z.string(), z.unknown()).nullable().optional() }),
  () => z.looseObject({}),
);

/** `session.plugins.reload`: reloads what plugins contribute (MCP servers, custom agents). */
export const SessionPluginsReload = defineRequest(
  "session.plugins.reload",
  () => z.looseObject({ ...sessionScoped, reloadMcp: z.boolean().optional(), reloadCustomAgents: z.boolean().optional(), reloadHooks: z.boolean().optional(), reloadExtensions: z.boolean().optional() }),
  () => Nothing,
);

/** A provider added to a running session. */
export const NamedProvider = z.lazy(() => z.looseObject({
  name: z.string().min(1).regex(/^[A-Za-z0-9_.-]+$/, "provider names may use letters, digits, _ . and - only"),
  type: z.enum(["openai", "azure", "anthropic"]).optional(),
  wireApi: z.enum(["completions", "responses"]).optional(),
  baseUrl: z.string().url(),
  apiKey: z.string().optional(),
  bearerToken: z.string().optional(),
  azure: z.looseObject({ apiVersion: z.string().optional() }).optional(),
  headers: z.record(z.string(), z.string()).optional(),
}));

/** A model of an added provider; it is selected as `<provider>/<id>`. */
export const ProviderModel = z.lazy(() => z.looseObject({
  id: z.string().min(1),
  provider: z.string().min(1),
  wireModel: z.string().optional(),
  modelId: z.string().optional(),
  name: z.string().optional(),
  maxPromptTokens: z.number().int().positive().optional(),
  maxContextWindowTokens: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  capabilities: z.looseObject({}).optional(),
}));

/** `session.provider.add`: providers and models the session can switch to (`session.model.switchTo`). */
export const SessionProviderAdd = defineRequest(
  "session.provider.add",
  () => z.looseObject({ ...sessionScoped, providers: z.array(NamedProvider).optional(), models: z.array(ProviderModel).optional() }),
  () => z.looseObject({ models: z.array(z.unknown()) }),
);

const TodoRow = z.lazy(() => z.looseObject({ id: z.string().optional(), title: z.string().optional(), description: z.string().optional(), status: z.string().optional() }));
/** `session.plan.readSqlTodos`: the rows of the session database's `todos` table (empty when there is none). */
export const SessionPlanReadSqlTodos = defineRequest("session.plan.readSqlTodos", () => z.looseObject(sessionScoped), () => z.looseObject({ rows: z.array(TodoRow) }));
/** `session.plan.readSqlTodosWithDependencies`: the todos and the `todo_deps` edges between them. */
export const SessionPlanReadSqlTodosWithDependencies = defineRequest(
  "session.plan.readSqlTodosWithDependencies",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ rows: z.array(TodoRow), dependencies: z.array(z.looseObject({ todoId: z.string(), dependsOn: z.string() })) }),
);

/** A scheduled prompt. */
export const ScheduleEntry = z.lazy(() => z.looseObject({
  id: z.number(),
  intervalMs: z.number().optional(),
  prompt: z.string(),
  recurring: z.boolean(),
  displayPrompt: z.string().optional(),
  nextRunAt: z.string(),
}));

/** `session.schedule.list`: the session's scheduled prompts. */
export const SessionScheduleList = defineRequest("session.schedule.list", () => z.looseObject(sessionScoped), () => z.looseObject({ entries: z.array(ScheduleEntry) }));
/** `session.schedule.stop`: removes a scheduled prompt; the answer has no entry when the id was unknown. */
export const SessionScheduleStop = defineRequest(
  "session.schedule.stop",
  () => z.looseObject({ ...sessionScoped, id: z.number().int() }),
  () => z.looseObject({ entry: ScheduleEntry.optional() }),
);
/**
 * `session.schedule.add`: sends `prompt` to the session after `interval` (`30s`, `5m`, `2h`, `1d`,
 * or a number of milliseconds), again every interval when `recurring`.
 */
export const SessionScheduleAdd = defineRequest(
  "session.schedule.add",
  () => z.looseObject({ ...sessionScoped, interval: z.string().min(1), prompt: z.string().min(1), recurring: z.boolean().optional(), displayPrompt: z.string().optional() }),
  () => z.looseObject({ entry: ScheduleEntry.optional(), error: z.string().optional() }),
);

/**
 * `session.commands.enqueue`: queues a slash command behind the waiting messages. A command the
 * runtime does not know is queued for the application when one of its clients registered interest
 * in `command.queued`; otherwise it fails at its turn with a `session.warning`.
 */
export const SessionCommandsEnqueue = defineRequest(
  "session.commands.enqueue",
  () => z.looseObject({ ...sessionScoped, command: z.string().min(1) }),
  () => z.looseObject({ queued: z.boolean() }),
);

/** `session.workspaces.saveLargePaste`: keeps a large pasted text as a workspace file. */
export const SessionWorkspacesSaveLargePaste = defineRequest(
  "session.workspaces.saveLargePaste",
  () => z.looseObject({ ...sessionScoped, content: z.string() }),
  () => z.looseObject({ saved: z.looseObject({ filePath: z.string(), filename: z.string(), sizeBytes: z.number() }).nullable() }),
);

/** `session.ui.ephemeralQuery`: a question answered by the session's model, outside the conversation. */
export const SessionUiEphemeralQuery = defineRequest(
  "session.ui.ephemeralQuery",
  () => z.looseObject({ ...sessionScoped, question: z.string().min(1) }),
  () => z.looseObject({ answer: z.string() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const sessionExtrasRequests = [
  SessionPermissionsGetAllowAll,
  SessionPermissionsSetAllowAll,
  SessionPermissionsResetSessionApprovals,
  SessionPermissionsPendingRequests,
  SessionCompletionsGetTriggerCharacters,
  SessionCompletionsRequest,
  SessionVisibilityGet,
  SessionVisibilitySet,
  SessionToolsInitializeAndValidate,
  SessionToolsGetCurrentMetadata,
  SessionToolsUpdateSubagentSettings,
  SessionPluginsReload,
  SessionProviderAdd,
  SessionPlanReadSqlTodos,
  SessionPlanReadSqlTodosWithDependencies,
  SessionScheduleList,
  SessionScheduleStop,
  SessionScheduleAdd,
  SessionCommandsEnqueue,
  SessionWorkspacesSaveLargePaste,
  SessionUiEphemeralQuery,
] as const;
