import { parseToolArguments, type ConversationMessage, type ModelToolCall, type ReasoningData, type ToolSpec, type UserImage } from "../../ports/conversation.js";
import { reasoningOrigin } from "../reasoning.js";
import type { ModelRequest } from "../types.js";
import type { ChatMessage, ChatRequestBody, ChatTool, ChatToolCall, ChatUserPart } from "./wire.js";

/** `"stream":true` with `stream_options.include_usage`, as text (spliced into the body). */
const streamFields = `,"stream":true,"stream_options":{"include_usage":true}`;

/**
 * The `tools` array of a request as JSON, remembered for the last tool list: a session sends the
 * same list (the same array, see `Session.toolSpecs`) with every model call, and serialising ~25
 * tool schemas again each time was the larger part of building a request body.
 */
export class ToolsJsonCache {
  private tools: readonly ToolSpec[] | undefined;
  private cacheMarks = false;
  private json = "";

  /** The JSON of `tools` (with the Copilot API's cache mark on the last one when `cacheMarks`). */
  get(tools: readonly ToolSpec[], cacheMarks: boolean): string {
    if (tools !== this.tools || cacheMarks !== this.cacheMarks) {
      this.json = toolsJson(tools, cacheMarks);
      this.tools = tools;
      this.cacheMarks = cacheMarks;
    }
    return this.json;
  }
}

function toolsJson(tools: readonly ToolSpec[], cacheMarks: boolean): string {
  const chatTools = tools.map(toChatTool);
  const lastTool = chatTools.at(-1);
  if (cacheMarks && lastTool) lastTool.copilot_cache_control = ephemeralCache;
  return JSON.stringify(chatTools);
}

/**
 * The JSON body of one chat-completions request, in the shape `@ai-sdk/openai-compatible` sends:
 * `model`, `reasoning_effort` (when set), `messages`, on the Copilot API (`cacheMarks`) the
 * request's `thinking_budget` (when set), `tools` (when any), and for a stream `stream: true` with
 * `stream_options.include_usage`.
 *
 * @example
 * const body = chatCompletionsBody({ model: "gpt-4.1", system: "Be brief.", messages, tools: [], stream: true, signal });
 * // '{"model":"gpt-4.1","messages":[{"role":"system","content":"Be brief."},…],"stream":true,"stream_options":{"include_usage":true}}'
 */
export function chatCompletionsBody(request: ModelRequest, options: { cacheMarks?: boolean; toolsCache?: ToolsJsonCache } = {}): string {
  const cacheMarks = options.cacheMarks === true;
  const messages = toChatMessages(request.system, request.messages);
  if (cacheMarks) markMessageBreakpoints(messages);
  const head: Pick<ChatRequestBody, "model" | "reasoning_effort" | "messages" | "thinking_budget"> = {
    model: request.model,
    reasoning_effort: request.reasoningEffort || undefined,
    messages,
    // A field of the Copilot API only: other OpenAI-compatible servers may refuse unknown fields.
    thinking_budget: cacheMarks ? request.thinkingBudget : undefined,
  };
  // The same key order as one JSON.stringify of the whole body, with the tools spliced in.
  let body = JSON.stringify(head).slice(0, -1);
  if (request.tools.length > 0) body += `,"tools":${options.toolsCache ? options.toolsCache.get(request.tools, cacheMarks) : toolsJson(request.tools, cacheMarks)}`;
  if (request.stream) body += streamFields;
  return `${body}}`;
}

const ephemeralCache = { type: "ephemeral" } as const;

/**
 * The Copilot API's prompt-cache breakpoints on messages (as the reference runtime sets them): the system message and the
 * last message that is not the user's (assistant or tool); the third, the last tool, is marked in
 * {@link toolsJson}. Marks the objects just built, in place (no copy on the hot path).
 */
function markMessageBreakpoints(messages: ChatMessage[]): void {
  const first = messages[0];
  if (first?.role === "system") first.copilot_cache_control = ephemeralCache;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as ChatMessage;
    if (message.role === "user") continue;
    if (message.role !== "system") message.copilot_cache_control = ephemeralCache;
    break;
  }
}

/**
 * Tandem's provider-neutral conversation as chat-completions messages. Plain reasoning text goes
 * back as `reasoning_content` (reasoning from another kind of provider is dropped); tool-call
 * arguments are re-serialised from the model's raw text (invalid JSON becomes `{}`); images from
 * tool results follow the run of tool results in a user message, since tool messages cannot carry
 * them.
 *
 * @example
 * toChatMessages("", [{ role: "user", content: "hi" }]); // [{ role: "user", content: "hi" }]
 */
export function toChatMessages(system: string, messages: readonly ConversationMessage[]): ChatMessage[] {
  const chatMessages: ChatMessage[] = [];
  if (system) chatMessages.push({ role: "system", content: system });
  let images: ChatUserPart[] = [];
  for (const message of messages) {
    if (message.role !== "tool" && images.length > 0) {
      chatMessages.push({ role: "user", content: images });
      images = [];
    }
    switch (message.role) {
      case "user":
        chatMessages.push({ role: "user", content: message.images?.length ? userParts(message.content, message.images) : message.content });
        break;
      case "assistant": {
        const hasToolCalls = message.toolCalls.length > 0;
        chatMessages.push({
          role: "assistant",
          content: hasToolCalls ? message.content || null : message.content,
          reasoning_content: plainReasoning(message.reasoning),
          tool_calls: hasToolCalls ? message.toolCalls.map(toChatToolCall) : undefined,
        });
        break;
      }
      case "tool":
        chatMessages.push({ role: "tool", tool_call_id: message.toolCallId, content: message.content });
        for (const image of message.images ?? []) {
          images.push({ type: "text", text: image.caption ?? `Image returned by tool call ${message.toolCallId}:` });
          images.push({ type: "image_url", image_url: { url: `data:${imageMediaType(image.mimeType)};base64,${image.data}` } });
        }
        break;
    }
  }
  if (images.length > 0) chatMessages.push({ role: "user", content: images });
  return chatMessages;
}

/** A user message with attached images: the text, then each image's label and the image. */
function userParts(text: string, images: readonly UserImage[]): ChatUserPart[] {
  const parts: ChatUserPart[] = [{ type: "text", text }];
  for (const image of images) {
    if (!image.mimeType.startsWith("image/")) {
      // A document sent to a provider that reads documents, now going to one that does not.
      parts.push({ type: "text", text: `[${image.label}: an attachment of type ${image.mimeType} was not sent; this provider takes only images.]` });
      continue;
    }
    parts.push({ type: "text", text: image.label });
    parts.push({ type: "image_url", image_url: { url: `data:${imageMediaType(image.mimeType)};base64,${image.data}` } });
  }
  return parts;
}

function toChatTool(tool: ToolSpec): ChatTool {
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

function toChatToolCall(call: ModelToolCall): ChatToolCall {
  return { id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(parseToolArguments(call.rawArguments)) } };
}

/** The reasoning text chat completions takes back: only plain reasoning (no signature, no encrypted content). */
function plainReasoning(reasoning: ReasoningData | undefined): string | undefined {
  if (!reasoning?.text || reasoningOrigin(reasoning) !== undefined) return undefined;
  return reasoning.text;
}

function imageMediaType(mimeType: string): string {
  return mimeType === "image/*" ? "image/jpeg" : mimeType;
}
