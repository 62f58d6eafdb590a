import { SessionExtensionsList, SessionExtensionsReload } from "@tandem/protocol";
import type { Runtime } from "../../runtime.js";
import type { MethodTable } from "../dispatch.js";

/** `session.extensions.list` / `reload` (1.0.x). */
export function registerExtensionMethods(table: MethodTable, runtime: Runtime): void {
  table.on(SessionExtensionsList, async ({ sessionId }) => {
    runtime.sessions.get(sessionId);
    await runtime.extensions.ready(sessionId);
    return { extensions: runtime.extensions.list(sessionId) };
  });
  table.on(SessionExtensionsReload, async ({ sessionId }) => {
    runtime.sessions.get(sessionId);
    await runtime.extensions.reload(sessionId);
    await runtime.extensions.ready(sessionId);
    return null;
  });
}
