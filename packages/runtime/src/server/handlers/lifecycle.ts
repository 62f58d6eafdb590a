import { SessionSuspend } from "@tandem/protocol/methods/lifecycle";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/** `session.suspend`: the running turn ends, what waits on the application is settled, the log is made durable. */
export function registerLifecycleMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;
  table.on(SessionSuspend, async ({ sessionId }) => {
    const session = sessions.get(sessionId);
    // The turn's waiting permission requests are cancelled (denied) and its external tool calls
    // rejected (interrupted) by the abort; what was written is then made durable.
    await session.abort();
    await session.emitter.durable();
    return {};
  });
}
