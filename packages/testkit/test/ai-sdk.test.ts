import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { parseScript } from "../src/index.js";
import { useServer } from "./helpers.js";

const startServer = useServer();

const script = parseScript(`
name: sdk
steps:
  - reply:
      reasoning: "Thinking it over."
      content: "Hello there, friend."
      usage: { inputTokens: 12, outputTokens: 4, cacheReadTokens: 2 }
  - reply:
      toolCalls:
        - { id: call_sdk, name: get_weather, arguments: { city: "Paris" } }
`);

const options = (prompt: LanguageModelV3CallOptions["prompt"]): LanguageModelV3CallOptions => ({
  prompt,
  tools: [
    {
      type: "function",
      name: "get_weather",
      description: "Get the weather",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  ],
});

async function collect(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe("@ai-sdk/openai-compatible against the server", () => {
  it("parses streamed text, reasoning, usage and tool calls", async () => {
    const { url } = await startServer({ scripts: [script] });
    const model = createOpenAICompatible({ name: "t", baseURL: url, apiKey: "x", includeUsage: true }).chatModel("gpt-4.1");

    const first = await model.doStream(options([{ role: "user", content: [{ type: "text", text: "hi" }] }]));
    const parts = await collect(first.stream);
    expect(parts.filter((part) => part.type === "error")).toEqual([]);
    const text = parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : [])).join("");
    const reasoning = parts.flatMap((part) => (part.type === "reasoning-delta" ? [part.delta] : [])).join("");
    expect(text).toBe("Hello there, friend.");
    expect(reasoning).toBe("Thinking it over.");
    const finish = parts.find((part) => part.type === "finish");
    expect(finish).toMatchObject({
      finishReason: { unified: "stop", raw: "stop" },
      usage: { inputTokens: { total: 12, cacheRead: 2 }, outputTokens: { total: 4 } },
    });

    const second = await model.doStream(
      options([
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: [{ type: "text", text: "Hello there, friend." }] },
        { role: "user", content: [{ type: "text", text: "weather in Paris?" }] },
      ]),
    );
    const toolParts = await collect(second.stream);
    expect(toolParts.filter((part) => part.type === "error")).toEqual([]);
    const toolCall = toolParts.find((part) => part.type === "tool-call");
    expect(toolCall).toMatchObject({ toolCallId: "call_sdk", toolName: "get_weather" });
    expect(JSON.parse((toolCall as { input: string }).input)).toEqual({ city: "Paris" });
    expect(toolParts.find((part) => part.type === "finish")).toMatchObject({ finishReason: { unified: "tool-calls" } });
  });

  it("parses non-streaming responses", async () => {
    const { url } = await startServer({ scripts: [script] });
    const model = createOpenAICompatible({ name: "t", baseURL: url, apiKey: "x" }).chatModel("gpt-4.1");
    const result = await model.doGenerate(options([{ role: "user", content: [{ type: "text", text: "hi" }] }]));
    expect(result.content).toEqual([
      expect.objectContaining({ type: "reasoning", text: "Thinking it over." }),
      expect.objectContaining({ type: "text", text: "Hello there, friend." }),
    ]);
  });
});
