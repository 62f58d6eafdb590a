/**
 * OpenAI responses API (`POST /responses`).
 */
import { contentText, splitArguments, splitText } from "../text.js";
import { isPlainObject, type PlainObject } from "../validate.js";
import { openAiErrorBody } from "./errors.js";
import {
  BadRequestError,
  type ConversationView,
  type MessageSummary,
  type ResolvedReply,
  type SseEvent,
  type WireFormat,
} from "./types.js";

/** Input item types produced by the model (as opposed to the user or tools). */
const MODEL_ITEM_TYPES = new Set([
  "function_call",
  "reasoning",
  "item_reference",
  "custom_tool_call",
  "local_shell_call",
  "web_search_call",
  "file_search_call",
  "computer_call",
  "code_interpreter_call",
  "image_generation_call",
  "mcp_call",
]);

const TOOL_OUTPUT_ITEM_TYPES = new Set(["function_call_output", "custom_tool_call_output"]);

function readInputItems(body: PlainObject): PlainObject[] {
  const input = body.input;
  if (typeof input === "string") return [{ type: "message", role: "user", content: input }];
  if (!Array.isArray(input)) throw new BadRequestError("`input` must be a string or an array of items");
  return input.map((item, index) => {
    if (!isPlainObject(item)) throw new BadRequestError(`input[${index}] must be an object`);
    return item;
  });
}

function isModelItem(item: PlainObject): boolean {
  if (item.role === "assistant") return true;
  return typeof item.type === "string" && MODEL_ITEM_TYPES.has(item.type);
}

/** Number of maximal runs of consecutive model-side items (= model turns already taken). */
function countModelTurns(items: PlainObject[]): number {
  let turns = 0;
  let previousWasModel = false;
  for (const item of items) {
    const isModel = isModelItem(item);
    if (isModel && !previousWasModel) turns += 1;
    previousWasModel = isModel;
  }
  return turns;
}

function summarizeItem(item: PlainObject): MessageSummary {
  const type = typeof item.type === "string" ? item.type : "message";
  if (TOOL_OUTPUT_ITEM_TYPES.has(type)) return { role: "tool", text: contentText(item.output) };
  if (type === "function_call") return { role: "assistant", text: String(item.arguments ?? "") };
  if (typeof item.role === "string") return { role: item.role, text: contentText(item.content) };
  return { role: type, text: "" };
}

function inspect(body: PlainObject): ConversationView {
  const items = readInputItems(body);
  const firstUser = items.find((item) => item.role === "user");
  const last = items.at(-1);
  const include = Array.isArray(body.include) ? body.include : [];
  return {
    firstUserText: firstUser ? contentText(firstUser.content) : undefined,
    modelTurns: countModelTurns(items),
    lastMessage: last ? summarizeItem(last) : undefined,
    stream: body.stream === true,
    model: typeof body.model === "string" ? body.model : undefined,
    includeUsage: true,
    includeEncryptedReasoning: include.includes("reasoning.encrypted_content"),
  };
}

function usageBody(reply: ResolvedReply): PlainObject {
  const { inputTokens, outputTokens, cacheReadTokens } = reply.usage;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: cacheReadTokens },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
}

function responseBody(reply: ResolvedReply, status: string, output: PlainObject[], usage: PlainObject | null): PlainObject {
  return {
    id: `resp_${reply.responseId}`,
    object: "response",
    created_at: reply.created,
    status,
    error: null,
    incomplete_details: null,
    model: reply.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    usage,
    metadata: {},
  };
}

function reasoningItem(reply: ResolvedReply, view: ConversationView, summaryText: string | undefined): PlainObject {
  const item: PlainObject = {
    id: `rs_${reply.responseId}`,
    type: "reasoning",
    summary: summaryText === undefined ? [] : [{ type: "summary_text", text: summaryText }],
  };
  if (view.includeEncryptedReasoning) {
    item.encrypted_content = Buffer.from(JSON.stringify({ testkit: reply.responseId, reasoning: reply.reasoning })).toString("base64");
  }
  return item;
}

function messageItem(reply: ResolvedReply, text: string | undefined): PlainObject {
  const done = text !== undefined;
  return {
    id: `msg_${reply.responseId}`,
    type: "message",
    status: done ? "completed" : "in_progress",
    role: "assistant",
    content: done ? [outputTextPart(text)] : [],
  };
}

function outputTextPart(text: string): PlainObject {
  return { type: "output_text", text, annotations: [], logprobs: [] };
}

function functionCallItem(reply: ResolvedReply, index: number, args: string | undefined): PlainObject {
  const call = reply.toolCalls[index]!;
  return {
    id: `fc_${reply.responseId}_${index}`,
    type: "function_call",
    status: args === undefined ? "in_progress" : "completed",
    call_id: call.id,
    name: call.name,
    arguments: args ?? "",
  };
}

function hasMessage(reply: ResolvedReply): boolean {
  return reply.content.length > 0 || reply.toolCalls.length === 0;
}

/** The completed output items, in order: reasoning, message, function calls. */
function completedOutput(reply: ResolvedReply, view: ConversationView): PlainObject[] {
  const output: PlainObject[] = [];
  if (reply.reasoning) output.push(reasoningItem(reply, view, reply.reasoning));
  if (hasMessage(reply)) output.push(messageItem(reply, reply.content));
  reply.toolCalls.forEach((call, index) => output.push(functionCallItem(reply, index, call.arguments)));
  return output;
}

function renderJson(reply: ResolvedReply, view: ConversationView): unknown {
  return responseBody(reply, "completed", completedOutput(reply, view), usageBody(reply));
}

function* renderStream(reply: ResolvedReply, view: ConversationView): Iterable<SseEvent> {
  let sequence = 0;
  const event = (type: string, fields: PlainObject): SseEvent => ({
    event: type,
    data: { type, sequence_number: sequence++, ...fields },
  });
  const inProgress = responseBody(reply, "in_progress", [], null);
  yield event("response.created", { response: inProgress });
  yield event("response.in_progress", { response: inProgress });
  let outputIndex = 0;
  if (reply.reasoning) {
    const item = reasoningItem(reply, view, undefined);
    const at = { item_id: item.id, output_index: outputIndex, summary_index: 0 };
    yield event("response.output_item.added", { output_index: outputIndex, item });
    yield event("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } });
    for (const delta of splitText(reply.reasoning, reply.chunkSize)) {
      yield event("response.reasoning_summary_text.delta", { ...at, delta });
    }
    yield event("response.reasoning_summary_text.done", { ...at, text: reply.reasoning });
    yield event("response.reasoning_summary_part.done", { ...at, part: { type: "summary_text", text: reply.reasoning } });
    yield event("response.output_item.done", { output_index: outputIndex, item: reasoningItem(reply, view, reply.reasoning) });
    outputIndex += 1;
  }
  if (hasMessage(reply)) {
    const item = messageItem(reply, undefined);
    const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
    yield event("response.output_item.added", { output_index: outputIndex, item });
    yield event("response.content_part.added", { ...at, part: outputTextPart("") });
    for (const delta of splitText(reply.content, reply.chunkSize)) {
      yield event("response.output_text.delta", { ...at, delta, logprobs: [] });
    }
    yield event("response.output_text.done", { ...at, text: reply.content, logprobs: [] });
    yield event("response.content_part.done", { ...at, part: outputTextPart(reply.content) });
    yield event("response.output_item.done", { output_index: outputIndex, item: messageItem(reply, reply.content) });
    outputIndex += 1;
  }
  for (const [index, call] of reply.toolCalls.entries()) {
    const item = functionCallItem(reply, index, undefined);
    const at = { item_id: item.id, output_index: outputIndex };
    yield event("response.output_item.added", { output_index: outputIndex, item });
    for (const delta of splitArguments(call.arguments)) {
      yield event("response.function_call_arguments.delta", { ...at, delta });
    }
    yield event("response.function_call_arguments.done", { ...at, name: call.name, arguments: call.arguments });
    yield event("response.output_item.done", { output_index: outputIndex, item: functionCallItem(reply, index, call.arguments) });
    outputIndex += 1;
  }
  const completed = responseBody(reply, "completed", completedOutput(reply, view), usageBody(reply));
  yield event("response.completed", { response: completed });
}

/** The OpenAI responses API wire format. */
export const responsesFormat: WireFormat = {
  name: "responses",
  toolCallIdPrefix: "call_",
  inspect,
  renderJson,
  renderStream,
  renderError: openAiErrorBody,
};
