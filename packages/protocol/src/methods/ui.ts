/**
 * Requests to the user through a client's UI (the official SDK 1.0.x's `session.ui.*` beyond the
 * elicitation and plan-exit answers): a form the application asks for itself, the answers to the
 * kinds of pending requests Tandem never opens (each answers `success: false` with why), and the
 * in-process auto-mode-switch handler registrations.
 */
import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

const sessionScoped = { sessionId: SessionId };
/** The answer to a `session.ui.handlePending*` request: `success: false` when no such request waits. */
const HandlePendingResult = z.lazy(() => z.looseObject({ success: z.boolean(), error: z.string().optional() }));

/** The form of `session.ui.elicitation` (a JSON Schema object of flat fields). */
export const ElicitationSchema = z.lazy(() => z.looseObject({
  type: z.literal("object"),
  properties: z.record(z.string(), z.unknown()),
  required: z.array(z.string()).optional(),
}));

/**
 * `session.ui.elicitation`: asks the user to fill in a form through a connected client that answers
 * elicitations (`elicitation.requested`, answered with `session.ui.handlePendingElicitation`).
 */
export const SessionUiElicitation = defineRequest(
  "session.ui.elicitation",
  () => z.looseObject({ ...sessionScoped, message: z.string(), requestedSchema: ElicitationSchema }),
  () => z.looseObject({ action: z.enum(["accept", "decline", "cancel"]), content: z.record(z.string(), z.unknown()).optional() }),
);
/** `session.ui.handlePendingUserInput`: answers a `user_input.requested` by its request id. */
export const SessionUiHandlePendingUserInput = defineRequest(
  "session.ui.handlePendingUserInput",
  () => z.looseObject({ ...sessionScoped, requestId: z.string(), response: z.looseObject({ answer: z.string(), wasFreeform: z.boolean().optional() }) }),
  HandlePendingResult,
);
/** `session.ui.handlePendingSampling`: answers a `sampling.requested` (Tandem opens none). */
export const SessionUiHandlePendingSampling = defineRequest(
  "session.ui.handlePendingSampling",
  () => z.looseObject({ ...sessionScoped, requestId: z.string(), response: z.unknown().optional() }),
  HandlePendingResult,
);
/** `session.ui.handlePendingAutoModeSwitch`: answers an `auto_mode_switch.requested` (`yes`, `yes_always` or `no`). */
export const SessionUiHandlePendingAutoModeSwitch = defineRequest(
  "session.ui.handlePendingAutoModeSwitch",
  () => z.looseObject({ ...sessionScoped, requestId: z.string(), response: z.enum(["yes", "yes_always", "no"]) }),
  HandlePendingResult,
);
/** `session.ui.handlePendingSessionLimitsExhausted`: answers a `session_limits_exhausted.requested` (Tandem opens none). */
export const SessionUiHandlePendingSessionLimitsExhausted = defineRequest(
  "session.ui.handlePendingSessionLimitsExhausted",
  () => z.looseObject({ ...sessionScoped, requestId: z.string(), response: z.unknown() }),
  HandlePendingResult,
);
/** `session.mcp.headers.handlePendingHeadersRefreshRequest`: answers an MCP headers refresh (Tandem opens none). */
export const SessionMcpHeadersHandlePendingHeadersRefreshRequest = defineRequest(
  "session.mcp.headers.handlePendingHeadersRefreshRequest",
  () => z.looseObject({ ...sessionScoped, requestId: z.string(), result: z.unknown() }),
  HandlePendingResult,
);
/**
 * `session.ui.registerDirectAutoModeSwitchHandler`: the caller answers auto-mode switches in its
 * own process; the handle undoes it.
 */
export const SessionUiRegisterDirectAutoModeSwitchHandler = defineRequest(
  "session.ui.registerDirectAutoModeSwitchHandler",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ handle: z.string() }),
);
/** `session.ui.unregisterDirectAutoModeSwitchHandler`: `unregistered: false` for a handle that is not active. */
export const SessionUiUnregisterDirectAutoModeSwitchHandler = defineRequest(
  "session.ui.unregisterDirectAutoModeSwitchHandler",
  () => z.looseObject({ ...sessionScoped, handle: z.string() }),
  () => z.looseObject({ unregistered: z.boolean() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const uiRequests = [
  SessionUiElicitation,
  SessionUiHandlePendingUserInput,
  SessionUiHandlePendingSampling,
  SessionUiHandlePendingAutoModeSwitch,
  SessionUiHandlePendingSessionLimitsExhausted,
  SessionMcpHeadersHandlePendingHeadersRefreshRequest,
  SessionUiRegisterDirectAutoModeSwitchHandler,
  SessionUiUnregisterDirectAutoModeSwitchHandler,
] as const;
