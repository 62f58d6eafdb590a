import type { LanguageModelV3Prompt, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import type { ConversationMessage, ToolSpec } from "../loop/messages.js";

/**
 * Converts Tandem's provider-neutral conversation into the AI SDK's LanguageModelV3 prompt.
 * Tool-call arguments are parsed back from the model's raw text (invalid JSON becomes `{}`, which
 * is what the model was told when its arguments could not be read).
 */
export function toAiSdkPrompt(system: string, messages: readonly ConversationMessage[]): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  if (system) prompt.push({ role: "system", content: system });
  for (const message of messages) {
    switch (message.role) {
      case "user":
        prompt.push({ role: "user", content: [{ type: "text", text: message.content }] });
        break;
      case "assistant": {
        const content: Extract<LanguageModelV3Prompt[number], { role: "assistant" }>["content"] = [];
        if (message.reasoning?.text !== undefined || message.reasoning?.providerMetadata) {
          content.push({
            type: "reasoning",
            text: message.reasoning.text ?? "",
            ...(message.reasoning.providerMetadata ? { providerOptions: message.reasoning.providerMetadata as never } : {}),
          });
        }
        if (message.content) content.push({ type: "text", text: message.content });
        for (const call of message.toolCalls) {
          content.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: parseArguments(call.rawArguments) });
        }
        prompt.push({ role: "assistant", content });
        break;
      }
      case "tool": {
        const previous = prompt[prompt.length - 1];
        const part = {
          type: "tool-result" as const,
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          output: { type: "text" as const, value: message.content },
        };
        if (previous?.role === "tool") previous.content.push(part);
        else prompt.push({ role: "tool", content: [part] });
        break;
      }
    }
  }
  return prompt;
}

/** Tool specs as AI SDK function tools. */
export function toAiSdkTools(tools: readonly ToolSpec[]): LanguageModelV3FunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as LanguageModelV3FunctionTool["inputSchema"],
  }));
}

function parseArguments(raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    return {};
  }
}
