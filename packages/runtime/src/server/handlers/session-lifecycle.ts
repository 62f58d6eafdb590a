import { SessionAbort, SessionCreate, SessionDelete, SessionDestroy, SessionGetForeground, SessionGetLastId, SessionGetMessages, SessionList, SessionLog, SessionResume, SessionSend, SessionSetForeground } from "@tandem/protocol";
import { sessionNotFound } from "../../errors.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";
import { PreSerializedJson } from "../writer.js";
import { persistedEventsJson } from "../../session/rewound-events.js";
import { promptTooLong } from "../../session/user-message.js";
import { checkSessionToken } from "../../accounts/token-check.js";

/** Sessions: create, resume, send, abort, messages, destroy, delete, list, foreground, log. */
export function registerSessionLifecycleMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;
  table.on(SessionCreate, async (params, client) => {
    // A token GitHub refuses fails the create; without any token the session opens and its first turn says what to set.
    if (!params.provider) await checkSessionToken(runtime.gitHubUsers, params.gitHubToken, runtime.logger);
    const opened = await sessions.create(await runtime.userSettings.applyToSession(params), client);
    runtime.extensions.sessionOpened(opened.sessionId);
    return opened;
  });
  table.on(SessionResume, async (params, client) => {
    if (!params.provider && client.extensionId === undefined) await checkSessionToken(runtime.gitHubUsers, params.gitHubToken, runtime.logger);
    const opened = await sessions.resume(params, client);
    if (client.extensionId === undefined) runtime.extensions.sessionOpened(opened.sessionId);
    return opened;
  });
  table.on(SessionSend, async (params) => {
    const tooLong = promptTooLong(params.prompt);
    if (tooLong) throw tooLong;
    const session = sessions.get(params.sessionId);
    // A turn sees the extensions' tools: wait until they joined (or failed, or timed out).
    await runtime.extensions.ready(params.sessionId);
    // A known slash command runs instead of being sent to the model (`command.queued` … `command.completed`).
    const commandId = runtime.commands.runPrompt(session, params.prompt);
    if (commandId) return { messageId: commandId };
    return { messageId: await session.send(params) };
  });
  table.on(SessionAbort, async ({ sessionId }) => {
    const session = sessions.find(sessionId);
    if (!session) return { success: false, error: "Session not found or not currently active" };
    await session.abort();
    return { success: true };
  });
  // The events are spliced in as stored JSON text (100k events would otherwise be re-serialised).
  table.on(SessionGetMessages, async ({ sessionId }) => new PreSerializedJson(await persistedEventsJson(sessions.get(sessionId).emitter)) as never);
  table.on(SessionDestroy, async ({ sessionId }, client) => {
    await sessions.release(sessionId, client);
    if (client.extensionId === undefined) runtime.extensions.applicationLeft();
    return { success: true };
  });
  table.on(SessionDelete, ({ sessionId, keepGitState }) => sessions.delete(sessionId, { keepGitState: keepGitState === true }));
  table.on(SessionList, async (params) => ({ sessions: await sessions.list(params?.filter) }));
  table.on(SessionGetLastId, async () => {
    const sessionId = await sessions.lastId();
    return sessionId ? { sessionId } : {};
  });
  table.on(SessionGetForeground, () => sessions.getForeground());
  table.on(SessionSetForeground, async ({ sessionId }, client) => {
    if (!client.profile.setsForegroundWithoutUi) {
      if (!sessions.find(sessionId) && !(await runtime.store.exists(sessionId))) throw sessionNotFound(sessionId);
      // The official SDK reads `success` and throws `error`: the session stays as it was.
      return { success: false, error: "Not running in TUI+server mode: this runtime has no terminal UI, so there is no foreground session to switch" };
    }
    await sessions.setForeground(sessionId);
    runtime.extensions.foregroundChanged(sessionId);
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
