/**
 * Background tasks of a session (the official SDK 1.0.x's `session.tasks.*`): the background
 * agents the session runs. A task the session does not track answers `false` / `null`, never an
 * error; starting an agent of an unknown type or with an unknown model is a typed error.
 */
import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

const sessionScoped = { sessionId: SessionId };
const byTaskId = { ...sessionScoped, id: z.string() };

/** One background agent as `session.tasks.list` describes it (1.0.x `TaskAgentInfo`). */
export const TaskAgentInfo = z.lazy(() => z.looseObject({
  type: z.literal("agent"),
  id: z.string(),
  toolCallId: z.string(),
  description: z.string(),
  status: z.enum(["running", "idle", "completed", "failed", "cancelled"]),
  startedAt: z.string(),
  completedAt: z.string().optional(),
  error: z.string().optional(),
  agentType: z.string(),
  prompt: z.string(),
  result: z.string().optional(),
  model: z.string().optional(),
  executionMode: z.enum(["sync", "background"]).optional(),
  canPromoteToBackground: z.boolean().optional(),
}));
export type TaskAgentInfo = z.infer<typeof TaskAgentInfo>;

/** `session.tasks.startAgent`: starts a background agent; its id comes back at once. */
export const SessionTasksStartAgent = defineRequest(
  "session.tasks.startAgent",
  () => z.looseObject({ ...sessionScoped, agentType: z.string().min(1), prompt: z.string().min(1), name: z.string().min(1), description: z.string().optional(), model: z.string().optional() }),
  () => z.looseObject({ agentId: z.string() }),
);
/** `session.tasks.list`. */
export const SessionTasksList = defineRequest("session.tasks.list", () => z.looseObject(sessionScoped), () => z.looseObject({ tasks: z.array(TaskAgentInfo) }));
/** `session.tasks.refresh`: re-reads the state of detached work (Tandem tracks its tasks live: nothing to re-read). */
export const SessionTasksRefresh = defineRequest("session.tasks.refresh", () => z.looseObject(sessionScoped), () => z.looseObject({}));
/** `session.tasks.waitForPending`: resolves once every running background agent finished. */
export const SessionTasksWaitForPending = defineRequest("session.tasks.waitForPending", () => z.looseObject(sessionScoped), () => z.looseObject({}));
/** `session.tasks.getProgress`: `null` for a task the session does not track. */
export const SessionTasksGetProgress = defineRequest(
  "session.tasks.getProgress",
  () => z.looseObject(byTaskId),
  () => z.looseObject({ progress: z.looseObject({ type: z.literal("agent"), id: z.string(), status: z.string(), latestResponse: z.string().optional() }).nullable() }),
);
/** `session.tasks.getCurrentPromotable`: a task the caller waits on that could move to the background (Tandem's sub-agent calls cannot: none). */
export const SessionTasksGetCurrentPromotable = defineRequest("session.tasks.getCurrentPromotable", () => z.looseObject(sessionScoped), () => z.looseObject({ task: TaskAgentInfo.optional() }));
/** `session.tasks.promoteToBackground`: `promoted: false` when the task is unknown or not waited on. */
export const SessionTasksPromoteToBackground = defineRequest("session.tasks.promoteToBackground", () => z.looseObject(byTaskId), () => z.looseObject({ promoted: z.boolean() }));
/** `session.tasks.promoteCurrentToBackground`: the task promoted, omitted when none could be. */
export const SessionTasksPromoteCurrentToBackground = defineRequest("session.tasks.promoteCurrentToBackground", () => z.looseObject(sessionScoped), () => z.looseObject({ task: TaskAgentInfo.optional() }));
/** `session.tasks.cancel`: `cancelled: false` when the task is unknown or already finished. */
export const SessionTasksCancel = defineRequest("session.tasks.cancel", () => z.looseObject(byTaskId), () => z.looseObject({ cancelled: z.boolean() }));
/** `session.tasks.remove`: forgets a finished task; `removed: false` when it is unknown or still running. */
export const SessionTasksRemove = defineRequest("session.tasks.remove", () => z.looseObject(byTaskId), () => z.looseObject({ removed: z.boolean() }));
/** `session.tasks.sendMessage`: Tandem's background agents take no messages once started; `error` says why. */
export const SessionTasksSendMessage = defineRequest(
  "session.tasks.sendMessage",
  () => z.looseObject({ ...byTaskId, message: z.string(), fromAgentId: z.string().optional() }),
  () => z.looseObject({ sent: z.boolean(), error: z.string().optional() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const taskRequests = [
  SessionTasksStartAgent,
  SessionTasksList,
  SessionTasksRefresh,
  SessionTasksWaitForPending,
  SessionTasksGetProgress,
  SessionTasksGetCurrentPromotable,
  SessionTasksPromoteToBackground,
  SessionTasksPromoteCurrentToBackground,
  SessionTasksCancel,
  SessionTasksRemove,
  SessionTasksSendMessage,
] as const;
