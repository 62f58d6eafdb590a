/**
 * The chat-completions client against the AI SDK's `@ai-sdk/openai-compatible` chat model it
 * replaces, on the same wire: the same request bodies for the same conversation, the same
 * answers and deltas from the same streams and JSON bodies, the same failures.
 *
 * Only answers with one choice are compared: the AI SDK reads choice 0 alone, so an answer split
 * over several choices (the Copilot API's shape for Claude models) loses its tool calls there,
 * while Tandem merges every choice (see chat-completions-choices.test.ts).
 */
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { ConversationMessage } from "../../src/loop/messages.js";
import { AiSdkModelClient, type AiSdkAdapter } from "../../src/providers/ai-sdk-client.js";
import { ChatCompletionsClient } from "../../src/providers/chat-completions/client.js";
import { ConnectionPool } from "../../src/providers/chat-completions/connections.js";
import { fetchModelList } from "../../src/providers/model-list.js";
import { reasoningFromBlocks } from "../../src/providers/reasoning.js";
import type { ModelClient, ModelRequest, ModelStreamPart } from "../../src/providers/types.js";
import { modelRequest, weatherTool } from "./helpers.js";
import { chunk, sseText, startSse, useRawServer, type RawRequest } from "./raw-server.js";

const startRawServer = useRawServer();
const timeouts = { requestTimeoutMs: 10_000, streamIdleTimeoutMs: 5_000 };
const pools: ConnectionPool[] = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});

/** The adapter `resolve.ts` used before the chat-completions client, as it was. */
function aiSdkAdapter(baseUrl: string): AiSdkAdapter {
  const headers = { Authorization: "Bearer sk-test" };
  return {
    name: "openai",
    optionsKey: "openai",
    reasoningOrigin: undefined,
    async createModel(modelId, fetchImpl) {
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({ name: "openai", baseURL: baseUrl, headers, includeUsage: true, fetch: fetchImpl }).chatModel(modelId);
    },
    providerOptions: (request) => (request.reasoningEffort ? { openai: { reasoningEffort: request.reasoningEffort } } : undefined),
    listModels: (fetchImpl) => fetchModelList(`${baseUrl}/models`, headers, fetchImpl, { contextWindowTokens: 128_000, reasoningEffort: false }),
  };
}

function bothClients(url: string): Array<[string, ModelClient]> {
  const pool = new ConnectionPool();
  pools.push(pool);
  return [
    ["ai-sdk", new AiSdkModelClient(aiSdkAdapter(url), timeouts)],
    ["tandem", new ChatCompletionsClient({ name: "openai", baseUrl: url, bearerToken: "sk-test" }, timeouts, pool)],
  ];
}

type Answer = (request: RawRequest, response: ServerResponse) => void;

const sse =
  (text: string): Answer =>
  (_request, response) => {
    startSse(response);
    response.end(text);
  };
const json =
  (body: unknown, status = 200, headers: Record<string, string> = {}): Answer =>
  (_request, response) => {
    response.writeHead(status, { "content-type": "application/json", "x-request-id": "req-json", ...headers });
    response.end(typeof body === "string" ? body : JSON.stringify(body));
  };

/** Runs `request` through both clients against one answer; returns what each produced (or threw). */
async function compare(answer: Answer, request: ModelRequest): Promise<Array<{ outcome: unknown; deltas: ModelStreamPart[]; body: unknown }>> {
  const { url, requests } = await startRawServer(answer);
  const results = [];
  for (const [, client] of bothClients(url)) {
    const deltas: ModelStreamPart[] = [];
    const outcome = await client.generate(request, (part) => part.type !== "bytes" && deltas.push(part)).catch((error: unknown) => describeError(error));
    results.push({ outcome, deltas, body: JSON.parse(requests.at(-1)!.body) as unknown });
  }
  return results;
}

function describeError(error: unknown): Record<string, unknown> {
  const { message, errorType, statusCode, retryable, retryAfterMs, providerCallId } = error as Record<string, unknown>;
  return { message, errorType, statusCode, retryable, retryAfterMs, providerCallId };
}

const question: ConversationMessage[] = [{ role: "user", content: "What is the weather in Paris?" }];

describe("request bodies", () => {
  const conversation: ConversationMessage[] = [
    { role: "user", content: "Weather in Paris and Rome, and a picture?" },
    {
      role: "assistant",
      content: "",
      reasoning: { text: "Two cities; call the tool twice." },
      toolCalls: [
        { id: "call_1", name: "get_weather", rawArguments: '{ "city" : "Paris" }' },
        { id: "call_2", name: "get_weather", rawArguments: '{"city": "Ro' },
        { id: "call_3", name: "snapshot", rawArguments: "" },
      ],
    },
    { role: "tool", toolCallId: "call_1", toolName: "get_weather", content: '{"temperature":72}', images: [{ mimeType: "image/png", data: "iVBORw0KGgo=" }] },
    { role: "tool", toolCallId: "call_2", toolName: "get_weather", content: "Error: invalid arguments" },
    { role: "tool", toolCallId: "call_3", toolName: "snapshot", content: "A snapshot.", images: [{ mimeType: "image/*", data: "/9j/4AAQ" }] },
    { role: "assistant", content: "Paris is warm.", toolCalls: [], reasoning: reasoningFromBlocks([{ text: "Signed.", data: { signature: "sig" } }], "anthropic") },
    { role: "assistant", content: "", toolCalls: [], reasoning: { text: "Only thoughts." } },
    { role: "user", content: "" },
  ];

  it.each([false, true])("sends the same JSON for a conversation with everything in it (stream: %s)", async (stream) => {
    const answer: Answer = (request, response) =>
      JSON.parse(request.body).stream ? sse(sseText([chunk({ content: "ok" }, "stop")]))(request, response) : json({ choices: [{ message: { content: "ok" }, finish_reason: "stop" }] })(request, response);
    const tools = [weatherTool, { name: "snapshot", description: "Take a picture", parameters: { type: "object", properties: {} } }];
    for (const reasoningEffort of [undefined, "xhigh"]) {
      const [aiSdk, tandem] = await compare(answer, modelRequest("gpt-test", conversation, { stream, tools, reasoningEffort }));
      expect(tandem!.body).toEqual(aiSdk!.body);
      expect(JSON.stringify(tandem!.body)).toBe(JSON.stringify(aiSdk!.body));
    }
    const [aiSdk, tandem] = await compare(answer, modelRequest("gpt-test", question, { stream, tools: [], system: "" }));
    expect(JSON.stringify(tandem!.body)).toBe(JSON.stringify(aiSdk!.body));
  });
});

const usage = { prompt_tokens: 50, completion_tokens: 7, total_tokens: 57, prompt_tokens_details: { cached_tokens: 10 }, completion_tokens_details: { reasoning_tokens: 2 } };

const streams: Record<string, string> = {
  "reasoning, text, a tool call and usage": sseText([
    chunk({ role: "assistant", content: "" }),
    chunk({ reasoning_content: "Think " }),
    chunk({ reasoning_content: "more." }),
    chunk({ content: "Let me " }),
    chunk({ content: "check." }),
    chunk({ tool_calls: [{ index: 0, id: "call_w", type: "function", function: { name: "get_weather", arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
    chunk({}, "tool_calls"),
    { id: "chatcmpl-raw", choices: [], usage },
  ]),
  "interleaved parallel tool calls": sseText([
    chunk({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "b", arguments: '{"y"' } }] }),
    chunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "a", arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }, { index: 1, function: { arguments: ":2}" } }] }),
    chunk(null, "tool_calls"),
  ]),
  "reasoning field, content parts, text between reasoning": sseText([
    { choices: [{ delta: { reasoning: "First. " } }] },
    chunk({ content: [{ type: "text", text: "Text " }, { type: "thinking", thinking: [{ type: "text", text: "Then." }] }] }),
    chunk({ content: "more text", reasoning_content: " Again." }, "length", { usage: { prompt_tokens: 3 } }),
  ]),
  "other finish reasons, a later id, null usage": sseText([{ choices: [{ delta: { content: "a" } }], usage: null }, chunk({ content: "b" }, "content_filter"), chunk({}, "function_call"), chunk({}, "something_else")]),
};

const bodies: Record<string, unknown> = {
  "text, reasoning and tool calls": {
    id: "chatcmpl-json",
    choices: [
      {
        message: { role: "assistant", content: "Checking.", reasoning_content: "Hmm.", tool_calls: [{ id: "call_j", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
        finish_reason: "tool_calls",
      },
    ],
    usage,
  },
  "content parts, reasoning field, no usage, no finish reason": {
    choices: [{ message: { content: [{ type: "thinking", thinking: [{ type: "text", text: "Deep." }] }, { type: "text", text: "Done." }], reasoning: "Shallow." }, finish_reason: null }],
  },
};

describe("answers", () => {
  it.each(Object.entries(streams))("reads a stream the same way: %s", async (_name, text) => {
    const [aiSdk, tandem] = await compare(sse(text), modelRequest("gpt-test", question, { stream: true }));
    expect(tandem!.outcome).toEqual(aiSdk!.outcome);
    expect(tandem!.deltas).toEqual(aiSdk!.deltas);
    expect(tandem!.outcome).toHaveProperty("text");
  });

  it.each(Object.entries(bodies))("reads a JSON answer the same way: %s", async (_name, body) => {
    const [aiSdk, tandem] = await compare(json(body), modelRequest("gpt-test", question));
    expect(tandem!.outcome).toEqual(aiSdk!.outcome);
    expect(tandem!.outcome).toHaveProperty("text");
  });
});

describe("failures", () => {
  const failures: Record<string, [Answer, boolean]> = {
    "429 with retry-after": [json({ error: { message: "Slow down", type: "requests", code: "rate_limit_exceeded" } }, 429, { "retry-after": "3" }), true],
    "500 without a body": [json("", 500), false],
    "400 with a text body": [json("Bad things happened", 400), true],
    "401 with another JSON shape": [json({ message: "Bad credentials" }, 401), false],
    "an error object in the stream": [sse(sseText([chunk({ content: "a" }), { error: { message: "Overloaded", type: "server_error" } }], false)), true],
    "data that is not JSON": [sse(sseText([chunk({ content: "a" }), "{oops"], false)), true],
    "[DONE] without a finish reason": [sse(sseText([chunk({ content: "a" })])), true],
    "a streaming request answered without events": [json({ choices: [{ message: { content: "not a stream" }, finish_reason: "stop" }] }), true],
    "a JSON answer that is not JSON": [json("<html>oops</html>"), false],
    "a JSON answer without choices": [json({ id: "x", choices: [] }), false],
  };

  it.each(Object.entries(failures))("fails the same way: %s", async (_name, [answer, stream]) => {
    const [aiSdk, tandem] = await compare(answer, modelRequest("gpt-test", question, { stream }));
    expect(tandem!.outcome).toEqual(aiSdk!.outcome);
    expect(tandem!.outcome).toHaveProperty("errorType");
  });
});
