import type { TaskAgentInfo } from "@tandem/protocol";
import {
  SessionTasksCancel,
  SessionTasksGetCurrentPromotable,
  SessionTasksGetProgress,
  SessionTasksList,
  SessionTasksPromoteCurrentToBackground,
  SessionTasksPromoteToBackground,
  SessionTasksRefresh,
  SessionTasksRemove,
  SessionTasksSendMessage,
  SessionTasksStartAgent,
  SessionTasksWaitForPending,
} from "@tandem/protocol/methods/tasks";
import type { BackgroundAgent } from "../../agents/background.js";
import { invalidParams } from "../../errors.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/** A background agent as a task of the list. */
function taskInfo(agent: BackgroundAgent): TaskAgentInfo {
  const status = agent.status === "queued" ? "running" : agent.status;
  return {
    type: "agent",
    id: agent.id,
    toolCallId: agent.toolCallId ?? "",
    description: agent.description ?? agent.name,
    status,
    startedAt: new Date(agent.startedAt).toISOString(),
    ...(agent.finishedAt !== undefined ? { completedAt: new Date(agent.finishedAt).toISOString() } : {}),
    ...(agent.error !== undefined ? { error: agent.error } : {}),
    agentType: agent.agentType,
    prompt: agent.prompt ?? "",
    ...(agent.result !== undefined ? { result: agent.result } : {}),
    ...(agent.model !== undefined ? { model: agent.model } : {}),
    executionMode: "background",
    canPromoteToBackground: false,
  };
}

/**
 * `session.tasks.*`: the session's background agents as tasks. Tandem's synchronous sub-agent
 * calls cannot move to the background, so nothing is ever promotable; background agents take no
 * messages once started.
 */
export function registerTaskMethods(table: MethodTable, runtime: RuntimeServices): void {
  const backgroundOf = (sessionId: string) => runtime.sessions.get(sessionId).agents.background;

  table.on(SessionTasksStartAgent, async ({ sessionId, agentType, prompt, name, description, model }) => {
    const agents = runtime.sessions.get(sessionId).agents;
    if (model !== undefined) {
      const models = await runtime.listModels().catch(() => undefined);
      if (models && models.length > 0 && !models.some((known) => known.id === model)) {
        throw invalidParams(`Unknown model "${model}". Available models: ${models.map((known) => known.id).join(", ")}.`, { model });
      }
    }
    const started = agents.startBackground({ agentType, prompt, name, ...(description !== undefined ? { description } : {}), ...(model !== undefined ? { model } : {}) });
    return { agentId: started.id };
  });
  table.on(SessionTasksList, ({ sessionId }) => ({ tasks: backgroundOf(sessionId).list(true).map(taskInfo) }));
  table.on(SessionTasksRefresh, ({ sessionId }) => {
    backgroundOf(sessionId);
    return {};
  });
  table.on(SessionTasksWaitForPending, async ({ sessionId }) => {
    await backgroundOf(sessionId).settled();
    return {};
  });
  table.on(SessionTasksGetProgress, ({ sessionId, id }) => {
    const agent = backgroundOf(sessionId).get(id);
    if (!agent) return { progress: null };
    return { progress: { type: "agent" as const, id: agent.id, status: taskInfo(agent).status, ...(agent.result !== undefined ? { latestResponse: agent.result } : {}) } };
  });
  table.on(SessionTasksGetCurrentPromotable, ({ sessionId }) => {
    backgroundOf(sessionId);
    return {};
  });
  table.on(SessionTasksPromoteToBackground, ({ sessionId }) => {
    backgroundOf(sessionId);
    return { promoted: false };
  });
  table.on(SessionTasksPromoteCurrentToBackground, ({ sessionId }) => {
    backgroundOf(sessionId);
    return {};
  });
  table.on(SessionTasksCancel, ({ sessionId, id }) => ({ cancelled: backgroundOf(sessionId).cancel(id) }));
  table.on(SessionTasksRemove, ({ sessionId, id }) => ({ removed: backgroundOf(sessionId).remove(id) }));
  table.on(SessionTasksSendMessage, ({ sessionId, id }) => {
    const agent = backgroundOf(sessionId).get(id);
    if (!agent) return { sent: false, error: `No task with id ${id}.` };
    return { sent: false, error: `Task ${id} does not take messages: Tandem's background agents run to completion on the prompt they were started with.` };
  });
}
