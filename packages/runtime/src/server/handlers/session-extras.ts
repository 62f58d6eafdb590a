import type { PermissionRequest } from "@tandem/protocol";
import {
  SessionCommandsEnqueue,
  SessionCompletionsGetTriggerCharacters,
  SessionCompletionsRequest,
  SessionPermissionsGetAllowAll,
  SessionPermissionsPendingRequests,
  SessionPermissionsResetSessionApprovals,
  SessionPermissionsSetAllowAll,
  SessionPlanReadSqlTodos,
  SessionPlanReadSqlTodosWithDependencies,
  SessionPluginsReload,
  SessionProviderAdd,
  SessionScheduleAdd,
  SessionScheduleList,
  SessionScheduleStop,
  SessionToolsGetCurrentMetadata,
  SessionToolsInitializeAndValidate,
  SessionToolsUpdateSubagentSettings,
  SessionUiEphemeralQuery,
  SessionVisibilityGet,
  SessionVisibilitySet,
  SessionWorkspacesSaveLargePaste,
} from "@tandem/protocol/methods/session-extras";
import { ErrorCodes } from "@tandem/protocol/errors";
import type { SubagentSettings } from "../../agents/session-agents.js";
import { TandemError } from "../../errors.js";
import type { RuntimeServices } from "../runtime-services.js";
import { parseInterval, SessionSchedule } from "../../schedule/session-schedule.js";
import { askOnce } from "../../session/ephemeral-query.js";
import { promptTooLong } from "../../session/user-message.js";
import { SessionScoped } from "../../session/session-scoped.js";
import type { Session } from "../../session/session.js";
import type { MethodTable } from "../method-table.js";


/**
 * More session-scoped methods of the official SDK 1.0.x: allow-all and pending permissions,
 * completions (the application provides none to Tandem), visibility (a local session is never
 * shared), tool metadata and sub-agent settings, plugins (Tandem has no plugin marketplace),
 * providers added at runtime, the SQL todo list, scheduled prompts, event-log interest, commands
 * queued for the application, large pastes and one-off questions.
 */
export function registerSessionExtrasMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;
  const schedules = new SessionScoped<Session, SessionSchedule>(
    (session) => {
      const schedule: SessionSchedule = new SessionSchedule({
        send: async (prompt) => {
          // A session deleted or taken over meanwhile emits no session.shutdown here: its prompts stop now.
          if (sessions.find(session.sessionId) !== session) return schedule.dispose();
          await session.send({ sessionId: session.sessionId, prompt });
        },
        warn: (message, error) => session.scope.logger.warn(message, error),
      });
      return schedule;
    },
    (schedule) => schedule.dispose(),
  );

  table.on(SessionPermissionsGetAllowAll, ({ sessionId }) => {
    const enabled = sessions.get(sessionId).permissions.approvals.mode === "allow-all";
    return { enabled, mode: enabled ? ("on" as const) : ("off" as const) };
  });
  table.on(SessionPermissionsSetAllowAll, ({ sessionId, enabled, mode }) => {
    if (mode === "auto") throw new TandemError(ErrorCodes.NotAvailable, "Allow-all mode \"auto\" (a model deciding which requests to approve) is not available in Tandem: use \"on\" or \"off\".", { mode });
    const wanted = mode !== undefined ? mode === "on" : enabled;
    if (wanted === undefined) throw new TandemError(ErrorCodes.InvalidParams, "session.permissions.setAllowAll needs `enabled` or `mode`", {});
    const session = sessions.get(sessionId);
    session.permissions.setApproveAll(wanted);
    return { success: true, enabled: wanted, mode: wanted ? ("on" as const) : ("off" as const) };
  });
  table.on(SessionPermissionsResetSessionApprovals, ({ sessionId }) => {
    sessions.get(sessionId).permissions.approvals.forgetRemembered();
    return { success: true };
  });
  table.on(SessionPermissionsPendingRequests, ({ sessionId }) => ({
    // Only permission requests are listed, and each was opened with its request as its detail.
    items: sessions.get(sessionId).scope.pending.listOpen("permission").map(({ requestId, detail }) => ({ requestId, request: detail as PermissionRequest })),
  }));

  // Completions come from the application's own sources (files, symbols); Tandem has none to offer.
  table.on(SessionCompletionsGetTriggerCharacters, ({ sessionId }) => {
    sessions.get(sessionId);
    return { triggerCharacters: [] };
  });
  table.on(SessionCompletionsRequest, ({ sessionId }) => {
    sessions.get(sessionId);
    return { items: [] };
  });

  // Sharing goes through a hosted service; a local session is never synced there.
  table.on(SessionVisibilityGet, ({ sessionId }) => {
    sessions.get(sessionId);
    return { synced: false };
  });
  table.on(SessionVisibilitySet, ({ sessionId }) => {
    sessions.get(sessionId);
    return { synced: false };
  });

  table.on(SessionToolsInitializeAndValidate, ({ sessionId }) => {
    sessions.get(sessionId).loop.toolSpecs();
    return {};
  });
  table.on(SessionToolsGetCurrentMetadata, ({ sessionId }) => {
    const session = sessions.get(sessionId);
    const mcpServers = new Map(session.toolset.mcp.tools().map((tool) => [tool.name, tool.startData?.mcpServerName]));
    return {
      tools: session.loop.toolSpecs().map((tool) => {
        const serverName = mcpServers.get(tool.name);
        // The session's own MCP tools name their server.
        return { name: tool.name, description: tool.description, input_schema: tool.parameters, ...(typeof serverName === "string" ? { mcpServerName: serverName } : {}) };
      }),
    };
  });
  table.on(SessionToolsUpdateSubagentSettings, ({ sessionId, subagents }) => {
    sessions.get(sessionId).agents.setSubagentSettings(subagents === null || subagents === undefined ? null : subagentSettingsOf(subagents));
    return {};
  });

  table.on(SessionPluginsReload, async ({ sessionId, reloadMcp, reloadCustomAgents }) => {
    const session = sessions.get(sessionId);
    if (reloadCustomAgents !== false) session.agents.reload(session.scope.config.customAgents);
    // A session without MCP servers has none to reload (session.mcp.reload says so; here nothing is asked of it).
    if (reloadMcp !== false && session.toolset.mcp.hasServers) await session.toolset.mcp.reload();
    return null;
  });

  table.on(SessionProviderAdd, ({ sessionId, providers, models }) => ({
    models: runtime.addedProviders.of(sessions.get(sessionId)).add(providers ?? [], models ?? []),
  }));

  table.on(SessionPlanReadSqlTodos, async ({ sessionId }) => ({ rows: (await sessions.get(sessionId).toolset.services.database.readTodos()).rows }));
  table.on(SessionPlanReadSqlTodosWithDependencies, ({ sessionId }) => sessions.get(sessionId).toolset.services.database.readTodos());

  table.on(SessionScheduleList, ({ sessionId }) => ({ entries: schedules.peek(sessions.get(sessionId))?.list() ?? [] }));
  table.on(SessionScheduleStop, ({ sessionId, id }) => {
    const entry = schedules.peek(sessions.get(sessionId))?.stop(id);
    return entry ? { entry } : {};
  });
  table.on(SessionScheduleAdd, ({ sessionId, interval, prompt, recurring, displayPrompt }) => {
    const intervalMs = parseInterval(interval);
    const entry = schedules.of(sessions.get(sessionId)).add({ intervalMs, prompt, recurring: recurring === true, ...(displayPrompt !== undefined ? { displayPrompt } : {}) });
    return { entry };
  });

  table.on(SessionCommandsEnqueue, ({ sessionId, command }) => {
    const session = sessions.get(sessionId);
    runtime.commands.enqueue(session, command, session.scope.eventInterests.has("command.queued"));
    return { queued: true };
  });

  table.on(SessionWorkspacesSaveLargePaste, async ({ sessionId, content }) => ({ saved: await sessions.get(sessionId).workspace.savePaste(content) }));
  table.on(SessionUiEphemeralQuery, async ({ sessionId, question }) => {
    const tooLong = promptTooLong(question);
    if (tooLong) throw tooLong;
    return { answer: await askOnce(sessions.get(sessionId).loop, question) };
  });
}

/** The sub-agent settings by agent type, from either 1.0.x shape (`{agents: {…}}` or the map itself). */
function subagentSettingsOf(given: Record<string, unknown>): Record<string, SubagentSettings> {
  const agents = typeof given.agents === "object" && given.agents !== null ? (given.agents as Record<string, unknown>) : given;
  const settings: Record<string, SubagentSettings> = {};
  for (const [agentType, value] of Object.entries(agents)) {
    if (typeof value !== "object" || value === null) continue;
    const entry = value as Record<string, unknown>;
    settings[agentType] = {
      ...(typeof entry.model === "string" ? { model: entry.model } : {}),
      ...(typeof entry.effortLevel === "string" ? { effortLevel: entry.effortLevel } : {}),
      ...(typeof entry.contextTier === "string" ? { contextTier: entry.contextTier } : {}),
    };
  }
  return settings;
}
