import type { Attachment } from "@tandem/protocol";
import { invalidParams, type TandemError } from "../errors.js";
import type { ConversationMessage } from "../loop/messages.js";
import { attachedImages, withAttachmentSuffix } from "./attachments.js";

/**
 * The longest prompt `session.send` takes, in characters (4 Mi). No model Tandem talks to has a
 * context window that holds more: the largest are ~1 M tokens, and English text or code runs at
 * ~3-4 characters a token, so a longer prompt could only fail at the provider, after the runtime
 * paid for it. And it is paid in one piece: a prompt is handled synchronously on the runtime's one
 * thread (JSON parse, event write and echo, token estimate, the model request's body), so every
 * other session waits meanwhile. Measured on the shared 2-core test machine, with a second client
 * pinging the runtime while a first sent the prompt: a 50 MB prompt (accepted, before this limit)
 * made the pings wait 0.5-2.5 s at p99, the longest single stall 2.3 s; a prompt of 4 Mi
 * characters, answered, keeps them at 65-100 ms p99; a 50 MB prompt, refused, costs 0.2-0.5 s of
 * frame reading and JSON parsing, bounded by `TANDEM_MAX_MESSAGE_BYTES` like any message.
 */
export const MAX_PROMPT_CHARS = 4 * 1024 * 1024;

/**
 * The `-32602` error for a prompt longer than {@link MAX_PROMPT_CHARS}, or undefined when it fits.
 *
 * @example
 * const error = promptTooLong("x".repeat(5 * 1024 * 1024)); // TandemError -32602
 */
export function promptTooLong(prompt: string): TandemError | undefined {
  if (prompt.length <= MAX_PROMPT_CHARS) return undefined;
  return invalidParams(
    `The prompt is ${prompt.length} characters long; session.send takes at most ${MAX_PROMPT_CHARS} (4 Mi) characters, more than any model's context window holds. Send a shorter prompt, or put large content in a file and attach it or let the agent read it.`,
    { promptLength: prompt.length, maxPromptLength: MAX_PROMPT_CHARS },
  );
}

/**
 * Up to this many characters a prompt's event keeps `transformedContent` (the shape readers of the
 * reference events expect); past it the prompt is stored once, as `content`, and the text the
 * model saw is rebuilt from `content` and the event's timestamp. Below 64 Ki the copy costs nothing.
 */
export const MAX_STORED_TRANSFORMED_CHARS = 64 * 1024;

/** A session's summary (titles, `session.list`, `workspace.yaml`) is the first prompt, at most this long. */
export const MAX_SUMMARY_CHARS = 1000;

/**
 * The text the model sees for a prompt: the prompt after the current date and time.
 *
 * @example
 * wrapPrompt("hello", "2025-01-01T00:00:00.000Z"); // "<current_datetime>2025-01-01T00:00:00.000Z</current_datetime>\n\nhello"
 */
export function wrapPrompt(prompt: string, datetime: string): string {
  return `<current_datetime>${datetime}</current_datetime>\n\n${prompt}`;
}

/**
 * The model's text of a persisted `user.message`: its `transformedContent`, else `content`
 * wrapped with the event's timestamp (a long prompt stored once).
 */
export function modelTextOfUserMessage(data: { content?: string; transformedContent?: string }, timestamp: string): string {
  if (data.transformedContent !== undefined) return data.transformedContent;
  return wrapPrompt(data.content ?? "", timestamp);
}

/** A prompt as a session summary: at most {@link MAX_SUMMARY_CHARS} characters. */
export function summaryOf(prompt: string): string {
  return prompt.length <= MAX_SUMMARY_CHARS ? prompt : `${prompt.slice(0, MAX_SUMMARY_CHARS - 3)}...`;
}

/**
 * The conversation message of a `user.message` (live or persisted): its model text with the
 * attachment blocks after it (`<tagged_files>`, GitHub pointers), notes for images that were not
 * sent, and the attached images.
 */
export function userConversationMessage(
  data: { content?: string; transformedContent?: string; attachments?: Attachment[] },
  timestamp: string,
): Extract<ConversationMessage, { role: "user" }> {
  const text = withAttachmentSuffix(modelTextOfUserMessage(data, timestamp), data.attachments);
  const { images, notes } = attachedImages(data.attachments);
  const content = notes.length > 0 ? `${text}\n\n${notes.join("\n")}` : text;
  return images.length > 0 ? { role: "user", content, images } : { role: "user", content };
}

/** The `warningType` of the `session.warning` that continues a turn another node was running when it died. */
export const failoverWarningType = "failover";

/**
 * How the model reads a failover's notice: a system note in the conversation, rebuilt from its
 * `session.warning` event on every resume so the model's view does not change across nodes.
 */
export function failoverNoticeMessage(notice: string): ConversationMessage {
  return { role: "user", content: `<system_notice>\n${notice}\n</system_notice>` };
}
