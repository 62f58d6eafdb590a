/**
 * The chat-completions stream parser without a client: a captured stream fed in every chunking
 * (each byte boundary, one byte at a time, random), SSE line details, tool-call assembly and the
 * non-streaming answer.
 */
import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { completionResponse } from "../../src/providers/chat-completions/completion.js";
import { SseParser } from "../../src/providers/chat-completions/sse.js";
import { ChatStreamState } from "../../src/providers/chat-completions/stream-state.js";
import { ToolCallAssembler } from "../../src/providers/chat-completions/tool-calls.js";
import type { ModelResponse, ModelStreamPart } from "../../src/providers/types.js";
import { useModelServer } from "./helpers.js";
import { chunk, toolTurnAnswer } from "./raw-server.js";

const startServer = useModelServer();

interface Parsed {
  parts: ModelStreamPart[];
  response: ModelResponse;
}

function parseChunks(chunks: Buffer[]): Parsed {
  const parts: ModelStreamPart[] = [];
  const state = new ChatStreamState((part) => parts.push(part), "req-1");
  const parser = new SseParser((data, position) => {
    parts.push({ type: "bytes", totalBytes: position });
    state.acceptData(data);
  });
  for (const piece of chunks) parser.push(piece);
  return { parts, response: state.result() };
}

/** Every way of cutting `bytes` in two, one byte at a time, and `runs` random chunkings (seeded). */
function chunkings(bytes: Buffer, runs = 200): Buffer[][] {
  const all: Buffer[][] = [];
  for (let cut = 0; cut <= bytes.length; cut++) all.push([bytes.subarray(0, cut), bytes.subarray(cut)]);
  all.push([...bytes].map((byte) => Buffer.from([byte])));
  let seed = 42;
  const random = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  for (let run = 0; run < runs; run++) {
    const pieces: Buffer[] = [];
    for (let start = 0; start < bytes.length; ) {
      const size = 1 + Math.floor(random() * 40);
      // Copies, so that no chunk shares memory with its neighbours.
      pieces.push(Buffer.from(bytes.subarray(start, start + size)));
      start += size;
    }
    all.push(pieces);
  }
  return all;
}

async function captureStream(url: string, body: unknown): Promise<Buffer> {
  return await new Promise<Buffer>((resolve, reject) => {
    const request = httpRequest(`${url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (piece: Buffer) => chunks.push(piece));
      response.on("end", () => resolve(Buffer.concat(chunks)));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(JSON.stringify(body));
  });
}

const trickyStream = Buffer.from(
  [
    ": a comment before anything\r\n",
    "\r\n",
    `event: message\r\nid: 7\r\nretry: 1000\r\ndata: ${JSON.stringify(chunk({ role: "assistant", content: "" }))}\r\n\r\n`,
    `data:${JSON.stringify(chunk({ reasoning_content: "Pensée: ünïcode 🌍 " }))}\r\r`,
    `data: ${JSON.stringify(chunk({ content: "Héllo, 世界! " }))}\n\n`,
    `: keep-alive\n\n`,
    `data: {"id":"chatcmpl-raw","choices":[{"index":0,\ndata: "delta":{"content":"🌍🌍"},"finish_reason":null}]}\n\n`,
    `data: {"id":"chatcmpl-raw","choices":[{"index":0,\r\ndata: "delta":{"content":"!"},"finish_reason":null}]}\r\n\r\n`,
    `data: ${JSON.stringify(chunk({ tool_calls: [{ index: 0, id: "call_é", type: "function", function: { name: "get_weather", arguments: "" } }] }))}\r\n\r\n`,
    `data: ${JSON.stringify(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }))}\r\n\r\n`,
    `data: ${JSON.stringify(chunk({ tool_calls: [{ index: 0, function: { arguments: '"Zürich"}' } }] }))}\r\n\r\n`,
    `data: ${JSON.stringify(chunk({}, "tool_calls"))}\n\n`,
    `data: ${JSON.stringify({ id: "chatcmpl-raw", choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 3 } } })}\n\n`,
    "data: [DONE]\n\n",
  ].join(""),
);

describe("chat-completions stream parsing", () => {
  it("gives the same parts and answer for a captured stream in every chunking", async () => {
    const { url } = await startServer(["provider-tool-turns"]);
    const captured = await captureStream(url, { model: "gpt-test", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "weather?" }] });
    const whole = parseChunks([captured]);
    expect(whole.response).toMatchObject({
      ...toolTurnAnswer,
      responseId: expect.stringMatching(/^chatcmpl-/),
      providerCallId: "req-1",
    });
    expect(whole.parts.filter((part) => part.type === "text-delta").length).toBeGreaterThan(1);
    for (const pieces of chunkings(captured)) expect(parseChunks(pieces)).toEqual(whole);
  });

  it("handles \\r\\n and \\r line ends, comments, other fields, multi-line data and UTF-8 split anywhere", () => {
    const whole = parseChunks([trickyStream]);
    expect(whole.response).toEqual({
      text: "Héllo, 世界! 🌍🌍!",
      reasoning: { text: "Pensée: ünïcode 🌍 " },
      toolCalls: [{ id: "call_é", name: "get_weather", rawArguments: '{"city":"Zürich"}' }],
      usage: { inputTokens: 9, outputTokens: 4, cacheReadTokens: 3 },
      finishReason: "tool-calls",
      responseId: "chatcmpl-raw",
      providerCallId: "req-1",
    });
    expect(whole.parts.filter((part) => part.type !== "bytes")).toEqual([
      { type: "reasoning-delta", delta: "Pensée: ünïcode 🌍 " },
      { type: "text-delta", delta: "Héllo, 世界! " },
      { type: "text-delta", delta: "🌍🌍" },
      { type: "text-delta", delta: "!" },
    ]);
    for (const pieces of chunkings(trickyStream)) expect(parseChunks(pieces)).toEqual(whole);
  });

  it("reports each event's data, skipping comments and data-less events, dropping an unfinished last event", () => {
    const events: string[] = [];
    const parser = new SseParser((data) => events.push(data));
    parser.push(Buffer.from("\uFEFFdata: one\n\n:comment\n\nevent: ping\n\ndata\n\ndata: two\ndata:three\n\nid: 1\ndata:  four \n\ndata: never"));
    expect(events).toEqual(["one", "two\nthree", " four "]);
  });

  it("stops reporting after stop()", () => {
    const events: string[] = [];
    const parser = new SseParser((data) => {
      events.push(data);
      if (data === "[DONE]") parser.stop();
    });
    parser.push(Buffer.from("data: a\n\ndata: [DONE]\n\ndata: b\n\n"));
    parser.push(Buffer.from("data: c\n\n"));
    expect(events).toEqual(["a", "[DONE]"]);
  });

  it("fails on an error object, on data that is not JSON, and on a stream without a finish reason (cut short: network)", () => {
    const state = (): ChatStreamState => new ChatStreamState(() => {}, "req-9");
    expect(() => state().acceptData('{"error":{"message":"Overloaded","type":"server_error"}}')).toThrow(
      expect.objectContaining({ errorType: "provider", retryable: true, providerCallId: "req-9", message: "Model stream failed: Overloaded" }),
    );
    expect(() => state().acceptData("{not json")).toThrow(expect.objectContaining({ errorType: "provider", retryable: false, message: expect.stringContaining("JSON parsing failed: Text: {not json.") }));
    const doneWithoutFinish = state();
    doneWithoutFinish.acceptData(JSON.stringify(chunk({ content: "Hi" })));
    doneWithoutFinish.acceptData("[DONE]");
    expect(() => doneWithoutFinish.result()).toThrow(expect.objectContaining({ errorType: "provider", message: "Model provider error: Response stream ended without a finish reason." }));
    const cutShort = state();
    cutShort.acceptData(JSON.stringify(chunk({ content: "Hi" })));
    expect(() => cutShort.result()).toThrow(expect.objectContaining({ errorType: "network", retryable: true }));
    expect(() => state().result()).toThrow(expect.objectContaining({ errorType: "provider", retryable: false, message: "Model provider error: Response stream ended without a finish reason." }));
  });
});

describe("tool-call assembly", () => {
  it("orders calls by index and keeps each call's raw arguments", () => {
    const calls = new ToolCallAssembler();
    calls.accept({ index: 1, id: "call_b", function: { name: "second", arguments: "" } });
    calls.accept({ index: 0, id: "call_a", function: { name: "first", arguments: '{"x"' } });
    calls.accept({ index: 1, function: { arguments: '{"y":2}' } });
    calls.accept({ index: 0, function: { arguments: ":1}" } });
    expect(calls.finish(undefined)).toEqual([
      { id: "call_a", name: "first", rawArguments: '{"x":1}' },
      { id: "call_b", name: "second", rawArguments: '{"y":2}' },
    ]);
  });

  it("takes arguments that come before the name, and names a call only once", () => {
    const calls = new ToolCallAssembler();
    calls.accept({ index: 0, function: { arguments: '{"a":' } });
    calls.accept({ index: 0, id: "call_1", function: { name: "late", arguments: "1}" } });
    expect(calls.finish(undefined)).toEqual([{ id: "call_1", name: "late", rawArguments: '{"a":1}' }]);
    const nameless = new ToolCallAssembler();
    nameless.accept({ index: 0, function: { arguments: "{}" } });
    expect(() => nameless.finish("req")).toThrow(expect.objectContaining({ errorType: "provider", providerCallId: "req" }));
  });

  it("splits calls that share an index (new id, other name, or a new JSON value after complete arguments)", () => {
    const calls = new ToolCallAssembler();
    calls.accept({ index: 0, id: "call_1", function: { name: "a", arguments: "{}" } });
    calls.accept({ index: 0, id: "call_2", function: { name: "a", arguments: "{" } });
    calls.accept({ index: 0, function: { arguments: "}" } });
    calls.accept({ index: 0, function: { name: "b", arguments: "{}" } });
    calls.accept({ index: 0, function: { name: "b", arguments: "{}" } });
    calls.accept({ index: 0, function: { name: "b", arguments: "" } });
    expect(calls.finish(undefined).map((call) => [call.name, call.rawArguments])).toEqual([
      ["a", "{}"],
      ["a", "{}"],
      ["b", "{}"],
      ["b", "{}"],
    ]);
  });

  it("matches index-less deltas by id, else continues the last call; generates missing and repeated ids", () => {
    const calls = new ToolCallAssembler();
    calls.accept({ id: "g1", function: { name: "one", arguments: '{"a"' } });
    calls.accept({ function: { arguments: ":1}" } });
    calls.accept({ function: { name: "two", arguments: "{}" } });
    calls.accept({ id: "g1", function: { name: "three", arguments: "{}" } });
    const result = calls.finish(undefined);
    expect(result.map((call) => [call.name, call.rawArguments])).toEqual([
      ["one", '{"a":1}'],
      ["two", "{}"],
      ["three", "{}"],
    ]);
    expect(result[0]?.id).toBe("g1");
    expect(result[1]?.id).toMatch(/^[0-9A-Za-z]{16}$/);
    expect(result[2]?.id).toMatch(/^[0-9A-Za-z]{16}$/);
    const repeated = new ToolCallAssembler();
    repeated.accept({ index: 0, id: "same", function: { name: "a", arguments: "{}" } });
    repeated.accept({ index: 1, id: "same", function: { name: "b", arguments: "{}" } });
    const [first, second] = repeated.finish(undefined);
    expect(first?.id).toBe("same");
    expect(second?.id).toMatch(/^[0-9A-Za-z]{16}$/);
  });
});

describe("non-streaming answer", () => {
  it("reads text, reasoning (reasoning_content, reasoning, thinking parts), tool calls, usage and ids", () => {
    const body = {
      id: "chatcmpl-1",
      choices: [
        {
          message: {
            role: "assistant",
            content: [
              { type: "thinking", thinking: [{ type: "text", text: "Part two." }] },
              { type: "text", text: "Hello" },
              { type: "text", text: " there." },
            ],
            reasoning: "Part one.",
            tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "not json" } }, { function: { name: "g", arguments: "{}" } }],
          },
          finish_reason: "content_filter",
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 2 },
    };
    const response = completionResponse(JSON.stringify(body), "req-2");
    expect(response).toMatchObject({
      text: "Hello there.",
      reasoning: { text: "Part one.\n\nPart two." },
      toolCalls: [
        { id: "call_1", name: "f", rawArguments: "not json" },
        { id: expect.stringMatching(/^[0-9A-Za-z]{16}$/), name: "g", rawArguments: "{}" },
      ],
      usage: { inputTokens: 5, outputTokens: 2, cacheReadTokens: 0 },
      finishReason: "content-filter",
      responseId: "chatcmpl-1",
      providerCallId: "req-2",
    });
    expect(completionResponse('{"choices":[{"message":{"content":"x"}}]}', undefined)).toEqual({ text: "x", toolCalls: [], usage: {}, finishReason: "other" });
  });

  it("fails on a body that is not JSON or has no choices", () => {
    expect(() => completionResponse("<html>", "r")).toThrow(expect.objectContaining({ errorType: "provider", message: "Model provider error: Invalid JSON response" }));
    expect(() => completionResponse('{"choices":[]}', "r")).toThrow(expect.objectContaining({ message: "Model provider error: Response did not contain any choices." }));
  });
});
