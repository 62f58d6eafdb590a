/**
 * The chat-completions client over real HTTP: what it reads from streamed and JSON answers (split
 * UTF-8, `\r\n`, comments, tool-call deltas, usage, `[DONE]`, stream errors) and how it fails
 * (connection cut short, HTTP 429, abort). Connection handling (keep-alive, compression) is in
 * chat-completions-http.test.ts.
 */
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { ProviderError } from "../../src/providers/errors.js";
import type { ModelResponse, ModelStreamPart } from "../../src/providers/types.js";
import { modelRequest, useModelServer } from "./helpers.js";
import { chunk, sseText, startSse, toolTurnAnswer, useChatClients, useRawServer, writeSlowly } from "./raw-server.js";

const startRawServer = useRawServer();
const startServer = useModelServer();
const question = [{ role: "user" as const, content: "What is the weather in Paris?" }];
const clientAt = useChatClients({ bearerToken: "sk-test" });

async function streamFrom(url: string): Promise<{ response: ModelResponse; parts: ModelStreamPart[] }> {
  const parts: ModelStreamPart[] = [];
  const response = await clientAt(url).generate(modelRequest("gpt-test", question, { stream: true }), (part) => parts.push(part));
  return { response, parts };
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error,
  );
}

function deltas(parts: ModelStreamPart[], type: "text-delta" | "reasoning-delta"): string[] {
  return parts.flatMap((part) => (part.type === type ? [part.delta] : []));
}

function answerSlowly(pieces: Array<string | Buffer>): (request: unknown, response: ServerResponse) => Promise<void> {
  return async (_request, response) => {
    startSse(response);
    await writeSlowly(response, pieces);
    response.end();
  };
}

async function waitUntil(predicate: () => boolean, timeoutMs = 2000): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not reached");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("chat-completions streaming over HTTP", () => {
  it("decodes characters split across TCP chunks and reports each event's end position before its delta", async () => {
    const bytes = Buffer.from(sseText([chunk({ content: "Ünïcödé 🌍 " }), chunk({ content: "日本語" }, "stop")]));
    const globe = bytes.indexOf(Buffer.from("🌍"));
    const kanji = bytes.indexOf(Buffer.from("本"));
    const pieces = [bytes.subarray(0, globe + 2), bytes.subarray(globe + 2, kanji + 1), bytes.subarray(kanji + 1)];
    const { url } = await startRawServer(answerSlowly(pieces));
    const { response, parts } = await streamFrom(url);
    expect(response.text).toBe("Ünïcödé 🌍 日本語");
    expect(deltas(parts, "text-delta")).toEqual(["Ünïcödé 🌍 ", "日本語"]);
    // One `bytes` per model chunk (not per TCP read, not for [DONE]), each just before its delta.
    const firstEventEnd = bytes.indexOf("\n\n") + 2;
    const secondEventEnd = bytes.indexOf("\n\n", firstEventEnd) + 2;
    expect(parts.map((part) => part.type)).toEqual(["bytes", "text-delta", "bytes", "text-delta"]);
    expect(parts.flatMap((part) => (part.type === "bytes" ? [part.totalBytes] : []))).toEqual([firstEventEnd, secondEventEnd]);
  });

  it("reads \\r\\n line ends, comments and reasoning", async () => {
    const text = sseText([chunk({ reasoning_content: "Hmm. " }), chunk({ reasoning: "Yes." }), chunk({ content: "Sure." }, "stop")]);
    const body = `: OPENROUTER PROCESSING\n\n${text.replaceAll("\n", "\r\n")}`;
    const { url } = await startRawServer(answerSlowly([body.slice(0, 40), body.slice(40)]));
    const { response, parts } = await streamFrom(url);
    expect(response).toMatchObject({ text: "Sure.", reasoning: { text: "Hmm. Yes." }, finishReason: "stop", providerCallId: "req-raw", responseId: "chatcmpl-raw" });
    expect(deltas(parts, "reasoning-delta")).toEqual(["Hmm. ", "Yes."]);
  });

  it("assembles a tool call whose arguments arrive in many deltas", async () => {
    const argumentsText = JSON.stringify({ city: "Paris", units: "celsius", days: [1, 2, 3] });
    const events = [chunk({ tool_calls: [{ index: 0, id: "call_many", type: "function", function: { name: "get_weather", arguments: "" } }] })];
    for (const character of argumentsText) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: character } }] }));
    events.push(chunk({}, "tool_calls"));
    const { url } = await startRawServer(answerSlowly([sseText(events)]));
    const { response } = await streamFrom(url);
    expect(response.toolCalls).toEqual([{ id: "call_many", name: "get_weather", rawArguments: argumentsText }]);
    expect(response.finishReason).toBe("tool-calls");
  });

  it("keeps two parallel tool calls apart when their deltas interleave", async () => {
    const start = (index: number, id: string, name: string): Record<string, unknown> => chunk({ tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] });
    const piece = (index: number, text: string): Record<string, unknown> => chunk({ tool_calls: [{ index, function: { arguments: text } }] });
    const events = [start(0, "call_a", "get_weather"), start(1, "call_b", "get_time"), piece(1, '{"zone":'), piece(0, '{"city":'), piece(0, '"Paris"}'), piece(1, '"CET"}'), chunk({}, "tool_calls")];
    const { url } = await startRawServer(answerSlowly([sseText(events)]));
    const { response } = await streamFrom(url);
    expect(response.toolCalls).toEqual([
      { id: "call_a", name: "get_weather", rawArguments: '{"city":"Paris"}' },
      { id: "call_b", name: "get_time", rawArguments: '{"zone":"CET"}' },
    ]);
  });

  it("takes the usage from the last chunk and asks for it", async () => {
    const usage = { prompt_tokens: 1200, completion_tokens: 80, total_tokens: 1280, prompt_tokens_details: { cached_tokens: 1024 } };
    const { url, requests } = await startRawServer(answerSlowly([sseText([chunk({ content: "Hi." }, "stop"), { id: "chatcmpl-raw", choices: [], usage }])]));
    const { response } = await streamFrom(url);
    expect(response.usage).toEqual({ inputTokens: 1200, outputTokens: 80, cacheReadTokens: 1024 });
    expect(JSON.parse(requests[0]!.body)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("ignores what follows [DONE], completes without [DONE] after a finish reason, fails on [DONE] without one", async () => {
    const afterDone = await startRawServer(answerSlowly([sseText([chunk({ content: "A" }, "stop")]), sseText([chunk({ content: "ignored" }), "{garbage"], false)]));
    expect((await streamFrom(afterDone.url)).response.text).toBe("A");
    const withoutDone = await startRawServer(answerSlowly([sseText([chunk({ content: "B" }, "length")], false)]));
    expect((await streamFrom(withoutDone.url)).response).toMatchObject({ text: "B", finishReason: "length" });
    const doneOnly = await startRawServer(answerSlowly([sseText([chunk({ content: "C" })])]));
    const error = await failureOf(streamFrom(doneOnly.url));
    expect(error).toMatchObject({ errorType: "provider", retryable: false, message: "Model provider error: Response stream ended without a finish reason." });
  });

  it("fails with the error object a stream reports", async () => {
    const failing = sseText([chunk({ content: "Par" }), { error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" } }], false);
    const { url } = await startRawServer(answerSlowly([failing]));
    const error = await failureOf(streamFrom(url));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ errorType: "rate_limit", retryable: true, providerCallId: "req-raw", message: "Model stream failed: Rate limit reached for requests" });
  });

  it("reports a connection closed mid-stream, or a stream that stops without finishing, as a network failure", async () => {
    const { url } = await startRawServer(async (_request, response) => {
      startSse(response);
      await writeSlowly(response, [sseText([chunk({ content: "Half an" })], false)]);
      response.socket?.destroy();
    });
    const parts: ModelStreamPart[] = [];
    const error = await failureOf(clientAt(url).generate(modelRequest("gpt-test", question, { stream: true }), (part) => parts.push(part)));
    expect(error).toMatchObject({ errorType: "network", retryable: true, providerCallId: "req-raw" });
    expect(deltas(parts, "text-delta")).toEqual(["Half an"]);
    const stopped = await startRawServer(answerSlowly([sseText([chunk({ content: "Half an" })], false)]));
    expect(await failureOf(streamFrom(stopped.url))).toMatchObject({ errorType: "network", retryable: true });
  });

  it("classifies a 429 with retry-after", async () => {
    const { url } = await startRawServer((_request, response) => {
      response.writeHead(429, { "content-type": "application/json", "retry-after": "7", "x-request-id": "req-429" });
      response.end(JSON.stringify({ error: { message: "Rate limit reached, slow down", type: "requests", code: "rate_limit_exceeded" } }));
    });
    for (const stream of [true, false]) {
      const error = await failureOf(clientAt(url).generate(modelRequest("gpt-test", question, { stream }), () => {}));
      expect(error).toMatchObject({ errorType: "rate_limit", statusCode: 429, retryable: true, retryAfterMs: 7000, providerCallId: "req-429" });
      expect((error as Error).message).toBe("Model request failed (HTTP 429): Rate limit reached, slow down");
    }
  });

  it("closes the connection at once on abort mid-stream and rejects with the abort reason", async () => {
    const { url, requests } = await startRawServer((_request, response) => {
      startSse(response);
      response.write(sseText([chunk({ content: "Once upon" })], false));
    });
    const controller = new AbortController();
    const reason = new Error("user abort");
    let abortedAt = 0;
    const onPart = (part: ModelStreamPart): void => {
      if (part.type !== "text-delta") return;
      abortedAt = Date.now();
      controller.abort(reason);
    };
    const error = await failureOf(clientAt(url).generate(modelRequest("gpt-test", question, { stream: true, signal: controller.signal }), onPart));
    expect(error).toBe(reason);
    expect(Date.now() - abortedAt).toBeLessThan(500);
    await waitUntil(() => requests[0]?.closedEarly === true);
  });
});

describe("chat-completions JSON answers over HTTP", () => {
  it("reads a non-streaming answer: text, reasoning, tool call, usage, ids; no stream parts", async () => {
    const { server, url } = await startServer(["provider-tool-turns"]);
    const parts: ModelStreamPart[] = [];
    const response = await clientAt(url).generate(modelRequest("gpt-test", question), (part) => parts.push(part));
    expect(response).toEqual({
      ...toolTurnAnswer,
      responseId: expect.stringMatching(/^chatcmpl-/),
      providerCallId: expect.any(String),
    });
    expect(parts).toEqual([]);
    expect(server.requests[0]?.body).not.toHaveProperty("stream");
  });
});
