import {
  SessionExitPlanModeHandlePendingRequest,
  SessionPermissionsHandlePendingPermissionRequest,
  SessionToolsHandlePendingToolCall,
  SessionUiHandlePendingElicitation,
  SessionUiHandlePendingExitPlanMode,
} from "@tandem/protocol";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";
import { invalidParams } from "../../errors.js";
import { abstains, readDecision } from "../../permissions/decision.js";

/** Clients answering what a session waits on: tool calls, permissions, elicitations, plan exits. */
export function registerPendingAnswerMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;
  table.on(SessionToolsHandlePendingToolCall, ({ sessionId, requestId, result, error }) => {
    const settled = sessions.get(sessionId).scope.pending.settle(requestId, "tool", { result, error });
    return settled ? { success: true } : { success: false, error: `No pending tool call with requestId ${requestId}` };
  });
  table.on(SessionPermissionsHandlePendingPermissionRequest, ({ sessionId, requestId, result }) => {
    const session = sessions.get(sessionId);
    // `no-result`: this client leaves the request to another one; it stays pending.
    if (abstains(result)) return { success: true };
    const decision = readDecision(result);
    const approvedUrl = session.scope.pending.subjectOf(requestId, "permission");
    const settled = session.scope.pending.settle(requestId, "permission", decision.result);
    if (settled && decision.valid) session.permissions.approvals.rememberAnswer(result, sessionId, approvedUrl);
    if (decision.valid) return settled ? { success: true } : { success: false, error: `No pending permission request with requestId ${requestId}` };
    // An answer the runtime cannot read still ends the wait (as a denial); the caller is told why.
    if (settled) session.scope.logger.warn(`permission request ${requestId} answered with an invalid decision (${decision.reason}); denied`);
    const outcome = settled ? `Permission request ${requestId} was resolved as denied.` : `No pending permission request with requestId ${requestId}.`;
    throw invalidParams(`Invalid permission decision: ${decision.reason}. ${outcome}`, { requestId });
  });

  table.on(SessionUiHandlePendingElicitation, ({ sessionId, requestId, result }) => {
    const settled = sessions.get(sessionId).scope.pending.settle(requestId, "elicitation", result);
    return settled ? { success: true } : { success: false, error: `No pending elicitation with requestId ${requestId}` };
  });
  table.on(SessionExitPlanModeHandlePendingRequest, ({ sessionId, requestId, action, feedback }) => {
    const settled = sessions.get(sessionId).scope.pending.settle(requestId, "exitPlanMode", { action, feedback });
    return settled ? { success: true } : { success: false, error: `No pending exit-plan-mode request with requestId ${requestId}` };
  });
  // The official 1.0.x name and answer shape ({approved, selectedAction, feedback}).
  table.on(SessionUiHandlePendingExitPlanMode, ({ sessionId, requestId, response }) => ({
    success: sessions.get(sessionId).scope.pending.settle(requestId, "exitPlanMode", response),
  }));
}
