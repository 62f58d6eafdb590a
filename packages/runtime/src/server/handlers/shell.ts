import { SessionShellCancelUserRequested, SessionShellExec, SessionShellExecuteUserRequested, SessionShellKill, ShellExitNotification, ShellOutputNotification } from "@tandem/protocol/methods/shell";
import type { SessionProcesses } from "../../processes/session-processes.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { Session } from "../../session/session.js";
import type { MethodTable } from "../method-table.js";

/**
 * `session.shell.*`: commands an application runs in a session outside the agent loop. Each
 * session's processes are created on first use and killed when the session closes.
 */
export function registerShellMethods(table: MethodTable, runtime: RuntimeServices): void {
  const bySession = new Map<string, SessionProcesses>();
  // Loaded on first use: most sessions never run a command this way (the runtime's start stays lean).
  const processesOf = async (session: Session): Promise<SessionProcesses> => {
    const known = bySession.get(session.sessionId);
    if (known) return known;
    const { SessionProcesses } = await import("../../processes/session-processes.js");
    const raced = bySession.get(session.sessionId);
    if (raced) return raced;
    const created = new SessionProcesses(session.scope);
    bySession.set(session.sessionId, created);
    const stopListening = session.emitter.addListener((event) => {
      if (event.type !== "session.shutdown") return;
      stopListening();
      bySession.delete(session.sessionId);
      created.dispose();
    });
    return created;
  };
  const sessions = runtime.sessions;

  table.on(SessionShellExec, async ({ sessionId, command, cwd, timeout }, client) => {
    const processId = (await processesOf(sessions.get(sessionId))).exec(command, cwd, timeout, {
      output: (id, stream, data) => client.sendNotification(ShellOutputNotification.method, { sessionId, processId: id, stream, data }),
      exit: (id, exitCode, signal) => client.sendNotification(ShellExitNotification.method, { sessionId, processId: id, exitCode, ...(signal ? { signal } : {}) }),
    });
    return { processId };
  });
  table.on(SessionShellKill, ({ sessionId, processId, signal }) => ({ killed: bySession.get(sessions.get(sessionId).sessionId)?.kill(processId, signal) ?? false }));
  table.on(SessionShellExecuteUserRequested, async ({ sessionId, requestId, command }) => (await processesOf(sessions.get(sessionId))).runUserRequested(requestId, command));
  table.on(SessionShellCancelUserRequested, ({ sessionId, requestId }) => ({ cancelled: bySession.get(sessions.get(sessionId).sessionId)?.cancelUserRequested(requestId) ?? false }));
}
