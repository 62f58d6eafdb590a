import type { ConversationMessage } from "../ports/conversation.js";
import { estimateTextTokens } from "./tokens.js";

/** The opening of every summary message: how a summary is told apart from a user's message. */
export const summaryTag = "<conversation_summary";

/** The user's original request is kept in every summary up to this many tokens (a fixed cap, so resume rebuilds the same text). */
export const maxTaskTokens = 1_000;

/** The phrase that opens the summary instructions (scripted test models match on it). */
export const summaryRequestPhrase = "Write a detailed summary of the conversation so far";

/** The system prompt of the summary call: the session's own prompt and tools are not sent. */
export const summarySystemPrompt = [
  "You write the working memory of a software agent whose conversation no longer fits in its context window.",
  "Everything you are shown will be replaced by what you write, so the agent will only know what your summary says.",
  "Do not continue the task, do not call tools and do not address the user: write the summary and nothing else.",
].join(" ");

/**
 * The instructions of the summary call, followed by the transcript it summarizes. `targetWords`
 * bounds the length so the summary leaves room for the work that follows. A `handoff` summary is
 * for someone taking the session over (the history is not replaced by it).
 */
export function summaryRequest(transcript: string, targetWords: number, purpose: "compaction" | "handoff" = "compaction"): string {
  const opening =
    purpose === "compaction"
      ? `${summaryRequestPhrase}, so that the agent can carry on with no other memory of it. The most recent messages are kept verbatim after your summary; everything in the transcript below is replaced by it.`
      : `${summaryRequestPhrase}, in Markdown, for whoever takes the work over next: they will read only your summary, not the transcript below.`;
  return [
    opening,
    "",
    "Use these sections:",
    "1. Task: what the user asked for, in full. Keep every requirement, constraint and preference they stated, quoted where the wording matters. If an earlier summary is in the transcript, carry its task forward unchanged unless the user changed it.",
    "2. Decisions: what was decided and why, including approaches tried and abandoned.",
    "3. Files and commands: files read, created or changed (exact paths, and what changed), commands run and what they showed, errors met and how they were resolved.",
    "4. Done: what is finished and verified.",
    "5. Left to do: what remains, in order, starting with the very next step.",
    "",
    `Keep names, paths, numbers, identifiers and error messages exact. Write at most about ${targetWords} words. Answer with the summary only.`,
    "",
    "<transcript>",
    transcript,
    "</transcript>",
  ].join("\n");
}

/** Whether a message is a summary left by an earlier compaction. */
export function isSummaryMessage(message: ConversationMessage | undefined): boolean {
  return message?.role === "user" && message.content.startsWith(summaryTag);
}

/**
 * The user's task as the summaries carry it: the first message of the history when it is the
 * user's, else the task recorded in the earlier summary that opens the history. Cut to
 * `maxTokens` (the task is kept verbatim in every summary, but must not fill the window).
 */
export function taskOf(messages: readonly ConversationMessage[], maxTokens = maxTaskTokens): string | undefined {
  const first = messages[0];
  if (!first || first.role !== "user") return undefined;
  const text = isSummaryMessage(first) ? between(first.content, "<original_request>\n", "\n</original_request>") : first.content;
  if (text === undefined) return undefined;
  return cutToTokens(text, maxTokens);
}

/**
 * The message that replaces the compacted part of the history: the user's original request, kept
 * verbatim (so no summary can lose the task), and the model's summary. A pure function of its
 * arguments: resume rebuilds the same text from the `session.compaction_complete` event.
 */
export function summaryMessageText(summary: string, checkpointNumber: number, checkpointFile: string, task: string | undefined): string {
  const lines = [
    `${summaryTag} checkpoint="${checkpointNumber}">`,
    `The earlier part of this conversation was compacted to fit the context window: it is replaced by the summary below (also saved in the session's workspace as checkpoints/${checkpointFile}). The most recent messages follow unchanged. Continue the task from where it stands.`,
  ];
  if (task !== undefined) lines.push("", "<original_request>", task, "</original_request>");
  lines.push("", "<summary>", summary, "</summary>", "</conversation_summary>");
  return lines.join("\n");
}

/** `text` cut to about `maxTokens` tokens (by the estimate), marked where it was cut. */
export function cutToTokens(text: string, maxTokens: number): string {
  if (estimateTextTokens(text) <= maxTokens) return text;
  let keep = Math.min(text.length, Math.max(0, maxTokens * 4));
  while (keep > 0 && estimateTextTokens(text.slice(0, keep)) > maxTokens) keep = Math.floor(keep * 0.8);
  return `${text.slice(0, keep)}\n[… ${text.length - keep} characters cut …]`;
}

function between(text: string, start: string, end: string): string | undefined {
  const from = text.indexOf(start);
  if (from === -1) return undefined;
  const to = text.indexOf(end, from + start.length);
  return to === -1 ? undefined : text.slice(from + start.length, to);
}
