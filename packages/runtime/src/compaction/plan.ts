import type { ConversationMessage } from "../ports/conversation.js";
import { isSummaryMessage } from "./summary-text.js";
import type { TokenEstimator } from "./tokens.js";

/**
 * Where to cut a history: messages before `keepFrom` are summarized, the rest are kept verbatim.
 * The cut is always at a turn boundary (never between a tool call and its result), never removes
 * the user's newest messages the model has not answered yet, and keeps as many recent messages as
 * fit in `keepBudget` tokens. Returns 0 when nothing can be removed: the
 * history is empty, or everything before the kept tail is already a summary.
 *
 * @example
 * planCut(messages, estimator, 1000); // e.g. 12: messages[0..11] are summarized
 */
export function planCut(messages: readonly ConversationMessage[], estimator: TokenEstimator, keepBudget: number): number {
  // The user's newest messages, which the model has not answered yet, are always kept verbatim.
  let unanswered = messages.length;
  while (unanswered > 0 && messages[unanswered - 1]?.role === "user") unanswered--;
  const boundaries = turnBoundaries(messages).filter((boundary) => boundary <= unanswered);
  let keepFrom = boundaries.at(-1) ?? 0;
  let kept = estimator.messages(messages, keepFrom);
  // Walk back over boundaries while the tail still fits.
  for (let index = boundaries.length - 2; index >= 0; index--) {
    const boundary = boundaries[index] as number;
    const more = estimator.messages(messages, boundary, keepFrom);
    if (kept + more > keepBudget) break;
    kept += more;
    keepFrom = boundary;
  }
  const removable = messages.slice(0, keepFrom).some((message) => !isSummaryMessage(message));
  return removable ? keepFrom : 0;
}

/**
 * Indexes where the history may be cut: every index that starts a message that is not a tool
 * result, plus the end of the history, when everything before it is closed (each tool call
 * answered). Index 0 is never a useful cut and is left out.
 */
function turnBoundaries(messages: readonly ConversationMessage[]): number[] {
  const boundaries: number[] = [];
  const open = new Set<string>();
  for (let index = 0; index <= messages.length; index++) {
    const message = messages[index];
    if (index > 0 && open.size === 0 && message?.role !== "tool") boundaries.push(index);
    if (message?.role === "assistant") for (const call of message.toolCalls) open.add(call.id);
    if (message?.role === "tool") open.delete(message.toolCallId);
  }
  return boundaries;
}
