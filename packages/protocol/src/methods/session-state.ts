import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

/**
 * Session-scoped state of the current official SDK (1.0.x): shutdown, metadata snapshots and the
 * working directory, context measurements, the reasoning effort and automatic name, usage,
 * instruction sources, per-session credentials, and the services a host initialises (LSP,
 * telemetry overrides). Names and shapes follow the 1.0.x `rpc.d.ts`.
 */

const sessionScoped = { sessionId: SessionId };
const Nothing = z.lazy(() => z.null().or(z.undefined()).or(z.looseObject({})));

/** `session.shutdown`: ends the session (its last events written, `session.shutdown` emitted); the session leaves memory. */
export const SessionShutdown = defineRequest(
  "session.shutdown",
  () => z.looseObject({ ...sessionScoped, type: z.enum(["routine", "error"]).optional(), reason: z.string().optional() }),
  () => Nothing,
);

/** The workspace summary in a metadata snapshot. */
export const WorkspaceSummary = z.lazy(() => z.looseObject({
  id: z.string(),
  cwd: z.string().optional(),
  git_root: z.string().optional(),
  repository: z.string().optional(),
  branch: z.string().optional(),
  name: z.string().optional(),
  user_named: z.boolean().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
}));

/** `session.metadata.snapshot`: the session's identity, mode, model and place, as they are now. */
export const SessionMetadataSnapshot = defineRequest(
  "session.metadata.snapshot",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({
    sessionId: z.string(),
    startTime: z.string(),
    modifiedTime: z.string(),
    isRemote: z.boolean(),
    alreadyInUse: z.boolean(),
    workspacePath: z.string().nullable(),
    summary: z.string().optional(),
    workingDirectory: z.string(),
    currentMode: z.enum(["interactive", "plan", "autopilot"]),
    selectedModel: z.string().optional(),
    sessionLimits: z.null(),
    workspace: WorkspaceSummary.nullable().optional(),
  }),
);

/** `session.metadata.isProcessing`: whether a turn is running. */
export const SessionMetadataIsProcessing = defineRequest(
  "session.metadata.isProcessing",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ processing: z.boolean() }),
);

/** `session.metadata.activity`: whether work is under way and whether `session.abort` would stop something. */
export const SessionMetadataActivity = defineRequest(
  "session.metadata.activity",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ hasActiveWork: z.boolean(), abortable: z.boolean() }),
);

/** The token breakdown of the session's context window. */
export const SessionContextInfo = z.lazy(() => z.looseObject({
  modelName: z.string(),
  systemTokens: z.number(),
  conversationTokens: z.number(),
  toolDefinitionsTokens: z.number(),
  mcpToolsTokens: z.number(),
  totalTokens: z.number(),
  promptTokenLimit: z.number(),
  compactionThreshold: z.number(),
  limit: z.number(),
  bufferTokens: z.number(),
}));

/** `session.metadata.contextInfo`: the context window's token breakdown for given limits. */
export const SessionMetadataContextInfo = defineRequest(
  "session.metadata.contextInfo",
  () => z.looseObject({ ...sessionScoped, promptTokenLimit: z.number().int().positive(), outputTokenLimit: z.number().int().min(0), selectedModel: z.string().optional() }),
  () => z.looseObject({ contextInfo: SessionContextInfo.nullable().optional() }),
);

/** One entry of the context attribution: a source of tokens (system prompt, a tool, the messages). */
export const ContextAttributionEntry = z.lazy(() => z.looseObject({
  kind: z.string(),
  id: z.string(),
  label: z.string(),
  tokens: z.number(),
  parentId: z.string().optional(),
  attributes: z.array(z.looseObject({ key: z.string(), value: z.string() })).optional(),
}));

/** `session.metadata.getContextAttribution`: where the context window's tokens go. */
export const SessionMetadataGetContextAttribution = defineRequest(
  "session.metadata.getContextAttribution",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({
    contextAttribution: z
      .looseObject({
        totalTokens: z.number(),
        modelId: z.string(),
        modelSource: z.string(),
        promptTokenLimit: z.number(),
        limit: z.number(),
        bufferTokens: z.number(),
        compactionThreshold: z.number(),
        categories: z.looseObject({
          systemPrompt: z.number(),
          customInstructions: z.number(),
          systemTools: z.number(),
          mcpTools: z.number(),
          messages: z.number(),
          freeSpace: z.number(),
          buffer: z.number(),
        }),
        entries: z.array(ContextAttributionEntry),
        compactions: z.looseObject({ count: z.number() }),
      })
      .nullable()
      .optional(),
  }),
);

/** `session.metadata.getContextHeaviestMessages`: the largest messages of the context, heaviest first. */
export const SessionMetadataGetContextHeaviestMessages = defineRequest(
  "session.metadata.getContextHeaviestMessages",
  () => z.looseObject({ ...sessionScoped, limit: z.number().int().min(1).max(1000).optional() }),
  () => z.looseObject({
    totalTokens: z.number(),
    messages: z.array(z.looseObject({ id: z.string(), label: z.string(), role: z.string(), tokens: z.number() })),
  }),
);

/** `session.metadata.recomputeContextTokens`: the history's tokens measured again. */
export const SessionMetadataRecomputeContextTokens = defineRequest(
  "session.metadata.recomputeContextTokens",
  () => z.looseObject({ ...sessionScoped, modelId: z.string() }),
  () => z.looseObject({ totalTokens: z.number(), messagesTokenCount: z.number(), systemTokenCount: z.number() }),
);

/** The place a host reports with `session.metadata.recordContextChange`. */
export const WorkingDirectoryContext = z.lazy(() => z.looseObject({
  cwd: z.string(),
  gitRoot: z.string().optional(),
  repository: z.string().optional(),
  hostType: z.enum(["github", "ado"]).optional(),
  repositoryHost: z.string().optional(),
  branch: z.string().optional(),
  headCommit: z.string().optional(),
  baseCommit: z.string().optional(),
}));

/** `session.metadata.recordContextChange`: a host-detected change of place, emitted as `session.context_changed`. */
export const SessionMetadataRecordContextChange = defineRequest(
  "session.metadata.recordContextChange",
  () => z.looseObject({ ...sessionScoped, context: WorkingDirectoryContext }),
  () => Nothing,
);

/** `session.metadata.setWorkingDirectory`: moves the session to another (existing, absolute) folder. */
export const SessionMetadataSetWorkingDirectory = defineRequest(
  "session.metadata.setWorkingDirectory",
  () => z.looseObject({ ...sessionScoped, workingDirectory: z.string().min(1) }),
  () => z.looseObject({ workingDirectory: z.string() }),
);

/** `session.model.setReasoningEffort`: the effort of the next model calls. */
export const SessionModelSetReasoningEffort = defineRequest(
  "session.model.setReasoningEffort",
  () => z.looseObject({ ...sessionScoped, reasoningEffort: z.enum(["low", "medium", "high", "xhigh"]) }),
  () => z.looseObject({ reasoningEffort: z.string() }),
);

/** `session.model.list`: the models this session can switch to (the default provider's and those added with `session.provider.add`). */
export const SessionModelList = defineRequest(
  "session.model.list",
  () => z.looseObject({ ...sessionScoped, skipCache: z.boolean().optional() }),
  () => z.looseObject({ list: z.array(z.unknown()) }),
);

/** `session.name.setAuto`: a generated title, applied unless the user named the session. */
export const SessionNameSetAuto = defineRequest(
  "session.name.setAuto",
  () => z.looseObject({ ...sessionScoped, summary: z.string() }),
  () => z.looseObject({ applied: z.boolean() }),
);

/** `session.usage.getMetrics`: the session's model calls, tokens and code changes so far. */
export const SessionUsageGetMetrics = defineRequest(
  "session.usage.getMetrics",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({
    totalPremiumRequestCost: z.number(),
    totalUserRequests: z.number(),
    totalApiDurationMs: z.number(),
    sessionStartTime: z.string(),
    codeChanges: z.looseObject({ linesAdded: z.number(), linesRemoved: z.number(), filesModifiedCount: z.number(), filesModified: z.array(z.string()) }),
    modelMetrics: z.record(z.string(), z.unknown()),
    currentModel: z.string().optional(),
    lastCallInputTokens: z.number(),
    lastCallOutputTokens: z.number(),
  }),
);

/** One instruction file the system prompt includes. */
export const InstructionSource = z.lazy(() => z.looseObject({
  id: z.string(),
  label: z.string(),
  sourcePath: z.string(),
  content: z.string(),
  type: z.enum(["home", "repo", "model", "vscode", "nested-agents", "child-instructions", "plugin"]),
  location: z.enum(["user", "repository", "working-directory", "plugin"]),
}));

/** `session.instructions.getSources`: the instruction files the session's system prompt includes. */
export const SessionInstructionsGetSources = defineRequest(
  "session.instructions.getSources",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ sources: z.array(InstructionSource) }),
);

/** Credentials handed to a session (`session.gitHubAuth.setCredentials`). */
export const SessionCredentials = z.lazy(() => z.looseObject({
  type: z.enum(["hmac", "env", "user", "gh-cli", "api-key", "token", "copilot-api-token"]),
  host: z.string(),
  login: z.string().optional(),
  token: z.string().optional(),
  apiKey: z.string().optional(),
  copilotUser: z.looseObject({ login: z.string().optional(), copilot_plan: z.string().optional() }).optional(),
}));

/** `session.gitHubAuth.setCredentials`: the identity (and token) the session acts with. */
export const SessionGitHubAuthSetCredentials = defineRequest(
  "session.gitHubAuth.setCredentials",
  () => z.looseObject({ ...sessionScoped, credentials: SessionCredentials.optional() }),
  () => z.looseObject({ success: z.boolean(), copilotUserResolved: z.boolean().optional() }),
);

/** `session.lsp.initialize`: Tandem has no language servers; the call records nothing and answers null. */
export const SessionLspInitialize = defineRequest(
  "session.lsp.initialize",
  () => z.looseObject({ ...sessionScoped, workingDirectory: z.string().optional(), gitRoot: z.string().optional(), force: z.boolean().optional() }),
  () => Nothing,
);

/** `session.telemetry.setFeatureOverrides`: feature values attached to the session's telemetry. */
export const SessionTelemetrySetFeatureOverrides = defineRequest(
  "session.telemetry.setFeatureOverrides",
  () => z.looseObject({ ...sessionScoped, features: z.record(z.string(), z.string()) }),
  () => Nothing,
);

/** `session.telemetry.getEngagementId`: the id that ties the session's telemetry together. */
export const SessionTelemetryGetEngagementId = defineRequest(
  "session.telemetry.getEngagementId",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ engagementId: z.string().optional() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const sessionStateRequests = [
  SessionShutdown,
  SessionMetadataSnapshot,
  SessionMetadataIsProcessing,
  SessionMetadataActivity,
  SessionMetadataContextInfo,
  SessionMetadataGetContextAttribution,
  SessionMetadataGetContextHeaviestMessages,
  SessionMetadataRecomputeContextTokens,
  SessionMetadataRecordContextChange,
  SessionMetadataSetWorkingDirectory,
  SessionModelSetReasoningEffort,
  SessionModelList,
  SessionNameSetAuto,
  SessionUsageGetMetrics,
  SessionInstructionsGetSources,
  SessionGitHubAuthSetCredentials,
  SessionLspInitialize,
  SessionTelemetrySetFeatureOverrides,
  SessionTelemetryGetEngagementId,
] as const;
