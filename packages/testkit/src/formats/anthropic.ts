/**
 * Anthropic messages API (`POST /v1/messages`).
 */
import { createHash } from "node:crypto";
import { contentText, splitArguments, splitText } from "../text.js";
import { isPlainObject, type PlainObject } from "../validate.js";
import { anthropicErrorBody } from "./errors.js";
import { readRoleMessages } from "./role-messages.js";
import type { ConversationView, MessageSummary, ResolvedReply, SseEvent, WireFormat } from "./types.js";

function hasToolResult(message: PlainObject): boolean {
  return Array.isArray(message.content) && message.content.some((block) => isPlainObject(block) && block.type === "tool_result");
}

function summarizeMessage(message: PlainObject): MessageSummary {
  const role = message.role === "user" && hasToolResult(message) ? "tool" : (message.role as string);
  return { role, text: contentText(message.content) };
}

function inspect(body: PlainObject): ConversationView {
  const messages = readRoleMessages(body);
  const firstUser = messages.find((message) => message.role === "user");
  const last = messages.at(-1);
  return {
    firstUserText: firstUser ? contentText(firstUser.content) : undefined,
    modelTurns: messages.filter((message) => message.role === "assistant").length,
    lastMessage: last ? summarizeMessage(last) : undefined,
    stream: body.stream === true,
    model: typeof body.model === "string" ? body.model : undefined,
    includeUsage: true,
    includeEncryptedReasoning: false,
  };
}

/** A stable fake signature for a thinking block. */
function thinkingSignature(reply: ResolvedReply): string {
  return createHash("sha256").update(`testkit:${reply.responseId}:${reply.reasoning}`).digest("base64");
}

/** Tool input object; arguments that are not a JSON object are passed through raw (tests of malformed input). */
function toolInput(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

function stopReason(reply: ResolvedReply): "tool_use" | "end_turn" {
  return reply.toolCalls.length > 0 ? "tool_use" : "end_turn";
}

/** Anthropic's `input_tokens` excludes cache reads, which are reported separately. */
function usageBody(reply: ResolvedReply, outputTokens: number): PlainObject {
  const { inputTokens, cacheReadTokens } = reply.usage;
  return {
    input_tokens: Math.max(0, inputTokens - cacheReadTokens),
    output_tokens: outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cacheReadTokens,
  };
}

function messageBody(reply: ResolvedReply, content: PlainObject[], stop: string | null, outputTokens: number): PlainObject {
  return {
    id: `msg_${reply.responseId}`,
    type: "message",
    role: "assistant",
    model: reply.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: usageBody(reply, outputTokens),
  };
}

function renderJson(reply: ResolvedReply): unknown {
  const content: PlainObject[] = [];
  if (reply.reasoning) content.push({ type: "thinking", thinking: reply.reasoning, signature: thinkingSignature(reply) });
  if (reply.content) content.push({ type: "text", text: reply.content });
  for (const call of reply.toolCalls) {
    content.push({ type: "tool_use", id: call.id, name: call.name, input: toolInput(call.arguments) });
  }
  return messageBody(reply, content, stopReason(reply), reply.usage.outputTokens);
}

function* renderStream(reply: ResolvedReply): Iterable<SseEvent> {
  const event = (type: string, fields: PlainObject = {}): SseEvent => ({ event: type, data: { type, ...fields } });
  yield event("message_start", { message: messageBody(reply, [], null, 1) });
  yield event("ping");
  let index = 0;
  if (reply.reasoning) {
    yield event("content_block_start", { index, content_block: { type: "thinking", thinking: "" } });
    for (const thinking of splitText(reply.reasoning, reply.chunkSize)) {
      yield event("content_block_delta", { index, delta: { type: "thinking_delta", thinking } });
    }
    yield event("content_block_delta", { index, delta: { type: "signature_delta", signature: thinkingSignature(reply) } });
    yield event("content_block_stop", { index });
    index += 1;
  }
  if (reply.content) {
    yield event("content_block_start", { index, content_block: { type: "text", text: "" } });
    for (const text of splitText(reply.content, reply.chunkSize)) {
      yield event("content_block_delta", { index, delta: { type: "text_delta", text } });
    }
    yield event("content_block_stop", { index });
    index += 1;
  }
  for (const call of reply.toolCalls) {
    yield event("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } });
    for (const partial_json of splitArguments(call.arguments)) {
      yield event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
    }
    yield event("content_block_stop", { index });
    index += 1;
  }
  const usage = usageBody(reply, reply.usage.outputTokens);
  yield event("message_delta", { delta: { stop_reason: stopReason(reply), stop_sequence: null }, usage });
  yield event("message_stop");
}

/** The Anthropic messages wire format. */
export const anthropicFormat: WireFormat = {
  name: "anthropic",
  toolCallIdPrefix: "toolu_",
  inspect,
  renderJson,
  renderStream,
  renderError: anthropicErrorBody,
};
