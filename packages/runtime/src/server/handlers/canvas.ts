import { SessionCanvasActionInvoke, SessionCanvasClose, SessionCanvasList, SessionCanvasListOpen, SessionCanvasOpen } from "@tandem/protocol/methods/canvas";
import type { SessionCanvases } from "../../canvas/session-canvases.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/** `session.canvas.*`: the canvases the session's clients declared and their open instances (see `SessionCanvases`). */
export function registerCanvasMethods(table: MethodTable, runtime: RuntimeServices): void {
  const canvases = (sessionId: string): SessionCanvases => runtime.sessions.get(sessionId).canvases;
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
