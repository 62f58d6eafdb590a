/**
 * OpenAI chat completions (`POST /chat/completions`), as spoken by OpenAI, the
 * Copilot API and OpenAI-compatible servers.
 */
import { contentText, splitArguments, splitText } from "../text.js";
import { isPlainObject, type PlainObject } from "../validate.js";
import { openAiErrorBody } from "./errors.js";
import { readRoleMessages } from "./role-messages.js";
import type { ConversationView, MessageSummary, ResolvedReply, ResolvedToolCall, SseEvent, WireFormat } from "./types.js";

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

/** What one choice of a response carries. */
interface ReplyChoice {
  content: string;
  reasoning: string;
  toolCalls: ResolvedToolCall[];
}

/**
 * The choices a reply is sent as: one, or (`splitChoices`) the turn split as the Copilot API
 * splits Claude's: text and reasoning in choice 0 (left out when there are none), then one choice
 * per tool call.
 */
function replyChoices(reply: ResolvedReply): ReplyChoice[] {
  const whole = { content: reply.content, reasoning: reply.reasoning, toolCalls: reply.toolCalls };
  if (!reply.splitChoices || reply.toolCalls.length === 0) return [whole];
  const choices: ReplyChoice[] = reply.content || reply.reasoning ? [{ ...whole, toolCalls: [] }] : [];
  for (const call of reply.toolCalls) choices.push({ content: "", reasoning: "", toolCalls: [call] });
  return choices;
}

function choiceMessage(choice: ReplyChoice): PlainObject {
  const message: PlainObject = {
    role: "assistant",
    content: choice.content || (choice.toolCalls.length > 0 ? null : ""),
  };
  if (choice.reasoning) message.reasoning_content = choice.reasoning;
  if (choice.toolCalls.length > 0) {
    message.tool_calls = choice.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return message;
}

function renderJson(reply: ResolvedReply): unknown {
  // Every choice of a split turn has the finish reason of the whole turn (`tool_calls`), text choice included.
  const choices = replyChoices(reply).map((choice, index) => ({ index, message: choiceMessage(choice), logprobs: null, finish_reason: finishReason(reply) }));
  return {
    id: `chatcmpl-${reply.responseId}`,
    object: "chat.completion",
    created: reply.created,
    model: reply.model,
    choices,
    usage: usageBody(reply),
  };
}

function* renderStream(reply: ResolvedReply, view: ConversationView): Iterable<SseEvent> {
  const chunk = (index: number, delta: PlainObject, reason: string | null = null): SseEvent => ({
    data: {
      id: `chatcmpl-${reply.responseId}`,
      object: "chat.completion.chunk",
      created: reply.created,
      model: reply.model,
      choices: [{ index, delta, logprobs: null, finish_reason: reason }],
    },
  });
  // A split turn streams its choices one after the other, each with its own `index`, each ending
  // with its own finish reason; tool-call indexes count within each choice (so each starts at 0).
  for (const [choiceIndex, choice] of replyChoices(reply).entries()) {
    yield chunk(choiceIndex, { role: "assistant", content: "" });
    for (const piece of splitText(choice.reasoning, reply.chunkSize)) yield chunk(choiceIndex, { reasoning_content: piece });
    for (const piece of splitText(choice.content, reply.chunkSize)) yield chunk(choiceIndex, { content: piece });
    for (const [index, call] of choice.toolCalls.entries()) {
      const header = { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
      yield chunk(choiceIndex, { tool_calls: [header] });
      for (const piece of splitArguments(call.arguments)) {
        yield chunk(choiceIndex, { tool_calls: [{ index, function: { arguments: piece } }] });
      }
    }
    yield chunk(choiceIndex, {}, finishReason(reply));
  }
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
