import type { ConversationMessage } from "../ports/conversation.js";
import { interruptedText } from "../loop/tool-runner.js";
import type { Session } from "../session/session.js";

/** The system message a continued turn starts with after a failover. */
export const failoverNotice =
  "The runtime node that was running this session stopped in the middle of your turn; another node took the session over. Tool calls without a result were interrupted and did not necessarily complete. Check their effects if it matters, then continue the task.";

/**
 * Whether the stored history ends inside a turn: the model has not answered the last user message
 * or tool results yet (a history that ends with an assistant message without tool calls is complete).
 */
export function turnInFlight(messages: readonly ConversationMessage[]): boolean {
  const last = messages.at(-1);
  if (!last) return false;
  return !(last.role === "assistant" && last.toolCalls.length === 0);
}

/**
 * The tool calls of the last assistant message that the rebuilt history answered "interrupted"
 * without a `tool.execution_complete` in the log (an abort's completions are already there).
 */
export function interruptedCalls(messages: readonly ConversationMessage[]): Array<{ id: string; name: string }> {
  const calls: Array<{ id: string; name: string }> = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === "assistant") break;
    if (message.role === "tool" && message.unrecorded) calls.unshift({ id: message.toolCallId, name: message.toolName });
  }
  return calls;
}

/**
 * After a takeover from a node that died: when the stored history ends inside a turn, the
 * interrupted tool calls get their `tool.execution_complete` (failed, "interrupted") so the log is
 * consistent, `session.turn_interrupted` tells the clients, and the turn continues here.
 */
export function continueAfterTakeover(session: Session, previousNodeId: string, nodeId: string): boolean {
  if (!turnInFlight(session.scope.messages) || session.turns.busy) return false;
  const calls = interruptedCalls(session.scope.messages);
  for (const call of calls) {
    session.emitter.emit("tool.execution_complete", {
      toolCallId: call.id,
      success: false,
      model: session.scope.model,
      result: { content: interruptedText },
      error: { message: interruptedText, code: "interrupted" },
    });
  }
  session.emitter.emit("session.turn_interrupted", { reason: "node_lost", previousNodeId, nodeId, interruptedToolCallIds: calls.map((call) => call.id), continued: true });
  session.turns.continueInterruptedTurn(failoverNotice);
  return true;
}
