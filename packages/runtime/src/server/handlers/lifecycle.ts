import { SessionCommandsEnqueue, SessionPermissionsPendingRequests, SessionSuspend } from "@tandem/protocol";
import type { Runtime } from "../../runtime.js";
import type { MethodTable } from "../dispatch.js";

/** `session.suspend`, the permission requests still waiting, and slash commands queued by text. */
export function registerLifecycleMethods(table: MethodTable, runtime: Runtime): void {
  const sessions = runtime.sessions;
  table.on(SessionSuspend, async ({ sessionId }) => {
    const session = sessions.get(sessionId);
    // The turn's waiting permission requests are cancelled (denied) and its external tool calls
    // rejected (interrupted) by the abort; what was written is then made durable.
    await session.abort();
    await session.emitter.durable();
    return {};
  });
  table.on(SessionPermissionsPendingRequests, ({ sessionId }) => ({
    items: sessions
      .get(sessionId)
      .pending.openOf("permission")
      .map(({ requestId, request }) => ({ requestId, request: request as never })),
  }));
  table.on(SessionCommandsEnqueue, ({ sessionId, command }) => {
    runtime.commands.enqueueText(sessions.get(sessionId), command);
    return { queued: true };
  });
}
