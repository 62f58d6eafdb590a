import { SessionCanvasActionInvoke, SessionCanvasClose, SessionCanvasList, SessionCanvasListOpen, SessionCanvasOpen } from "@tandem/protocol/methods/canvas";
import { SessionCanvases } from "../../canvas/session-canvases.js";
import type { SessionScope } from "../../session/scope.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/**
 * `session.canvas.*`: the canvases the session's clients declared and their open instances (see
 * `SessionCanvases`), built from the session's scope when a client first asks about them.
 */
export function registerCanvasMethods(table: MethodTable, runtime: RuntimeServices): void {
  const bySession = new WeakMap<SessionScope, SessionCanvases>();
  const canvases = (sessionId: string): SessionCanvases => {
    const { scope } = runtime.sessions.get(sessionId);
    const known = bySession.get(scope);
    if (known) return known;
    const created = new SessionCanvases({ sessionId, declaredCanvases: () => scope.clients.declaredCanvases() });
    bySession.set(scope, created);
    return created;
  };
  table.on(SessionCanvasList, ({ sessionId }) => ({ canvases: canvases(sessionId).list() }));
  table.on(SessionCanvasListOpen, ({ sessionId }) => ({ openCanvases: canvases(sessionId).listOpen() }));
  table.on(SessionCanvasOpen, ({ sessionId, canvasId, instanceId, extensionId, input }) =>
    canvases(sessionId).openInstance({ canvasId, instanceId, ...(extensionId !== undefined ? { extensionId } : {}), ...(input !== undefined ? { input } : {}) }),
  );
  table.on(SessionCanvasClose, async ({ sessionId, instanceId }) => {
    await canvases(sessionId).close(instanceId);
    return {};
  });
  table.on(SessionCanvasActionInvoke, ({ sessionId, instanceId, actionName, input }) =>
    canvases(sessionId).invoke({ instanceId, actionName, ...(input !== undefined ? { input } : {}) }),
  );
}
