/**
 * Turning a script reply into a fully specified reply (ids, argument strings, usage).
 */
import { randomBytes } from "node:crypto";
import type { ResolvedReply, ResolvedToolCall } from "./formats/types.js";
import type { ReplySpec, ToolCallSpec } from "./script.js";
import { estimateTokens } from "./text.js";

/** Request facts a reply depends on. */
export interface ReplyContext {
  /** Model name to echo. */
  model: string;
  /** Length of the raw request body, used to estimate input tokens. */
  requestCharacters: number;
  /** Prefix of generated tool-call ids. */
  toolCallIdPrefix: string;
}

function randomId(): string {
  return randomBytes(12).toString("hex");
}

function resolveToolCall(call: ToolCallSpec, idPrefix: string): ResolvedToolCall {
  const args = call.arguments ?? {};
  return {
    id: call.id ?? `${idPrefix}${randomId()}`,
    name: call.name,
    arguments: typeof args === "string" ? args : JSON.stringify(args),
  };
}

/** Fills in everything a wire format needs to render `spec`. */
export function resolveReply(spec: ReplySpec, context: ReplyContext): ResolvedReply {
  const content = (spec.content ?? "").repeat(spec.repeat ?? 1);
  const reasoning = spec.reasoning ?? "";
  const toolCalls = (spec.toolCalls ?? []).map((call) => resolveToolCall(call, context.toolCallIdPrefix));
  const outputCharacters = content.length + reasoning.length + toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
  return {
    responseId: randomId(),
    model: context.model,
    content,
    reasoning,
    toolCalls,
    usage: {
      inputTokens: spec.usage?.inputTokens ?? estimateTokens(context.requestCharacters),
      outputTokens: spec.usage?.outputTokens ?? estimateTokens(outputCharacters),
      cacheReadTokens: spec.usage?.cacheReadTokens ?? 0,
    },
    created: Math.floor(Date.now() / 1000),
    chunkSize: spec.chunkSize,
    splitChoices: spec.splitChoices === true,
  };
}
