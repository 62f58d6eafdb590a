import type { ConversationMessage } from "../ports/conversation.js";
import { estimateTextTokens } from "./tokens.js";

/** Per-message character caps tried in turn until the transcript fits its budget. */
const messageCaps = [16_000, 6_000, 2_000, 800, 300];

/**
 * The messages to summarize as one plain-text transcript of at most about `budget` tokens, so the
 * summary call fits the window whatever the history holds. Over budget, long messages are cut in
 * the middle (tool results first, then all), and as a last resort the oldest messages after an
 * opening summary are left out, with a note saying how many.
 *
 * @example
 * renderTranscript(messages.slice(0, cut), 20_000);
 */
export function renderTranscript(messages: readonly ConversationMessage[], budget: number): string {
  let entries = messages.map((message) => renderMessage(message, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY));
  for (const cap of messageCaps) {
    if (fits(entries, budget)) return entries.join("\n\n");
    entries = messages.map((message) => renderMessage(message, cap, cap * 4));
  }
  for (const cap of messageCaps) {
    if (fits(entries, budget)) return entries.join("\n\n");
    entries = messages.map((message) => renderMessage(message, cap, cap));
  }
  // Still too long: drop the oldest entries (keeping an opening summary, which holds the task).
  const keepFirst = messages[0]?.role === "user" ? 1 : 0;
  let dropped = 0;
  while (entries.length > keepFirst + 1 && !fits(entries, budget)) {
    entries.splice(keepFirst, 1);
    dropped++;
  }
  if (dropped > 0) entries.splice(keepFirst, 0, `[${dropped} older messages left out: the transcript was too long to summarize whole]`);
  return entries.join("\n\n");
}

function fits(entries: readonly string[], budget: number): boolean {
  let total = 0;
  for (const entry of entries) {
    total += estimateTextTokens(entry) + 2;
    if (total > budget) return false;
  }
  return true;
}

function renderMessage(message: ConversationMessage, toolCap: number, textCap: number): string {
  if (message.role === "user") return `[user]\n${cutMiddle(message.content, textCap)}`;
  if (message.role === "tool") {
    const images = message.images?.length ? `\n[${message.images.length} image(s) not shown]` : "";
    return `[tool result: ${message.toolName}]\n${cutMiddle(message.content, toolCap)}${images}`;
  }
  const parts = [`[assistant]`];
  if (message.content) parts.push(cutMiddle(message.content, textCap));
  for (const call of message.toolCalls) parts.push(`(calls ${call.name} ${cutMiddle(call.rawArguments, textCap)})`);
  return parts.join("\n");
}

/** `text` with its middle replaced by a note when it is longer than `cap` characters. */
function cutMiddle(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const half = Math.floor(cap / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`;
}
