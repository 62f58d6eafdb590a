import { SessionSandboxDisableForSession, SessionSandboxGetEnforcementStatus } from "@tandem/protocol/methods/sandbox";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/**
 * `session.sandbox.*`: what a session's OS sandbox really enforces (bubblewrap probed, the
 * platform, the network policy), and turning it off for the session, which its config must allow
 * (`allowBypass`; else a `SandboxUnavailable` error).
 */
export function registerSandboxMethods(table: MethodTable, runtime: RuntimeServices): void {
  table.on(SessionSandboxGetEnforcementStatus, ({ sessionId }) => runtime.sessions.get(sessionId).toolset.sandbox.status());
  table.on(SessionSandboxDisableForSession, ({ sessionId }) => {
    runtime.sessions.get(sessionId).toolset.sandbox.disableForSession();
    return { success: true };
  });
}
