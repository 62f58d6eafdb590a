import { SessionExtensionsList, SessionExtensionsReload } from "@tandem/protocol/methods/extensions";
import { SessionExtensionsDisable, SessionExtensionsEnable } from "@tandem/protocol/methods/skills-plugins";
import { ErrorCodes, TandemError } from "../../errors.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/** `session.extensions.list` / `reload` / `enable` / `disable` (1.0.x). */
export function registerExtensionMethods(table: MethodTable, runtime: RuntimeServices): void {
  /** Managing extensions needs them on and a folder to find them in; listing does not. */
  const requireAvailable = (sessionId: string): void => {
    const reason = runtime.extensions.unavailableReason(sessionId);
    if (reason) throw new TandemError(ErrorCodes.NotAvailable, `Extensions not available: ${reason}`, { sessionId });
  };
  table.on(SessionExtensionsList, async ({ sessionId }) => {
    runtime.sessions.get(sessionId);
    await runtime.extensions.ready(sessionId);
    return { extensions: runtime.extensions.list(sessionId) };
  });
  table.on(SessionExtensionsReload, async ({ sessionId }) => {
    runtime.sessions.get(sessionId);
    requireAvailable(sessionId);
    await runtime.extensions.reload(sessionId);
    await runtime.extensions.ready(sessionId);
    return null;
  });
  table.on(SessionExtensionsEnable, async ({ sessionId, id }) => {
    runtime.sessions.get(sessionId);
    requireAvailable(sessionId);
    await runtime.extensions.setEnabled(sessionId, id, true);
    await runtime.extensions.ready(sessionId);
    return {};
  });
  table.on(SessionExtensionsDisable, async ({ sessionId, id }) => {
    runtime.sessions.get(sessionId);
    requireAvailable(sessionId);
    await runtime.extensions.setEnabled(sessionId, id, false);
    await runtime.extensions.ready(sessionId);
    return {};
  });
}
