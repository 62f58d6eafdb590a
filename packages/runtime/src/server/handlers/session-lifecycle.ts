import { SessionAbort, SessionCreate, SessionDelete, SessionDestroy, SessionGetForeground, SessionGetLastId, SessionGetMessages, SessionList, SessionLog, SessionResume, SessionSend, SessionSetForeground } from "@tandem/protocol";
import type { Runtime } from "../../runtime.js";
import type { MethodTable } from "../dispatch.js";
import { PreSerializedJson } from "../writer.js";

/** Sessions: create, resume, send, abort, messages, destroy, delete, list, foreground, log. */
export function registerSessionLifecycleMethods(table: MethodTable, runtime: Runtime): void {
  const sessions = runtime.sessions;
  table.on(SessionCreate, (params, client) => {
    if (!params.provider) runtime.assertDefaultProviderUsable();
    return sessions.create(params, client);
  });
  table.on(SessionResume, (params, client) => sessions.resume(params, client));
  table.on(SessionSend, async (params) => ({ messageId: await sessions.get(params.sessionId).send(params) }));
  table.on(SessionAbort, async ({ sessionId }) => {
    const session = sessions.find(sessionId);
    if (!session) return { success: false, error: "Session not found or not currently active" };
    await session.abort();
    return { success: true };
  });
  // The events are spliced in as stored JSON text (100k events would otherwise be re-serialised).
  table.on(SessionGetMessages, ({ sessionId }) => new PreSerializedJson(sessions.get(sessionId).eventsJson()) as never);
  table.on(SessionDestroy, async ({ sessionId }, client) => {
    await sessions.release(sessionId, client);
    return { success: true };
  });
  table.on(SessionDelete, ({ sessionId }) => sessions.delete(sessionId));
  table.on(SessionList, async (params) => ({ sessions: await sessions.list(params?.filter) }));
  table.on(SessionGetLastId, async () => {
    const sessionId = await sessions.lastId();
    return sessionId ? { sessionId } : {};
  });
  table.on(SessionGetForeground, () => sessions.getForeground());
  table.on(SessionSetForeground, async ({ sessionId }) => {
    await sessions.setForeground(sessionId);
    return { success: true };
  });
  table.on(SessionLog, ({ sessionId, message, level, url }) => {
    const emitter = sessions.get(sessionId).emitter;
    const extra = url ? { url } : {};
    if (level === "error") return { eventId: emitter.emit("session.error", { errorType: "notification", message, ...extra }).id };
    if (level === "warning") return { eventId: emitter.emit("session.warning", { warningType: "notification", message, ...extra }).id };
    return { eventId: emitter.emit("session.info", { infoType: "notification", message, ...extra }).id };
  });
}
