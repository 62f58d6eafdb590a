import type { ModelToolCall } from "../../ports/conversation.js";
import { ProviderError } from "../errors.js";
import { reasoningFromBlocks, type ReasoningBlock } from "../reasoning.js";
import type { ModelResponse, ModelUsage } from "../types.js";
import { generateToolCallId } from "./tool-calls.js";
import type { WireCompletion, WireContent, WireUsage } from "./wire.js";

/**
 * Token counts from a `usage` object, as the AI SDK reports them: all three numbers once a usage
 * object came (missing ones count 0), nothing without one.
 *
 * @example
 * usageFromWire({ prompt_tokens: 120, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 20 } });
 * // { inputTokens: 120, outputTokens: 30, cacheReadTokens: 20 }
 */
export function usageFromWire(usage: WireUsage | null | undefined): ModelUsage {
  if (usage === null || usage === undefined) return {};
  return {
    inputTokens: numberOrZero(usage.prompt_tokens),
    outputTokens: numberOrZero(usage.completion_tokens),
    cacheReadTokens: numberOrZero(usage.prompt_tokens_details?.cached_tokens),
  };
}

/**
 * A `finish_reason` as the unified value the AI SDK reports: `stop`, `length`, `content-filter`,
 * `tool-calls` (also for the legacy `function_call`) or `other`.
 *
 * @example
 * finishReasonFromWire("tool_calls"); // "tool-calls"
 */
export function finishReasonFromWire(reason: unknown): string {
  switch (reason) {
    case "stop":
      return "stop";
    case "length":
      return "length";
    case "content_filter":
      return "content-filter";
    case "function_call":
    case "tool_calls":
      return "tool-calls";
    default:
      return "other";
  }
}

/**
 * Calls `onText` / `onReasoning` for the non-empty pieces of a `content` given as parts: `text`
 * parts, and `thinking` parts (the text of their text chunks, joined).
 *
 * @example
 * forEachContentPart([{ type: "text", text: "Hi." }], (text) => (answer += text), (text) => (reasoning += text));
 */
export function forEachContentPart(content: WireContent, onText: (text: string) => void, onReasoning: (text: string) => void): void {
  if (typeof content === "string") {
    if (content !== "") onText(content);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content) {
    if (part?.type === "text" && typeof part.text === "string") {
      if (part.text !== "") onText(part.text);
    } else if (part?.type === "thinking" && Array.isArray(part.thinking)) {
      const texts = part.thinking.flatMap((chunk: unknown) => {
        const candidate = chunk as { type?: unknown; text?: unknown } | null;
        return candidate?.type === "text" && typeof candidate.text === "string" ? [candidate.text] : [];
      });
      const text = texts.join("");
      if (text !== "") onReasoning(text);
    }
  }
}

/**
 * The {@link ModelResponse} of a non-streaming answer (the body text of a 2xx response).
 * Reasoning comes from `reasoning_content` (or `reasoning`) and `thinking` content parts, as
 * plain text; tool calls keep their raw argument text.
 *
 * An answer with several choices is one assistant turn split up (the Copilot API answers Claude
 * models with the text in one choice and each tool call, or group of calls, in the next ones), so
 * every choice is read, in the order of their `index`, into one response — see
 * {@link mergedFinishReason} for its finish reason. Texts are joined without a separator, as
 * streamed deltas are: a split turn has its text in one choice only.
 *
 * @example
 * completionResponse('{"id":"chatcmpl-1","choices":[{"message":{"content":"Hi."},"finish_reason":"stop"}]}', "req-1").text; // "Hi."
 */
export function completionResponse(bodyText: string, providerCallId: string | undefined): ModelResponse {
  const body = parseCompletion(bodyText, providerCallId);
  const choices = inIndexOrder(body.choices ?? []);
  if (choices.length === 0) throw new ProviderError("Model provider error: Response did not contain any choices.", "provider", undefined, providerCallId, false, undefined);
  const reasoning: ReasoningBlock[] = [];
  let text = "";
  const toolCalls: ModelToolCall[] = [];
  for (const choice of choices) {
    const message = choice.message ?? {};
    const reasoningText = typeof message.reasoning_content === "string" ? message.reasoning_content : message.reasoning;
    if (typeof reasoningText === "string" && reasoningText !== "") reasoning.push({ text: reasoningText, data: {} });
    forEachContentPart(
      message.content,
      (piece) => (text += piece),
      (piece) => reasoning.push({ text: piece, data: {} }),
    );
    for (const call of message.tool_calls ?? []) {
      const id = typeof call.id === "string" ? call.id : generateToolCallId();
      toolCalls.push({ id, name: call.function?.name as string, rawArguments: call.function?.arguments as string });
    }
  }
  const reasoningData = reasoningFromBlocks(reasoning, undefined);
  const responseId = typeof body.id === "string" && body.id !== "" ? body.id : undefined;
  return {
    text,
    ...(reasoningData ? { reasoning: reasoningData } : {}),
    toolCalls,
    usage: usageFromWire(body.usage),
    finishReason: mergedFinishReason(choices.map((choice) => choice.finish_reason)),
    ...(responseId ? { responseId } : {}),
    ...(providerCallId ? { providerCallId } : {}),
  };
}

/**
 * The finish reason of an answer split over several choices (given in index order): `tool-calls`
 * when any choice asked for tools, else the first one a choice gave (`other` when none did).
 *
 * @example
 * mergedFinishReason(["stop", "tool_calls"]); // "tool-calls"
 * mergedFinishReason([null, "length"]); // "length"
 */
export function mergedFinishReason(reasons: readonly unknown[]): string {
  let first: unknown;
  for (const reason of reasons) {
    if (reason === undefined || reason === null) continue;
    if (finishReasonFromWire(reason) === "tool-calls") return "tool-calls";
    first ??= reason;
  }
  return finishReasonFromWire(first);
}

/** The choices ordered by their `index` (a stable sort), or as sent when one has no numeric index. */
function inIndexOrder<T extends { index?: unknown }>(choices: readonly T[]): readonly T[] {
  if (choices.length < 2 || !choices.every((choice) => typeof choice.index === "number")) return choices;
  return [...choices].sort((a, b) => (a.index as number) - (b.index as number));
}

/** Parses the body and checks the fields the answer is read from (what the AI SDK's schema requires). */
function parseCompletion(bodyText: string, providerCallId: string | undefined): WireCompletion {
  const invalid = (): ProviderError => new ProviderError("Model provider error: Invalid JSON response", "provider", undefined, providerCallId, false, undefined);
  let body: WireCompletion;
  try {
    body = JSON.parse(bodyText.charCodeAt(0) === 0xfeff ? bodyText.slice(1) : bodyText) as WireCompletion;
  } catch {
    throw invalid();
  }
  if (typeof body !== "object" || body === null || !Array.isArray(body.choices)) throw invalid();
  for (const choice of body.choices) {
    if (typeof choice?.message !== "object" || choice.message === null) throw invalid();
    const calls = choice.message.tool_calls;
    if (calls === undefined || calls === null) continue;
    if (!Array.isArray(calls)) throw invalid();
    for (const call of calls) {
      if (typeof call?.function?.name !== "string" || typeof call.function.arguments !== "string") throw invalid();
    }
  }
  return body;
}

function numberOrZero(value: unknown): number {
  return typeof value === "number" ? value : 0;
}
