/**
 * Methods and result shapes of the current official SDK (1.0.x) that the 0.2.0 protocol names
 * differently or not at all: `session.detach` (what 1.0's `disconnect()` sends), `runtime.shutdown`
 * (what its `stop()` sends to a runtime it spawned), and the renamed namespaces
 * (`session.workspaces.*` for 0.2.0's `session.workspace.*`, `session.history.compact` for
 * `session.compaction.compact`). Also the result shapes a current client expects where 0.2.0 and
 * 1.0 disagree (a client that opened with `connect` is a current one).
 */
import { z } from "zod";
import { AgentMode, SessionId, SessionMetadata } from "../common.js";
import { defineRequest } from "../method.js";

const sessionScoped = { sessionId: SessionId };
const Empty = z.looseObject({});

/** `ping`'s result for a current client: the time as an ISO 8601 string (0.2.0: epoch ms). */
export const PingResultCurrent = z.object({ message: z.string(), timestamp: z.string(), protocolVersion: z.number() });
/** `session.mode.get`'s result for a current client: the bare mode (0.2.0: `{ mode }`). */
export const SessionModeGetResultCurrent = AgentMode;
/** `session.mode.set`'s result for a current client (0.2.0: `{ mode }`). */
export const SessionModeSetResultCurrent = z.looseObject({
  status: z.string(),
  modelChanged: z.boolean(),
  modeApplied: z.boolean().optional(),
});
/** `session.skills.reload`'s result for a current client (0.2.0: `{}`). */
export const SessionSkillsReloadResultCurrent = z.looseObject({ warnings: z.array(z.string()), errors: z.array(z.string()) });

/**
 * `session.detach`: this client leaves the session (its handlers with it). The session lives on for
 * the other clients attached to it; with none left, its memory is released (disk is kept).
 */
export const SessionDetach = defineRequest(
  "session.detach",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ success: z.boolean(), error: z.string().optional() }),
);
/** `runtime.shutdown`: shut every session down (their events written) and exit. */
export const RuntimeShutdown = defineRequest("runtime.shutdown", () => Empty.optional(), () => z.null());

/** `session.getMetadata`: one session's `session.list` entry (`{}` when it has none: unknown, or no message yet). */
export const SessionGetMetadata = defineRequest(
  "session.getMetadata",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ session: SessionMetadata.optional() }),
);

/** `session.history.compact`: the official SDK 1.0's name for `session.compaction.compact`. */
export const SessionHistoryCompact = defineRequest(
  "session.history.compact",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ success: z.boolean(), tokensRemoved: z.number(), messagesRemoved: z.number() }),
);

/**
 * `session.ui.handlePendingExitPlanMode`: the answer to a pending `exit_plan_mode.requested`
 * (when no client registered an `exitPlanMode.request` handler).
 */
export const SessionUiHandlePendingExitPlanMode = defineRequest(
  "session.ui.handlePendingExitPlanMode",
  () => z.looseObject({
    ...sessionScoped,
    requestId: z.string(),
    response: z.looseObject({ approved: z.boolean(), selectedAction: z.string().optional(), feedback: z.string().optional() }),
  }),
  () => z.looseObject({ success: z.boolean() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const currentClientRequests = [
  SessionDetach,
  RuntimeShutdown,
  SessionGetMetadata,
  SessionHistoryCompact,
  SessionUiHandlePendingExitPlanMode,
] as const;
