/**
 * Reasoning data without a server: the `assistant.message` fields and their way back (resume), and
 * reasoning going back only to the kind of provider that produced it.
 */
import { describe, expect, it } from "vitest";
import type { ConversationMessage, ReasoningData } from "../../src/loop/messages.js";
import { toAiSdkPrompt, type PromptTarget } from "../../src/providers/ai-sdk-prompt.js";
import { reasoningEventFields, reasoningFromBlocks, reasoningFromEventFields } from "../../src/providers/reasoning.js";

const anthropicTarget: PromptTarget = { reasoningOrigin: "anthropic", optionsKey: "anthropic" };
const responsesTarget: PromptTarget = { reasoningOrigin: "openai-responses", optionsKey: "openai" };
const azureResponsesTarget: PromptTarget = { reasoningOrigin: "openai-responses", optionsKey: "azure" };
const chatTarget: PromptTarget = { reasoningOrigin: undefined, optionsKey: "copilot" };

const signed = reasoningFromBlocks([{ text: "Think.", data: { signature: "sig-1" } }], "anthropic");
const encrypted = reasoningFromBlocks([{ text: "Summary.", data: { itemId: "rs_1", reasoningEncryptedContent: "enc-1" } }], "openai-responses");
const plain = reasoningFromBlocks([{ text: "Plain thoughts.", data: {} }], undefined);

function assistantWith(reasoning: ReasoningData | undefined): ConversationMessage[] {
  return [
    { role: "user", content: "hi" },
    { role: "assistant", content: "Hello.", toolCalls: [], ...(reasoning ? { reasoning } : {}) },
  ];
}

function assistantContent(messages: ConversationMessage[], target: PromptTarget): unknown[] {
  const prompt = toAiSdkPrompt("", messages, target);
  const assistant = prompt.find((message) => message.role === "assistant");
  return assistant?.role === "assistant" ? assistant.content : [];
}

describe("reasoningEventFields / reasoningFromEventFields", () => {
  it("puts an Anthropic signature in reasoningOpaque and rebuilds it", () => {
    const fields = reasoningEventFields(signed);
    expect(fields).toEqual({ reasoningText: "Think.", reasoningOpaque: "sig-1" });
    expect(reasoningFromEventFields(fields)).toEqual(signed);
  });

  it("puts OpenAI encrypted content in encryptedContent and rebuilds it (without the item id)", () => {
    const fields = reasoningEventFields(encrypted);
    expect(fields).toEqual({ reasoningText: "Summary.", encryptedContent: "enc-1" });
    expect(reasoningFromEventFields(fields)).toEqual(reasoningFromBlocks([{ text: "Summary.", data: { reasoningEncryptedContent: "enc-1" } }], "openai-responses"));
  });

  it("encodes several blocks, redacted ones included, as JSON and rebuilds them", () => {
    const several = reasoningFromBlocks(
      [
        { text: "First.", data: { signature: "sig-a" } },
        { text: "", data: { redactedData: "redacted-b" } },
        { text: "Third.", data: { signature: "sig-c" } },
      ],
      "anthropic",
    );
    const fields = reasoningEventFields(several);
    expect(fields.reasoningText).toBe("First.\n\nThird.");
    expect(JSON.parse(fields.reasoningOpaque!)).toEqual([{ text: "First.", signature: "sig-a" }, { redactedData: "redacted-b" }, { text: "Third.", signature: "sig-c" }]);
    expect(reasoningFromEventFields(fields)).toEqual(several);
  });

  it("keeps plain reasoning text as text only", () => {
    expect(reasoningEventFields(plain)).toEqual({ reasoningText: "Plain thoughts." });
    expect(reasoningFromEventFields({ reasoningText: "Plain thoughts." })).toEqual(plain);
    expect(reasoningFromEventFields({})).toBeUndefined();
    expect(reasoningEventFields(undefined)).toEqual({});
  });
});

describe("reasoning goes back only to the provider kind that produced it", () => {
  it("sends an Anthropic thinking block to Anthropic only", () => {
    const messages = assistantWith(signed);
    expect(assistantContent(messages, anthropicTarget)[0]).toEqual({ type: "reasoning", text: "Think.", providerOptions: { anthropic: { signature: "sig-1" } } });
    expect(assistantContent(messages, responsesTarget)).toEqual([{ type: "text", text: "Hello." }]);
    expect(assistantContent(messages, chatTarget)).toEqual([{ type: "text", text: "Hello." }]);
  });

  it("sends OpenAI encrypted reasoning to a responses API (OpenAI or Azure) only, by content not item id", () => {
    const messages = assistantWith(encrypted);
    expect(assistantContent(messages, responsesTarget)[0]).toEqual({ type: "reasoning", text: "Summary.", providerOptions: { openai: { reasoningEncryptedContent: "enc-1" } } });
    expect(assistantContent(messages, azureResponsesTarget)[0]).toEqual({ type: "reasoning", text: "Summary.", providerOptions: { azure: { reasoningEncryptedContent: "enc-1" } } });
    expect(assistantContent(messages, anthropicTarget)).toEqual([{ type: "text", text: "Hello." }]);
  });

  it("sends plain reasoning text to chat completions only", () => {
    const messages = assistantWith(plain);
    expect(assistantContent(messages, chatTarget)[0]).toEqual({ type: "reasoning", text: "Plain thoughts." });
    expect(assistantContent(messages, anthropicTarget)).toEqual([{ type: "text", text: "Hello." }]);
  });

  it("merges the summary parts of one OpenAI reasoning item", () => {
    const twoParts = reasoningFromBlocks(
      [
        { text: "Part one.", data: { itemId: "rs_1", reasoningEncryptedContent: "enc-1" } },
        { text: "Part two.", data: { itemId: "rs_1", reasoningEncryptedContent: "enc-1" } },
      ],
      "openai-responses",
    );
    expect(assistantContent(assistantWith(twoParts), responsesTarget)[0]).toEqual({
      type: "reasoning",
      text: "Part one.\n\nPart two.",
      providerOptions: { openai: { reasoningEncryptedContent: "enc-1" } },
    });
    expect(reasoningEventFields(twoParts).encryptedContent).toBe("enc-1");
  });
});
