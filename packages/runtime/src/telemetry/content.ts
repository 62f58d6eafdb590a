import type { ModelRequest, ModelResponse } from "../providers/types.js";

/** One message as the GenAI semantic conventions record it (`gen_ai.input.messages` / `gen_ai.output.messages`). */
export interface GenAiMessage {
  role: string;
  parts: Array<{ type: "text"; content: string } | { type: "tool_call"; id: string; name: string; arguments: string } | { type: "tool_call_response"; id: string; response: string }>;
}

/**
 * A model call's input as GenAI messages: the system prompt, then the history (tool calls and
 * their results as parts).
 *
 * @example
 * chatInputMessages(request)[1]; // { role: "user", parts: [{ type: "text", content: "hello" }] }
 */
export function chatInputMessages(request: Pick<ModelRequest, "system" | "messages">): GenAiMessage[] {
  const messages: GenAiMessage[] = request.system ? [{ role: "system", parts: [{ type: "text", content: request.system }] }] : [];
  for (const message of request.messages) {
    if (message.role === "tool") {
      messages.push({ role: "tool", parts: [{ type: "tool_call_response", id: message.toolCallId, response: message.content }] });
      continue;
    }
    if (message.role === "user") {
      messages.push({ role: "user", parts: [{ type: "text", content: message.content }] });
      continue;
    }
    messages.push({ role: "assistant", parts: [...(message.content ? [{ type: "text" as const, content: message.content }] : []), ...message.toolCalls.map((call) => ({ type: "tool_call" as const, id: call.id, name: call.name, arguments: call.rawArguments }))] });
  }
  return messages;
}

/** A model call's answer as GenAI messages: its text and the tool calls it asked for. */
export function chatOutputMessages(response: Pick<ModelResponse, "text" | "toolCalls">): GenAiMessage[] {
  return [{ role: "assistant", parts: [...(response.text ? [{ type: "text" as const, content: response.text }] : []), ...response.toolCalls.map((call) => ({ type: "tool_call" as const, id: call.id, name: call.name, arguments: call.rawArguments }))] }];
}
