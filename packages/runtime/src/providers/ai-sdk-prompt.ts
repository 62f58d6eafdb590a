import type { LanguageModelV3FunctionTool, LanguageModelV3Prompt, SharedV3ProviderOptions } from "@ai-sdk/provider";
import { parseToolArguments, type ConversationMessage, type ReasoningData, type ToolSpec } from "../ports/conversation.js";
import { groupByEncryptedContent, reasoningBlocks, reasoningOrigin, type ReasoningOrigin } from "./reasoning.js";

/** The provider a prompt is built for. */
export interface PromptTarget {
  /** Which reasoning the provider takes back (undefined: plain-text reasoning, chat completions). */
  reasoningOrigin: ReasoningOrigin | undefined;
  /** The key under which the provider package reads per-part options (`anthropic`, `openai`, `azure`, …). */
  optionsKey: string;
}

type AssistantContent = Extract<LanguageModelV3Prompt[number], { role: "assistant" }>["content"];
type ReasoningPart = Extract<AssistantContent[number], { type: "reasoning" }>;

/**
 * Converts Tandem's provider-neutral conversation into the AI SDK's LanguageModelV3 prompt for one
 * provider. Reasoning goes back only to the kind of provider that produced it (an Anthropic
 * signature to Anthropic, OpenAI encrypted content to a responses API, plain reasoning text to chat
 * completions) and is dropped otherwise. Tool-call arguments are parsed back from the model's raw
 * text (invalid JSON becomes `{}`, which is what the model was told when they could not be read).
 *
 * @example
 * const prompt = toAiSdkPrompt(system, messages, { reasoningOrigin: "anthropic", optionsKey: "anthropic" });
 *
 * A PDF attached to a user message goes as a document titled with its label, with citations
 * enabled when `options.citations` is set.
 */
export function toAiSdkPrompt(system: string, messages: readonly ConversationMessage[], target: PromptTarget, options: { citations?: boolean } = {}): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  if (system) prompt.push({ role: "system", content: system });
  // Images from tool results go in a user message right after the run of tool results: every
  // provider accepts images there, while chat completions cannot carry them in tool messages.
  let images: Array<{ toolCallId: string; mimeType: string; data: string }> = [];
  const flushImages = (): void => {
    if (images.length === 0) return;
    const content: Extract<LanguageModelV3Prompt[number], { role: "user" }>["content"] = [];
    for (const image of images) {
      content.push({ type: "text", text: `Image returned by tool call ${image.toolCallId}:` });
      content.push({ type: "file", data: image.data, mediaType: image.mimeType });
    }
    prompt.push({ role: "user", content });
    images = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") flushImages();
    switch (message.role) {
      case "user": {
        const content: Extract<LanguageModelV3Prompt[number], { role: "user" }>["content"] = [{ type: "text", text: message.content }];
        for (const image of message.images ?? []) {
          if (image.mimeType === "application/pdf") {
            const documentOptions = { title: image.label, ...(options.citations ? { citations: { enabled: true } } : {}) };
            content.push({ type: "file", data: image.data, mediaType: image.mimeType, providerOptions: { [target.optionsKey]: documentOptions } });
            continue;
          }
          content.push({ type: "text", text: image.label });
          content.push({ type: "file", data: image.data, mediaType: image.mimeType });
        }
        prompt.push({ role: "user", content });
        break;
      }
      case "assistant": {
        const content: AssistantContent = [...reasoningParts(message.reasoning, target)];
        if (message.content) content.push({ type: "text", text: message.content });
        for (const call of message.toolCalls) {
          content.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: parseToolArguments(call.rawArguments) });
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
        for (const image of message.images ?? []) images.push({ toolCallId: message.toolCallId, ...image });
        break;
      }
    }
  }
  flushImages();
  return prompt;
}

/**
 * The reasoning parts of an assistant message for `target`: nothing when the reasoning came from
 * another kind of provider. OpenAI reasoning items go back by encrypted content only (never by
 * item id: requests are sent with `store: false`, so the server keeps no items to refer to).
 *
 * @example
 * reasoningParts(message.reasoning, { reasoningOrigin: "anthropic", optionsKey: "anthropic" });
 * // [{ type: "reasoning", text: "…", providerOptions: { anthropic: { signature: "…" } } }]
 */
export function reasoningParts(reasoning: ReasoningData | undefined, target: PromptTarget): ReasoningPart[] {
  if (!reasoning || reasoningOrigin(reasoning) !== target.reasoningOrigin) return [];
  const blocks = reasoningBlocks(reasoning);
  switch (target.reasoningOrigin) {
    case undefined:
      return blocks.map((block) => ({ type: "reasoning", text: block.text }));
    case "anthropic":
      return blocks
        .filter((block) => typeof block.data.signature === "string" || typeof block.data.redactedData === "string")
        .map((block) => ({ type: "reasoning", text: block.text, providerOptions: options(target.optionsKey, block.data) }));
    case "openai-responses":
      return groupByEncryptedContent(blocks).map((item) => ({
        type: "reasoning",
        text: item.text,
        providerOptions: options(target.optionsKey, { reasoningEncryptedContent: item.encryptedContent }),
      }));
  }
}

/**
 * Tool specs as AI SDK function tools.
 *
 * @example
 * toAiSdkTools([{ name: "get_weather", description: "Weather", parameters: { type: "object" } }]);
 */
export function toAiSdkTools(tools: readonly ToolSpec[]): LanguageModelV3FunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters as LanguageModelV3FunctionTool["inputSchema"],
  }));
}

function options(key: string, data: Record<string, unknown>): SharedV3ProviderOptions {
  return { [key]: data } as SharedV3ProviderOptions;
}
