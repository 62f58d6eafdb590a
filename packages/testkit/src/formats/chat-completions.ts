/**
 * OpenAI chat completions (`POST /chat/completions`), as spoken by OpenAI, the
 * Copilot API and OpenAI-compatible servers.
 */
import { contentText, splitArguments, splitText } from "../text.js";
import { isPlainObject, type PlainObject } from "../validate.js";
import { openAiErrorBody } from "./errors.js";
import { readRoleMessages } from "./role-messages.js";
import type { ConversationView, MessageSummary, ResolvedReply, SseEvent, WireFormat } from "./types.js";

function summarizeMessage(message: PlainObject): MessageSummary {
  const texts = [contentText(message.content)];
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  for (const call of toolCalls) {
    const args = isPlainObject(call) && isPlainObject(call.function) ? call.function.arguments : undefined;
    if (typeof args === "string") texts.push(args);
  }
  return { role: message.role as string, text: texts.filter(Boolean).join("\n") };
}

function inspect(body: PlainObject): ConversationView {
  const messages = readRoleMessages(body);
  const firstUser = messages.find((message) => message.role === "user");
  const last = messages.at(-1);
  const streamOptions = isPlainObject(body.stream_options) ? body.stream_options : {};
  return {
    firstUserText: firstUser ? contentText(firstUser.content) : undefined,
    modelTurns: messages.filter((message) => message.role === "assistant").length,
    lastMessage: last ? summarizeMessage(last) : undefined,
    stream: body.stream === true,
    model: typeof body.model === "string" ? body.model : undefined,
    includeUsage: streamOptions.include_usage === true,
    includeEncryptedReasoning: false,
  };
}

function finishReason(reply: ResolvedReply): "stop" | "tool_calls" {
  return reply.toolCalls.length > 0 ? "tool_calls" : "stop";
}

function usageBody(reply: ResolvedReply): PlainObject {
  const { inputTokens, outputTokens, cacheReadTokens } = reply.usage;
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: cacheReadTokens },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function renderJson(reply: ResolvedReply): unknown {
  const message: PlainObject = {
    role: "assistant",
    content: reply.content || (reply.toolCalls.length > 0 ? null : ""),
  };
  if (reply.reasoning) message.reasoning_content = reply.reasoning;
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: `chatcmpl-${reply.responseId}`,
    object: "chat.completion",
    created: reply.created,
    model: reply.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
    usage: usageBody(reply),
  };
}

function* renderStream(reply: ResolvedReply, view: ConversationView): Iterable<SseEvent> {
  const chunk = (delta: PlainObject, reason: string | null = null): SseEvent => ({
    data: {
      id: `chatcmpl-${reply.responseId}`,
      object: "chat.completion.chunk",
      created: reply.created,
      model: reply.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: reason }],
    },
  });
  yield chunk({ role: "assistant", content: "" });
  for (const piece of splitText(reply.reasoning, reply.chunkSize)) yield chunk({ reasoning_content: piece });
  for (const piece of splitText(reply.content, reply.chunkSize)) yield chunk({ content: piece });
  for (const [index, call] of reply.toolCalls.entries()) {
    const header = { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
    yield chunk({ tool_calls: [header] });
    for (const piece of splitArguments(call.arguments)) {
      yield chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  }
  yield chunk({}, finishReason(reply));
  if (view.includeUsage) {
    yield {
      data: {
        id: `chatcmpl-${reply.responseId}`,
        object: "chat.completion.chunk",
        created: reply.created,
        model: reply.model,
        choices: [],
        usage: usageBody(reply),
      },
    };
  }
  yield { data: "[DONE]" };
}

/** The OpenAI chat completions wire format. */
export const chatCompletionsFormat: WireFormat = {
  name: "chat-completions",
  toolCallIdPrefix: "call_",
  inspect,
  renderJson,
  renderStream,
  renderError: openAiErrorBody,
};
