import {
  SessionMcpHeadersHandlePendingHeadersRefreshRequest,
  SessionUiElicitation,
  SessionUiHandlePendingAutoModeSwitch,
  SessionUiHandlePendingSampling,
  SessionUiHandlePendingSessionLimitsExhausted,
  SessionUiHandlePendingUserInput,
  SessionUiRegisterDirectAutoModeSwitchHandler,
  SessionUiUnregisterDirectAutoModeSwitchHandler,
} from "@tandem/protocol/methods/ui";
import { ErrorCodes, TandemError } from "../../errors.js";
import type { RuntimeServices } from "../runtime-services.js";
import { requestElicitation } from "../../session/elicitation.js";
import type { MethodTable } from "../method-table.js";

/** The answer to a request for a kind of pending request this session has none of under `requestId`. */
const noPending = (what: string, requestId: string) => ({ success: false, error: `No pending ${what} with requestId ${requestId}` });

/**
 * `session.ui.*` beyond the elicitation and plan-exit answers: forms the application asks for,
 * answers to pending requests by id, and in-process auto-mode-switch handler registrations.
 */
export function registerUiMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;

  table.on(SessionUiElicitation, async ({ sessionId, message, requestedSchema }, client) => {
    const session = sessions.get(sessionId);
    if (!session.scope.clients.anyAnswersElicitation) {
      throw new TandemError(ErrorCodes.NotAvailable, "No connected client of this session answers elicitations: none registered an elicitation handler.", { sessionId });
    }
    // The form is abandoned (answered `cancel`) when the asking client goes away.
    const stop = new AbortController();
    client.onClose(() => stop.abort());
    const schema = { ...requestedSchema, properties: requestedSchema.properties };
    return requestElicitation(session.scope, { message, requestedSchema: schema }, stop.signal).catch(() => ({ action: "cancel" as const }));
  });
  table.on(SessionUiHandlePendingUserInput, ({ sessionId, requestId, response }) =>
    sessions.get(sessionId).scope.pending.settle(requestId, "userInput", response) ? { success: true } : noPending("user input request", requestId),
  );
  table.on(SessionUiHandlePendingSampling, ({ sessionId, requestId }) => {
    sessions.get(sessionId);
    return noPending("sampling request", requestId);
  });
  table.on(SessionUiHandlePendingAutoModeSwitch, ({ sessionId, requestId, response }) =>
    sessions.get(sessionId).models.autoSwitch.answer(requestId, response) ? { success: true } : noPending("auto-mode switch", requestId),
  );
  table.on(SessionUiHandlePendingSessionLimitsExhausted, ({ sessionId, requestId }) => {
    sessions.get(sessionId);
    return noPending("session-limits request", requestId);
  });
  table.on(SessionMcpHeadersHandlePendingHeadersRefreshRequest, ({ sessionId, requestId }) => {
    sessions.get(sessionId);
    return noPending("MCP headers refresh", requestId);
  });
  table.on(SessionUiRegisterDirectAutoModeSwitchHandler, ({ sessionId }) => ({ handle: sessions.get(sessionId).models.autoSwitch.registerDirectHandler() }));
  table.on(SessionUiUnregisterDirectAutoModeSwitchHandler, ({ sessionId, handle }) => ({ unregistered: sessions.get(sessionId).models.autoSwitch.unregisterDirectHandler(handle) }));
}
