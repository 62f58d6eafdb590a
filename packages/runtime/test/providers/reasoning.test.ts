/**
 * Reasoning over the wire: the reasoning effort reaching each provider in its own shape, and the
 * reasoning a provider returned (Anthropic signature, OpenAI encrypted content) sent back to it.
 */
import { describe, expect, it } from "vitest";
import { clientFor, requestBody, runToolConversation, useModelServer, wireFormats } from "./helpers.js";

const startServer = useModelServer();
const reasoningText = "The user wants the weather in Paris; the tool knows it.";
const [chat, responses, anthropic, azure] = wireFormats as [(typeof wireFormats)[0], (typeof wireFormats)[0], (typeof wireFormats)[0], (typeof wireFormats)[0]];

describe("anthropic extended thinking", () => {
  it.each([false, true])("maps the effort to a thinking budget and sends the signed thinking block back (stream: %s)", async (stream) => {
    const { server, proxy } = await startServer(["provider-tool-turns"]);
    const { first, parts } = await runToolConversation(clientFor(anthropic.provider(proxy.url)), anthropic.model, { stream, reasoningEffort: "high" });

    expect(requestBody(server, 0).thinking).toEqual({ type: "enabled", budget_tokens: 16_000 });
    expect(first.reasoning?.text).toBe(reasoningText);
    const signature = (first.reasoning?.providerMetadata?.anthropic?.blocks as Array<{ data: { signature?: string } }>)[0]?.data.signature;
    expect(signature).toEqual(expect.any(String));

    const assistant = requestBody(server, 1).messages[1];
    expect(assistant.role).toBe("assistant");
    expect(assistant.content[0]).toEqual({ type: "thinking", thinking: reasoningText, signature });
    expect(assistant.content.map((block: { type: string }) => block.type)).toEqual(["thinking", "text", "tool_use"]);
    if (stream) expect(parts.flatMap((part) => (part.type === "reasoning-delta" ? [part.delta] : [])).join("")).toBe(reasoningText);
  });

  it("sends no thinking settings without an effort", async () => {
    const { server, proxy } = await startServer(["provider-tool-turns"]);
    await runToolConversation(clientFor(anthropic.provider(proxy.url)), anthropic.model);
    expect(requestBody(server, 0).thinking).toBeUndefined();
  });

  it.each([
    ["low", 4_000],
    ["medium", 10_000],
    ["xhigh", 31_999],
  ])("maps %s to a budget of %d tokens", async (effort, budget) => {
    const { server, proxy } = await startServer(["provider-tool-turns"]);
    await runToolConversation(clientFor(anthropic.provider(proxy.url)), anthropic.model, { reasoningEffort: effort });
    expect(requestBody(server, 0).thinking).toEqual({ type: "enabled", budget_tokens: budget });
  });
});

describe("openai responses reasoning", () => {
  it.each([false, true])("asks for encrypted reasoning and hands it back on the next request (stream: %s)", async (stream) => {
    const { server, proxy } = await startServer(["provider-tool-turns"]);
    const { first } = await runToolConversation(clientFor(responses.provider(proxy.url)), responses.model, { stream, reasoningEffort: "high" });

    const body = requestBody(server, 0);
    expect(body.reasoning).toEqual({ effort: "high", summary: "auto" });
    expect(body.store).toBe(false);
    expect(body.include).toContain("reasoning.encrypted_content");
    expect(first.reasoning?.text).toBe(reasoningText);
    const block = (first.reasoning?.providerMetadata?.["openai-responses"]?.blocks as Array<{ data: Record<string, string> }>)[0];
    expect(block?.data.itemId).toMatch(/^rs_/);
    const encrypted = block?.data.reasoningEncryptedContent;
    expect(encrypted).toEqual(expect.any(String));

    const reasoningItem = requestBody(server, 1).input.find((item: { type?: string }) => item.type === "reasoning");
    expect(reasoningItem).toEqual({ type: "reasoning", encrypted_content: encrypted, summary: [{ type: "summary_text", text: reasoningText }] });
  });

  it("falls back from xhigh to high when the model refuses it, and remembers", async () => {
    const { server, proxy } = await startServer([
      `
name: xhigh-refused
steps:
  - error: { status: 400, times: 1, message: "Unsupported value: 'xhigh' is not supported with this model. Supported values are: 'low', 'medium', and 'high'." }
    reply:
      content: "Let me check."
      toolCalls: [{ id: call_weather_1, name: get_weather, arguments: { city: "Paris" } }]
  - reply: { content: "Sunny." }
`,
    ]);
    await runToolConversation(clientFor(responses.provider(proxy.url)), responses.model, { reasoningEffort: "xhigh" });
    const efforts = server.requests.map((request) => (request.body as { reasoning?: { effort?: string } }).reasoning?.effort);
    expect(efforts).toEqual(["xhigh", "high", "high"]);
  });

  it("sends reasoning.effort for a model of any name", async () => {
    const { server, proxy } = await startServer(["provider-tool-turns"]);
    await runToolConversation(clientFor(responses.provider(proxy.url)), "my-local-reasoner", { reasoningEffort: "low" });
    expect(requestBody(server, 0).reasoning).toEqual({ effort: "low", summary: "auto" });
  });
});

describe("chat completions reasoning", () => {
  it("sends reasoning_effort and hands plain reasoning text back", async () => {
    const { server, proxy } = await startServer(["provider-tool-turns"]);
    const { first } = await runToolConversation(clientFor(chat.provider(proxy.url)), chat.model, { stream: true, reasoningEffort: "medium" });
    expect(requestBody(server, 0).reasoning_effort).toBe("medium");
    expect(first.reasoning).toEqual({ text: reasoningText });
    expect(requestBody(server, 1).messages[2]).toMatchObject({ role: "assistant", reasoning_content: reasoningText });
  });
});

describe("azure reasoning", () => {
  it("sends reasoning_effort to a deployment's chat completions", async () => {
    const { server, proxy } = await startServer(["provider-tool-turns"]);
    await runToolConversation(clientFor(azure.provider(proxy.url)), azure.model, { reasoningEffort: "high" });
    expect(requestBody(server, 0).reasoning_effort).toBe("high");
  });

  it("round-trips encrypted reasoning through the v1 responses API", async () => {
    const { server, proxy } = await startServer(["provider-tool-turns"]);
    const provider = { type: "azure" as const, wireApi: "responses" as const, baseUrl: proxy.url, apiKey: "azure-key" };
    const { first, second } = await runToolConversation(clientFor(provider), azure.model, { stream: true, reasoningEffort: "medium" });
    expect(second.text).toBe("It is 72 degrees in Paris.");
    expect(proxy.requests.map((request) => request.url)).toEqual(["/openai/v1/responses", "/openai/v1/responses"]);
    expect(requestBody(server, 0).reasoning).toEqual({ effort: "medium", summary: "auto" });
    const encrypted = (first.reasoning?.providerMetadata?.["openai-responses"]?.blocks as Array<{ data: Record<string, string> }>)[0]?.data.reasoningEncryptedContent;
    const reasoningItem = requestBody(server, 1).input.find((item: { type?: string }) => item.type === "reasoning");
    expect(reasoningItem?.encrypted_content).toBe(encrypted);
  });
});
