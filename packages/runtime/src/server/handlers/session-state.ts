import { SessionGitHubAuthGetStatus } from "@tandem/protocol/methods/session-auth";
import {
  SessionGitHubAuthSetCredentials,
  SessionInstructionsGetSources,
  SessionLspInitialize,
  SessionMetadataActivity,
  SessionMetadataContextInfo,
  SessionMetadataGetContextAttribution,
  SessionMetadataGetContextHeaviestMessages,
  SessionMetadataIsProcessing,
  SessionMetadataRecomputeContextTokens,
  SessionMetadataRecordContextChange,
  SessionMetadataSetWorkingDirectory,
  SessionMetadataSnapshot,
  SessionModelList,
  SessionModelSetReasoningEffort,
  SessionNameSetAuto,
  SessionShutdown,
  SessionTelemetryGetEngagementId,
  SessionTelemetrySetFeatureOverrides,
  SessionUsageGetMetrics,
} from "@tandem/protocol/methods/session-state";
import { ContextReport } from "../../compaction/context-report.js";
import { readInstructionFiles } from "../../loop/custom-instructions.js";
import type { RuntimeServices } from "../runtime-services.js";
import { SessionScoped } from "../../session/session-scoped.js";
import type { Session } from "../../session/session.js";
import { moveWorkingDirectory, recordContextChange } from "../../session/working-directory.js";
import type { MethodTable } from "../method-table.js";
import { sessionAuthStatus } from "./session-auth.js";

/** Credentials handed to a session, as `session.gitHubAuth.getStatus` reports them (no secrets kept). */
interface SessionIdentity {
  authType: string;
  host: string;
  login?: string;
  copilotPlan?: string;
}

/** The longest automatic title (as `session.name.set` allows). */
const maxNameLength = 100;

/**
 * Session-scoped state of the official SDK 1.0.x: shutdown, metadata and the working directory,
 * context measurements, reasoning effort, the model list, automatic names, usage, instruction
 * sources, the session's identity, and the host services Tandem has no counterpart for (LSP,
 * telemetry feature overrides: accepted, nothing to do) or cannot offer (MCP OAuth: not available).
 */
export function registerSessionStateMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;
  const identities = new SessionScoped<Session, { identity?: SessionIdentity }>(() => ({}));

  table.on(SessionShutdown, async ({ sessionId, type, reason }) => {
    sessions.get(sessionId);
    await sessions.destroy(sessionId, { type: type ?? "routine", ...(type === "error" && reason !== undefined ? { reason } : {}) });
    return null;
  });

  table.on(SessionMetadataSnapshot, ({ sessionId }) => {
    const session = sessions.get(sessionId);
    const now = new Date().toISOString();
    const name = session.title.name ?? session.title.autoName;
    return {
      sessionId,
      startTime: session.scope.startTime.toISOString(),
      modifiedTime: now,
      isRemote: false,
      alreadyInUse: false,
      workspacePath: session.scope.workspacePath,
      ...(session.title.summary !== undefined ? { summary: session.title.summary } : {}),
      workingDirectory: session.scope.workingDirectory,
      currentMode: session.scope.mode,
      selectedModel: session.scope.model,
      sessionLimits: null,
      workspace: {
        id: sessionId,
        cwd: session.scope.workingDirectory,
        ...(name !== undefined ? { name, user_named: session.title.name !== undefined } : {}),
        created_at: session.scope.startTime.toISOString(),
        updated_at: now,
      },
    };
  });
  table.on(SessionMetadataIsProcessing, ({ sessionId }) => ({ processing: sessions.get(sessionId).turns.busy }));
  table.on(SessionMetadataActivity, ({ sessionId }) => {
    const session = sessions.get(sessionId);
    return { hasActiveWork: session.turns.busy || session.scope.pending.size > 0, abortable: session.turns.busy };
  });

  const report = (session: Session) => new ContextReport(
    {
      model: session.scope.model,
      messages: session.scope.messages,
      tokenLimit: session.context.tokenLimit,
      compactionSettings: session.compaction.settings(),
      systemPrompt: () => session.loop.systemPrompt(),
      toolSpecs: () => session.loop.toolSpecs(),
    },
    new Set(session.toolset.mcp.tools().map((tool) => tool.name)),
  );
  table.on(SessionMetadataContextInfo, async ({ sessionId, promptTokenLimit, outputTokenLimit, selectedModel }) => ({
    contextInfo: await report(sessions.get(sessionId)).info({ promptTokenLimit, outputTokenLimit, ...(selectedModel !== undefined ? { selectedModel } : {}) }),
  }));
  table.on(SessionMetadataGetContextAttribution, async ({ sessionId }) => {
    const session = sessions.get(sessionId);
    return { contextAttribution: await report(session).attribution(await session.compaction.compactionCount()) };
  });
  table.on(SessionMetadataGetContextHeaviestMessages, ({ sessionId, limit }) => report(sessions.get(sessionId)).heaviestMessages(limit ?? 10));
  table.on(SessionMetadataRecomputeContextTokens, async ({ sessionId }) => {
    const { systemTokens, conversationTokens } = await report(sessions.get(sessionId)).breakdown();
    return { totalTokens: systemTokens + conversationTokens, systemTokenCount: systemTokens, messagesTokenCount: conversationTokens };
  });
  table.on(SessionMetadataRecordContextChange, ({ sessionId, context }) => {
    recordContextChange(sessions.get(sessionId).scope, context);
    return {};
  });
  table.on(SessionMetadataSetWorkingDirectory, async ({ sessionId, workingDirectory }) => {
    const session = sessions.get(sessionId);
    return { workingDirectory: await moveWorkingDirectory(session.scope, workingDirectory, () => sessions.writeWorkspaceNow(session), (folder) => session.toolset.followWorkingDirectory(folder)) };
  });

  table.on(SessionModelSetReasoningEffort, ({ sessionId, reasoningEffort }) => {
    const session = sessions.get(sessionId);
    session.reconfigure({ ...session.scope.config, reasoningEffort }, session.scope.model);
    return { reasoningEffort };
  });
  table.on(SessionModelList, async ({ sessionId }) => {
    const session = sessions.get(sessionId);
    const added = runtime.addedProviders.peek(session)?.list() ?? [];
    // A session on an added model lists the runtime's models too: it may switch back to them.
    const ownProvider = runtime.addedProviders.peek(session)?.has(session.scope.model) ? runtime.addedProviders.peek(session)?.ownProvider : session.scope.config.provider;
    const own = ownProvider ? await session.models.client().listModels() : await runtime.listModels();
    return { list: [...own, ...added] };
  });

  table.on(SessionNameSetAuto, ({ sessionId, summary }) => {
    // A name the user gave wins over generated ones.
    return { applied: sessions.get(sessionId).title.setGenerated(summary.trim().slice(0, maxNameLength)) };
  });

  table.on(SessionUsageGetMetrics, ({ sessionId }) => {
    const session = sessions.get(sessionId);
    const userRequests = session.scope.messages.filter((message) => message.role === "user").length;
    return session.metrics.usageMetrics(session.scope.model, userRequests);
  });

  table.on(SessionInstructionsGetSources, async ({ sessionId }) => {
    const session = sessions.get(sessionId);
    const { instructionDirectories, skipCustomInstructions } = session.scope.config;
    const files = await readInstructionFiles({ workingDirectory: session.scope.workingDirectory, instructionDirectories, skipCustomInstructions });
    return {
      sources: files.map((file) => ({
        id: file.path,
        label: file.label,
        sourcePath: file.path,
        content: file.text,
        type: file.fromWorkingDirectory ? ("repo" as const) : ("child-instructions" as const),
        location: file.fromWorkingDirectory ? ("working-directory" as const) : ("user" as const),
      })),
    };
  });

  table.on(SessionGitHubAuthSetCredentials, ({ sessionId, credentials }) => {
    const session = sessions.get(sessionId);
    const state = identities.of(session);
    if (!credentials) return { success: true };
    const login = credentials.login ?? credentials.copilotUser?.login;
    const copilotPlan = credentials.copilotUser?.copilot_plan;
    state.identity = { authType: credentials.type, host: credentials.host, ...(login !== undefined ? { login } : {}), ...(copilotPlan !== undefined ? { copilotPlan } : {}) };
    return { success: true, copilotUserResolved: credentials.copilotUser !== undefined };
  });
  table.on(SessionGitHubAuthGetStatus, ({ sessionId }) => {
    const session = sessions.get(sessionId);
    const identity = identities.peek(session)?.identity;
    if (!identity) return sessionAuthStatus(runtime, session);
    return { isAuthenticated: true, ...identity, statusMessage: `Acting as ${identity.login ?? identity.authType} on ${identity.host}` };
  });

  table.on(SessionLspInitialize, ({ sessionId }) => {
    sessions.get(sessionId);
    return null;
  });
  table.on(SessionTelemetrySetFeatureOverrides, ({ sessionId, features }) => {
    sessions.get(sessionId).scope.logger.info(`telemetry feature overrides left unused (Tandem's telemetry has no feature flags): ${Object.keys(features).join(", ")}`);
    return null;
  });
  // Tandem's telemetry (OpenTelemetry, when enabled) ties a session's spans together by its id.
  table.on(SessionTelemetryGetEngagementId, ({ sessionId }) => ({ engagementId: sessions.get(sessionId).sessionId }));

}
