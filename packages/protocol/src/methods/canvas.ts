import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";
import { CanvasActionDeclaration } from "../session-declarations.js";

/**
 * Canvases (official SDK 1.0 names): views a client declares in `session.create` / `session.resume`
 * (`canvases`) and renders itself. The runtime lists them, keeps the session's open instances, and
 * forwards open / close / action calls to the declaring client (`canvas.open`, `canvas.close`,
 * `canvas.action.invoke`).
 */

const sessionScoped = { sessionId: SessionId };


/** A declared canvas as `session.canvas.list` reports it. */
export const DiscoveredCanvas = z.lazy(() => z.looseObject({
  canvasId: z.string(),
  extensionId: z.string(),
  displayName: z.string(),
  description: z.string(),
  inputSchema: z.unknown().optional(),
  actions: z.array(CanvasActionDeclaration).optional(),
}));

/** An open canvas instance. */
export const OpenCanvasInstance = z.lazy(() => z.looseObject({
  instanceId: z.string(),
  canvasId: z.string(),
  extensionId: z.string(),
  title: z.string().optional(),
  status: z.string().optional(),
  url: z.string().optional(),
  input: z.unknown().optional(),
}));
export type OpenCanvasInstance = z.infer<typeof OpenCanvasInstance>;

/** `session.canvas.list`: the canvases the session's connected clients declared. */
export const SessionCanvasList = defineRequest("session.canvas.list", () => z.looseObject(sessionScoped), () => z.looseObject({ canvases: z.array(DiscoveredCanvas) }));

/** `session.canvas.listOpen`: the session's open canvas instances. */
export const SessionCanvasListOpen = defineRequest("session.canvas.listOpen", () => z.looseObject(sessionScoped), () => z.looseObject({ openCanvases: z.array(OpenCanvasInstance) }));

/** `session.canvas.open`: opens (or re-opens) an instance of a declared canvas through its client. */
export const SessionCanvasOpen = defineRequest(
  "session.canvas.open",
  () => z.looseObject({ ...sessionScoped, canvasId: z.string().min(1), instanceId: z.string().min(1), extensionId: z.string().optional(), input: z.unknown().optional() }),
  () => OpenCanvasInstance,
);

/** `session.canvas.close`: closes an open instance (its client is told). */
export const SessionCanvasClose = defineRequest(
  "session.canvas.close",
  () => z.looseObject({ ...sessionScoped, instanceId: z.string().min(1) }),
  () => z.looseObject({}).or(z.null()).or(z.undefined()),
);

/** `session.canvas.action.invoke`: runs a declared action of an open instance in its client; answers `{ result }`. */
export const SessionCanvasActionInvoke = defineRequest(
  "session.canvas.action.invoke",
  () => z.looseObject({ ...sessionScoped, instanceId: z.string().min(1), actionName: z.string().min(1), input: z.unknown().optional() }),
  () => z.looseObject({ result: z.unknown() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const canvasRequests = [SessionCanvasList, SessionCanvasListOpen, SessionCanvasOpen, SessionCanvasClose, SessionCanvasActionInvoke] as const;
