import type { ToolOutcome } from "./types.js";

/** Tool text the model sees, at most (head + tail): ~7,500 tokens, enough to act on, small next to any context window. */
export const MAX_MODEL_OUTPUT_CHARS = 30_000;

/**
 * `detailedContent` (what clients show and `events.jsonl` keeps) at most, head + tail: room for a UI
 * to show far more than the model saw, without one call adding megabytes to the events file.
 */
export const MAX_DETAILED_OUTPUT_CHARS = 256 * 1024;

/**
 * The last line of defence for any tool's text (built-in tools have their own, smaller limits:
 * `view` 256 KB or 2,000 lines unless forced): a result past this is cut before it reaches the model.
 */
export const MAX_ANY_TOOL_OUTPUT_CHARS = 1024 * 1024;

/** The note a cut in the middle of a tool's text ends with, when nothing more specific fits. */
export const GENERIC_TRUNCATION_HINT = "The tool's result was too long to show in full.";

/** The hint for shell output: how the model can see the part that was left out. */
export const SHELL_TRUNCATION_HINT =
  "Narrow the command (grep, head, tail, or redirect to a file and view parts of it) to see them.";

/**
 * Shortens text by keeping its head and tail (cut at line breaks where possible) and saying how
 * much was left out, with `hint` after the count.
 *
 * @example
 * truncateMiddle("x".repeat(50_000), 20_000); // 10,000 + note + 10,000 characters
 */
export function truncateMiddle(text: string, maxChars: number, hint = SHELL_TRUNCATION_HINT): string {
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  let headEnd = half;
  const headBreak = text.lastIndexOf("\n", half);
  if (headBreak > half * 0.8) headEnd = headBreak + 1;
  let tailStart = text.length - (maxChars - half);
  const tailBreak = text.indexOf("\n", tailStart);
  if (tailBreak !== -1 && tailBreak < tailStart + half * 0.2) tailStart = tailBreak + 1;
  const omittedChars = tailStart - headEnd;
  const omittedLines = countLineBreaks(text, headEnd, tailStart);
  return (
    text.slice(0, headEnd) +
    `\n[Output truncated: ${omittedChars} characters (${omittedLines} lines) omitted from the middle.${hint ? ` ${hint}` : ""}]\n\n` +
    text.slice(tailStart)
  );
}

/** Line breaks in `text[start, end)`, counted without copying (the middle may be megabytes). */
function countLineBreaks(text: string, start: number, end: number): number {
  let count = 0;
  for (let index = text.indexOf("\n", start); index !== -1 && index < end; index = text.indexOf("\n", index + 1)) count++;
  return count;
}

/**
 * A tool's text bounded for the model and for events: the model gets at most `maxChars` (head +
 * tail with a note), and a longer text is kept as `detailedContent` cut to
 * {@link MAX_DETAILED_OUTPUT_CHARS}. Used for shell output, application (custom) tools and MCP tools.
 *
 * @example
 * const { textForModel, detailedContent } = boundedToolText(hugeReply, MAX_MODEL_OUTPUT_CHARS, GENERIC_TRUNCATION_HINT);
 */
export function boundedToolText(text: string, maxChars: number, hint = GENERIC_TRUNCATION_HINT): Pick<ToolOutcome, "textForModel" | "detailedContent"> {
  if (text.length <= maxChars) return { textForModel: text };
  return { textForModel: truncateMiddle(text, maxChars, hint), detailedContent: truncateMiddle(text, Math.max(maxChars, MAX_DETAILED_OUTPUT_CHARS), hint) };
}

/**
 * The outcome with its texts within {@link MAX_ANY_TOOL_OUTPUT_CHARS} (model text) and
 * {@link MAX_DETAILED_OUTPUT_CHARS} (detailed text, error message); the same object when they
 * already are.
 */
export function withinToolOutputLimits<T extends ToolOutcome>(outcome: T): T {
  const modelTooLong = outcome.textForModel.length > MAX_ANY_TOOL_OUTPUT_CHARS;
  const detailedTooLong = (outcome.detailedContent?.length ?? 0) > MAX_DETAILED_OUTPUT_CHARS;
  const errorTooLong = (outcome.errorMessage?.length ?? 0) > MAX_DETAILED_OUTPUT_CHARS;
  if (!modelTooLong && !detailedTooLong && !errorTooLong) return outcome;
  const bounded = { ...outcome };
  if (modelTooLong) {
    bounded.detailedContent ??= outcome.textForModel;
    bounded.textForModel = truncateMiddle(outcome.textForModel, MAX_ANY_TOOL_OUTPUT_CHARS, GENERIC_TRUNCATION_HINT);
  }
  if (bounded.detailedContent !== undefined && bounded.detailedContent.length > MAX_DETAILED_OUTPUT_CHARS) {
    bounded.detailedContent = truncateMiddle(bounded.detailedContent, MAX_DETAILED_OUTPUT_CHARS, GENERIC_TRUNCATION_HINT);
  }
  if (errorTooLong && outcome.errorMessage !== undefined) {
    bounded.errorMessage = truncateMiddle(outcome.errorMessage, MAX_DETAILED_OUTPUT_CHARS, GENERIC_TRUNCATION_HINT);
  }
  return bounded;
}
