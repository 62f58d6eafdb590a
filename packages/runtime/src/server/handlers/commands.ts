import { SessionCommandsExecute, SessionCommandsHandlePendingCommand, SessionCommandsInvoke, SessionCommandsList, SessionCommandsRespondToQueuedCommand, SessionRespondToQueuedCommand, SessionToolsExecute } from "@tandem/protocol/methods/commands";
import { runUserRequestedTool } from "../../commands/user-tool.js";
import { errorMessage } from "../../errors.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/** Slash commands: `session.commands.*` (1.0.x) and the older `session.respondToQueuedCommand`; user-run tools (`session.tools.execute`). */
export function registerCommandMethods(table: MethodTable, runtime: RuntimeServices): void {
  const { sessions, commands } = runtime;
  table.on(SessionCommandsList, ({ sessionId, includeBuiltins, includeClientCommands }) => ({
    commands: commands.list(sessions.get(sessionId), { includeBuiltins, includeClientCommands }),
  }));
  table.on(SessionCommandsInvoke, ({ sessionId, name, input }) => commands.invoke(sessions.get(sessionId), name, input?.trim() ?? ""));
  table.on(SessionCommandsExecute, async ({ sessionId, commandName, args }) => {
    const session = sessions.get(sessionId);
    try {
      await commands.invoke(session, commandName, args?.trim() ?? "");
      return {};
    } catch (error) {
      return { error: errorMessage(error) };
    }
  });
  // A completion report is always taken: one for a command that no longer waits (answered before,
  // removed from the queue, or never handed out) changes nothing.
  table.on(SessionCommandsHandlePendingCommand, ({ sessionId, requestId, error }) => {
    sessions.get(sessionId).scope.pending.settle(requestId, "command", error ? { error } : {});
    return { success: true };
  });
  const respond = ({ sessionId, requestId, result }: { sessionId: string; requestId: string; result: { handled: boolean; stopProcessingQueue?: boolean } }) => ({
    success: sessions
      .get(sessionId)
      .scope.pending.settle(requestId, "command", result.handled ? { stopProcessingQueue: result.stopProcessingQueue === true } : { error: "the host did not run it" }),
  });
  table.on(SessionCommandsRespondToQueuedCommand, respond);
  table.on(SessionRespondToQueuedCommand, respond);
  table.on(SessionToolsExecute, ({ sessionId, name, arguments: args, toolCallId }) => runUserRequestedTool(sessions.get(sessionId).loop, name, args, toolCallId));
}
