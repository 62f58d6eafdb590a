import { z } from "zod";
import { memoisedRecord } from "./lazy.js";
import { Attachment, JsonObject, PermissionRequest, PermissionResult, SessionContext } from "./common.js";

const optionalString = z.string().optional();
const optionalNumber = z.number().optional();
/** Fields every event a sub-agent produces may carry. */
const subAgentLink = { parentToolCallId: optionalString };

/** A tool call the assistant asked for. */
export const ToolRequest = z.looseObject({
  toolCallId: z.string(),
  name: z.string(),
  arguments: z.unknown().optional(),
  type: z.enum(["function", "custom"]).optional(),
  intentionSummary: z.string().nullable().optional(),
  toolTitle: optionalString,
});
export type ToolRequest = z.infer<typeof ToolRequest>;

/** What a tool produced, as events carry it. */
export const ToolExecutionResult = z.looseObject({
  content: z.string(),
  detailedContent: optionalString,
  contents: z.array(z.unknown()).optional(),
});

/** Per-model usage totals (session.shutdown). */
export const ModelMetric = z.looseObject({
  requests: z.looseObject({ count: z.number(), cost: z.number() }),
  usage: z.looseObject({
    inputTokens: z.number(),
    outputTokens: z.number(),
    cacheReadTokens: z.number(),
    cacheWriteTokens: z.number(),
  }),
});

/**
 * Builds the `data` schema of every session event type, keyed by `type`. Schemas are loose: unknown
 * fields pass through, so newer producers stay readable.
 */
const eventDataFactories = {
  // Session lifecycle
  "session.start": () => z.looseObject({
    sessionId: z.string(),
    version: z.number(),
    producer: z.string(),
    copilotVersion: z.string(),
    startTime: z.string(),
    selectedModel: optionalString,
    reasoningEffort: optionalString,
    context: SessionContext.optional(),
    alreadyInUse: z.boolean().optional(),
  }),
  "session.resume": () =>
    z.looseObject({
      resumeTime: z.string(),
      eventCount: z.number(),
      selectedModel: optionalString,
      reasoningEffort: optionalString,
      context: SessionContext.optional(),
      /** Whether the resuming client took over the work the session's turn still waited on. */
      continuePendingWork: z.boolean().optional(),
      /** Whether other clients were attached (the session was in use) when it was resumed. */
      sessionWasActive: z.boolean().optional(),
    }),
  "session.idle": () => z.looseObject({ backgroundTasks: z.unknown().optional(), mode: optionalString, aborted: z.boolean().optional() }),
  "session.error": () => z.looseObject({
    errorType: z.string(),
    message: z.string(),
    stack: optionalString,
    statusCode: optionalNumber,
    providerCallId: optionalString,
  }),
  "session.info": () => z.looseObject({ infoType: z.string(), message: z.string(), url: optionalString }),
  "session.warning": () => z.looseObject({ warningType: z.string(), message: z.string(), url: optionalString }),
  "session.title_changed": () => z.looseObject({ title: z.string() }),
  /** Whether the session can now be steered remotely (`session.remote.notifySteerableChanged`); persisted. */
  "session.remote_steerable_changed": () => z.looseObject({ remoteSteerable: z.boolean() }),
  /**
   * Tandem (cluster): the node running the session died mid-turn and another node took it over.
   * Tool calls left without a result were answered "interrupted" (their ids are listed; their
   * `tool.execution_complete` follows with `error.code: "interrupted"`), pending permission
   * requests were dropped (asked again if the model calls the tool again), and the turn continues
   * on `nodeId`. The 1.0.x protocol has no event for this (`abort` carries only user reasons).
   */
  "session.turn_interrupted": () => z.looseObject({
    reason: z.literal("node_lost"),
    previousNodeId: z.string(),
    nodeId: z.string(),
    interruptedToolCallIds: z.array(z.string()),
    /** Whether the turn continues (the runtime asked the model again). */
    continued: z.boolean(),
  }),
  "session.context_changed": () => SessionContext,
  "session.model_change": () => z.looseObject({ previousModel: optionalString, newModel: z.string(), reasoningEffort: optionalString }),
  "session.mode_changed": () => z.looseObject({ previousMode: z.string(), newMode: z.string() }),
  /** The model was told about the agent mode a message is answered in (a `<mode_changed_notice>` on entering plan mode); persisted. */
  "session.mode_notice_delivered": () => z.looseObject({ mode: z.string(), content: optionalString }),
  "session.plan_changed": () => z.looseObject({ operation: z.enum(["create", "update", "delete"]) }),
  "session.tools_updated": () => z.looseObject({ model: optionalString }),
  "session.usage_info": () => z.looseObject({
    tokenLimit: z.number(),
    currentTokens: z.number(),
    messagesLength: z.number(),
    systemTokens: optionalNumber,
    conversationTokens: optionalNumber,
    toolDefinitionsTokens: optionalNumber,
    isInitial: z.boolean().optional(),
  }),
  /** A rewind or truncation: `upToEventId` and every event after it no longer belong to the conversation. */
  "session.snapshot_rewind": () => z.looseObject({ eventsRemoved: z.number(), upToEventId: z.string() }),
  /** The conversation was cleared (`session.history.clearContext`); `initialMessage` is the prompt that starts the new one. */
  "session.context_cleared": () => z.looseObject({ messagesCleared: z.number(), initialMessage: optionalString }),
  "session.truncation": () => z.looseObject({ tokenLimit: optionalNumber, messagesRemovedDuringTruncation: optionalNumber }),
  "session.compaction_start": () => z.looseObject({}),
  "session.compaction_complete": () => z.looseObject({
    success: z.boolean(),
    error: optionalString,
    preCompactionTokens: optionalNumber,
    postCompactionTokens: optionalNumber,
    preCompactionMessagesLength: optionalNumber,
    messagesRemoved: optionalNumber,
    tokensRemoved: optionalNumber,
    summaryContent: optionalString,
    checkpointNumber: optionalNumber,
    checkpointPath: optionalString,
    compactionTokensUsed: z.looseObject({ input: z.number(), output: z.number(), cachedInput: z.number() }).optional(),
    requestId: optionalString,
  }),
  "session.task_complete": () => z.looseObject({ summary: optionalString }),
  "session.shutdown": () => z.looseObject({
    shutdownType: z.enum(["routine", "error"]),
    errorReason: optionalString,
    totalPremiumRequests: z.number(),
    totalApiDurationMs: z.number(),
    sessionStartTime: z.number(),
    codeChanges: z.looseObject({ linesAdded: z.number(), linesRemoved: z.number(), filesModified: z.array(z.string()) }),
    modelMetrics: z.record(z.string(), ModelMetric),
    currentModel: optionalString,
  }),
  "session.background_tasks_changed": () => z.looseObject({}),
  /** Signal only: the session's `todos` or `todo_deps` table was written to. */
  "session.todos_changed": () => z.looseObject({}),
  "session.mcp_servers_loaded": () => z.looseObject({ servers: z.array(z.looseObject({ name: z.string(), status: z.string() })) }),
  "session.mcp_server_status_changed": () => z.looseObject({ serverName: z.string(), status: z.string(), error: optionalString }),
  "session.skills_loaded": () => z.looseObject({ skills: z.array(z.looseObject({ name: z.string() })) }),
  "pending_messages.modified": () => z.looseObject({}),
  "session.permissions_changed": () => z.looseObject({ mode: optionalString, previousMode: optionalString }),
  "session.workspace_file_changed": () => z.looseObject({ operation: z.enum(["create", "update"]), path: z.string() }),
  "capabilities.changed": () => z.looseObject({ ui: z.looseObject({ elicitation: z.boolean().optional() }).optional() }),
  "commands.changed": () => z.looseObject({ commands: z.array(z.looseObject({ name: z.string(), description: optionalString })) }),

  // Assistant
  "assistant.turn_start": () => z.looseObject({ turnId: z.string(), interactionId: optionalString, ...subAgentLink }),
  "assistant.intent": () => z.looseObject({ intent: z.string() }),
  "assistant.reasoning": () => z.looseObject({ reasoningId: z.string(), content: z.string(), ...subAgentLink }),
  "assistant.reasoning_delta": () => z.looseObject({ reasoningId: z.string(), deltaContent: z.string(), ...subAgentLink }),
  "assistant.streaming_delta": () => z.looseObject({ totalResponseSizeBytes: z.number(), ...subAgentLink }),
  "assistant.message": () => z.looseObject({
    messageId: z.string(),
    content: z.string(),
    toolRequests: z.array(ToolRequest).optional(),
    reasoningOpaque: optionalString,
    reasoningText: optionalString,
    encryptedContent: optionalString,
    phase: optionalString,
    outputTokens: optionalNumber,
    interactionId: optionalString,
    ...subAgentLink,
  }),
  "assistant.message_delta": () => z.looseObject({ messageId: z.string(), deltaContent: z.string(), ...subAgentLink }),
  "assistant.turn_end": () => z.looseObject({ turnId: z.string(), ...subAgentLink }),
  /** The main agent's loop went idle (before `session.idle`); `aborted` when it was cancelled. */
  "assistant.idle": () => z.looseObject({ aborted: z.boolean().optional() }),
  "assistant.usage": () => z.looseObject({
    model: z.string(),
    inputTokens: optionalNumber,
    outputTokens: optionalNumber,
    cacheReadTokens: optionalNumber,
    cacheWriteTokens: optionalNumber,
    cost: optionalNumber,
    duration: optionalNumber,
    initiator: optionalString,
    apiCallId: optionalString,
    providerCallId: optionalString,
    quotaSnapshots: z.record(z.string(), z.unknown()).optional(),
    reasoningEffort: optionalString,
    copilotUsage: z.unknown().optional(),
    ...subAgentLink,
  }),

  // Tools
  "tool.user_requested": () => z.looseObject({ toolCallId: z.string(), toolName: z.string(), arguments: z.unknown().optional() }),
  "tool.execution_start": () => z.looseObject({
    toolCallId: z.string(),
    toolName: z.string(),
    arguments: z.unknown().optional(),
    mcpServerName: optionalString,
    mcpToolName: optionalString,
    ...subAgentLink,
  }),
  "tool.execution_partial_result": () => z.looseObject({ toolCallId: z.string(), partialOutput: z.string(), ...subAgentLink }),
  "tool.execution_progress": () => z.looseObject({ toolCallId: z.string(), progressMessage: z.string(), ...subAgentLink }),
  "tool.execution_complete": () => z.looseObject({
    toolCallId: z.string(),
    success: z.boolean(),
    model: optionalString,
    interactionId: optionalString,
    isUserRequested: z.boolean().optional(),
    result: ToolExecutionResult.optional(),
    error: z.looseObject({ message: z.string(), code: optionalString }).optional(),
    toolTelemetry: JsonObject.optional(),
    /** Whether the tool's process ran in an OS sandbox (set by `bash` on every call: false when it ran unsandboxed or not at all). */
    sandboxed: z.boolean().optional(),
    ...subAgentLink,
  }),
  "external_tool.requested": () => z.looseObject({
    requestId: z.string(),
    sessionId: z.string(),
    toolCallId: z.string(),
    toolName: z.string(),
    arguments: z.unknown().optional(),
  }),
  "external_tool.completed": () => z.looseObject({ requestId: z.string() }),

  // Permissions and user input
  "permission.requested": () => z.looseObject({ requestId: z.string(), permissionRequest: PermissionRequest }),
  "permission.completed": () => z.looseObject({ requestId: z.string(), result: PermissionResult }),
  "user_input.requested": () => z.looseObject({
    requestId: z.string(),
    question: z.string(),
    choices: z.array(z.string()).optional(),
    allowFreeform: z.boolean().optional(),
    toolCallId: optionalString,
  }),
  "user_input.completed": () => z.looseObject({ requestId: z.string() }),
  "elicitation.requested": () => z.looseObject({
    requestId: z.string(),
    toolCallId: optionalString,
    elicitationSource: optionalString,
    message: z.string(),
    mode: z.enum(["form", "url"]).optional(),
    requestedSchema: z.looseObject({ type: z.literal("object"), properties: JsonObject, required: z.array(z.string()).optional() }).optional(),
  }),
  "elicitation.completed": () => z.looseObject({ requestId: z.string() }),
  // A remote MCP server asked for OAuth: the application (which registered interest) answers with a token.
  "mcp.oauth_required": () => z.looseObject({
    requestId: z.string(),
    serverName: z.string(),
    serverUrl: z.string(),
    reason: z.enum(["initial", "refresh", "upscope", "reauth"]),
    wwwAuthenticateParams: z.looseObject({ resourceMetadataUrl: optionalString, scope: optionalString, error: optionalString }).optional(),
    resourceMetadata: optionalString,
  }),
  "mcp.oauth_completed": () => z.looseObject({ requestId: z.string() }),

  // Hooks
  "hook.start": () => z.looseObject({ hookInvocationId: z.string(), hookType: z.string(), input: z.unknown().optional() }),
  "hook.end": () => z.looseObject({
    hookInvocationId: z.string(),
    hookType: z.string(),
    success: z.boolean(),
    output: z.unknown().optional(),
    error: z.looseObject({ message: z.string(), stack: optionalString }).optional(),
  }),

  // Sub-agents and skills
  "subagent.started": () => z.looseObject({
    toolCallId: z.string(),
    agentName: z.string(),
    agentDisplayName: z.string(),
    agentDescription: z.string(),
  }),
  "subagent.completed": () => z.looseObject({ toolCallId: z.string(), agentName: z.string(), agentDisplayName: z.string() }),
  "subagent.failed": () => z.looseObject({
    toolCallId: z.string(),
    agentName: z.string(),
    agentDisplayName: z.string(),
    error: z.string(),
  }),
  "subagent.selected": () => z.looseObject({
    agentName: z.string(),
    agentDisplayName: z.string(),
    tools: z.array(z.string()).nullable(),
  }),
  "subagent.deselected": () => z.looseObject({}),
  "subagent.configured": () => z.looseObject({ model: z.string(), multiTurn: z.boolean(), reasoningEffort: optionalString }),
  "skill.invoked": () => z.looseObject({
    name: z.string(),
    path: z.string(),
    content: z.string(),
    allowedTools: z.array(z.string()).optional(),
    pluginName: optionalString,
    pluginVersion: optionalString,
  }),

  // Other
  abort: () => z.looseObject({ reason: z.string() }),
  "user.message": () => z.looseObject({
    content: z.string().optional(),
    transformedContent: optionalString,
    attachments: z.array(Attachment).optional(),
    source: optionalString,
    agentMode: optionalString,
    interactionId: optionalString,
  }),
  "system.message": () => z.looseObject({
    content: z.string(),
    role: z.enum(["system", "developer"]),
    name: optionalString,
    metadata: z.looseObject({ promptVersion: optionalString, variables: JsonObject.optional() }).optional(),
  }),
  "system.notification": () => z.looseObject({ content: z.string(), kind: z.unknown().optional() }),
  "command.queued": () => z.looseObject({ requestId: z.string(), command: z.string() }),
  "command.completed": () => z.looseObject({ requestId: z.string() }),
  "command.execute": () => z.looseObject({ requestId: z.string(), command: z.string(), commandName: z.string(), args: z.string() }),
  "auto_mode_switch.requested": () => z.looseObject({ requestId: z.string(), errorCode: optionalString, retryAfterSeconds: optionalNumber }),
  "auto_mode_switch.completed": () => z.looseObject({ requestId: z.string(), response: z.enum(["yes", "yes_always", "no"]) }),
  "exit_plan_mode.requested": () => z.looseObject({
    requestId: z.string(),
    summary: z.string(),
    planContent: z.string(),
    actions: z.array(z.string()),
    recommendedAction: z.string(),
  }),
  "exit_plan_mode.completed": () => z.looseObject({ requestId: z.string() }),
  "session.extensions_loaded": () => z.looseObject({
    extensions: z.array(z.looseObject({ id: z.string(), name: z.string(), source: z.string(), status: z.string() })),
  }),
  "factory.run_updated": () => z.looseObject({ runId: z.string(), revision: z.number() }),
};

/**
 * The `data` schema of every session event type, keyed by `type`; each is built on first read (a
 * runtime that never validates events never builds them).
 */
export const eventDataSchemas = memoisedRecord(eventDataFactories);

/** Every session event type. */
export type SessionEventType = keyof typeof eventDataSchemas;
/** All event type names, in catalogue order. */
export const sessionEventTypes = Object.keys(eventDataSchemas) as SessionEventType[];

/** Event types that are streamed but never persisted (the event reference's "ephemeral" events). */
export const ephemeralEventTypes: ReadonlySet<SessionEventType> = new Set<SessionEventType>([
  "session.idle",
  "assistant.idle",
  "session.info",
  "session.title_changed",
  "session.usage_info",
  "session.tools_updated",
  "session.background_tasks_changed",
  "session.todos_changed",
  "session.mcp_servers_loaded",
  "session.mcp_server_status_changed",
  "session.skills_loaded",
  "pending_messages.modified",
  "capabilities.changed",
  "commands.changed",
  "assistant.intent",
  "assistant.reasoning_delta",
  "assistant.streaming_delta",
  "assistant.message_delta",
  "assistant.usage",
  "tool.execution_partial_result",
  "tool.execution_progress",
  "external_tool.requested",
  "external_tool.completed",
  "permission.requested",
  "permission.completed",
  "user_input.requested",
  "user_input.completed",
  "elicitation.requested",
  "elicitation.completed",
  "mcp.oauth_required",
  "mcp.oauth_completed",
  "command.queued",
  "command.completed",
  "command.execute",
  "auto_mode_switch.requested",
  "auto_mode_switch.completed",
  "exit_plan_mode.requested",
  "exit_plan_mode.completed",
  "session.extensions_loaded",
  "factory.run_updated",
]);

/** The data payload of event type `T`. */
export type SessionEventData<T extends SessionEventType> = z.infer<(typeof eventDataSchemas)[T]>;

/** The envelope fields shared by every event. */
export const EventEnvelope = z.object({
  id: z.string(),
  timestamp: z.string(),
  parentId: z.string().nullable(),
  ephemeral: z.boolean().optional(),
  /** The sub-agent run the event belongs to (its task call's id), for 1.0.x-generation clients; absent for the main agent. */
  agentId: z.string().optional(),
});

/** A session event of type `T`: envelope plus typed data. */
export type SessionEventOf<T extends SessionEventType> = z.infer<typeof EventEnvelope> & {
  type: T;
  data: SessionEventData<T>;
};

/** Any session event: a discriminated union on `type`. */
export type SessionEvent = { [T in SessionEventType]: SessionEventOf<T> }[SessionEventType];

/** Runtime schema for {@link SessionEvent}. */
export const SessionEventSchema = z.lazy(() =>
  z.discriminatedUnion(
    "type",
    sessionEventTypes.map((type) => EventEnvelope.extend({ type: z.literal(type), data: eventDataSchemas[type] })) as unknown as [
      z.ZodObject,
      ...z.ZodObject[],
    ],
  ),
);
