/**
 * One assistant turn split over several `choices`, as the Copilot API answers Claude models (the
 * text in choice 0, each tool call or group of calls in the next choices, each choice with its own
 * `finish_reason`): both parsers merge every choice, in index order, into one response.
 */
import { describe, expect, it } from "vitest";
import { completionResponse } from "../../src/providers/chat-completions/completion.js";
import { SseParser } from "../../src/providers/chat-completions/sse.js";
import { ChatStreamState } from "../../src/providers/chat-completions/stream-state.js";
import type { ModelResponse, ModelStreamPart } from "../../src/providers/types.js";
import { sseText } from "./raw-server.js";

type Choice = Record<string, unknown>;

function streamChunk(...choices: Choice[]): Record<string, unknown> {
  return { id: "chatcmpl-split", object: "chat.completion.chunk", created: 1, model: "claude-test", choices };
}

function parseStream(events: Array<Record<string, unknown>>): { deltas: ModelStreamPart[]; response: ModelResponse } {
  const deltas: ModelStreamPart[] = [];
  const state = new ChatStreamState((part) => deltas.push(part), "req-split");
  new SseParser((data) => state.acceptData(data)).push(Buffer.from(sseText(events)));
  return { deltas, response: state.result() };
}

const createCall = { id: "toolu_create", type: "function", function: { name: "create", arguments: '{"path":"/tmp/a.txt","file_text":"hi"}' } };
const customCall = { id: "toolu_custom", type: "function", function: { name: "lookup", arguments: '{"key":"k"}' } };
const thirdCall = { id: "toolu_third", type: "function", function: { name: "lookup", arguments: '{"key":"z"}' } };

describe("a non-streaming answer split over several choices", () => {
  it("merges the text of choice 0 and the tool calls of the next choices into one response", () => {
    const body = {
      id: "chatcmpl-split",
      choices: [
        { index: 0, message: { role: "assistant", content: "I'll create the file and look the key up." }, finish_reason: "tool_calls" },
        { index: 1, message: { role: "assistant", content: null, tool_calls: [createCall] }, finish_reason: "tool_calls" },
        { index: 2, message: { role: "assistant", content: null, tool_calls: [customCall, thirdCall] }, finish_reason: "tool_calls" },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    };
    expect(completionResponse(JSON.stringify(body), "req-1")).toEqual({
      text: "I'll create the file and look the key up.",
      toolCalls: [
        { id: "toolu_create", name: "create", rawArguments: createCall.function.arguments },
        { id: "toolu_custom", name: "lookup", rawArguments: customCall.function.arguments },
        { id: "toolu_third", name: "lookup", rawArguments: thirdCall.function.arguments },
      ],
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0 },
      finishReason: "tool-calls",
      responseId: "chatcmpl-split",
      providerCallId: "req-1",
    });
  });

  it("orders choices by index, joins texts without a separator, merges reasoning, and falls back to array order without indexes", () => {
    const body = {
      choices: [
        { index: 2, message: { content: null, tool_calls: [customCall] }, finish_reason: "stop" },
        { index: 0, message: { content: "First.", reasoning_content: "Think." }, finish_reason: "stop" },
        { index: 1, message: { content: [{ type: "text", text: " Second." }], reasoning: "Again." }, finish_reason: null },
      ],
    };
    expect(completionResponse(JSON.stringify(body), undefined)).toEqual({
      text: "First. Second.",
      reasoning: { text: "Think.\n\nAgain." },
      toolCalls: [{ id: "toolu_custom", name: "lookup", rawArguments: customCall.function.arguments }],
      usage: {},
      finishReason: "stop",
    });
    const withoutIndexes = {
      choices: [
        { message: { content: null, tool_calls: [customCall] }, finish_reason: "tool_calls" },
        { message: { content: null, tool_calls: [createCall] }, finish_reason: "tool_calls" },
      ],
    };
    expect(completionResponse(JSON.stringify(withoutIndexes), undefined).toolCalls.map((call) => call.name)).toEqual(["lookup", "create"]);
  });

  it("reports tool-calls when any choice asked for tools, else the first finish reason given", () => {
    const finish = (...reasons: unknown[]): string =>
      completionResponse(JSON.stringify({ choices: reasons.map((reason, index) => ({ index, message: { content: "x" }, finish_reason: reason })) }), undefined).finishReason;
    expect(finish("stop", "tool_calls")).toBe("tool-calls");
    expect(finish("length", "function_call")).toBe("tool-calls");
    expect(finish(null, "length", "stop")).toBe("length");
    expect(finish(null, null)).toBe("other");
  });
});

describe("a streamed answer split over several choices", () => {
  it("keeps the calls of two choices that both use tool-call index 0, even when one chunk carries both", () => {
    const { deltas, response } = parseStream([
      streamChunk({ index: 0, delta: { role: "assistant", content: "" } }),
      streamChunk({ index: 0, delta: { content: "I'll create the file " } }),
      streamChunk({ index: 0, delta: { content: "and look the key up." }, finish_reason: "tool_calls" }),
      streamChunk(
        { index: 1, delta: { tool_calls: [{ index: 0, id: "toolu_create", type: "function", function: { name: "create", arguments: "" } }] } },
        { index: 2, delta: { tool_calls: [{ index: 0, id: "toolu_custom", type: "function", function: { name: "lookup", arguments: "" } }] } },
      ),
      streamChunk({ index: 1, delta: { tool_calls: [{ index: 0, function: { arguments: '{"path":"/tmp/a.txt",' } }] } }, { index: 2, delta: { tool_calls: [{ index: 0, function: { arguments: '{"key":' } }] } }),
      streamChunk({ index: 2, delta: { tool_calls: [{ index: 0, function: { arguments: '"k"}' } }] } }),
      streamChunk({ index: 1, delta: { tool_calls: [{ index: 0, function: { arguments: '"file_text":"hi"}' } }] } }),
      streamChunk({ index: 1, delta: {}, finish_reason: "tool_calls" }, { index: 2, delta: {}, finish_reason: "tool_calls" }),
      { ...streamChunk(), usage: { prompt_tokens: 10, completion_tokens: 5 } },
    ]);
    expect(response).toEqual({
      text: "I'll create the file and look the key up.",
      toolCalls: [
        { id: "toolu_create", name: "create", rawArguments: createCall.function.arguments },
        { id: "toolu_custom", name: "lookup", rawArguments: customCall.function.arguments },
      ],
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0 },
      finishReason: "tool-calls",
      responseId: "chatcmpl-split",
      providerCallId: "req-split",
    });
    expect(deltas).toEqual([
      { type: "text-delta", delta: "I'll create the file " },
      { type: "text-delta", delta: "and look the key up." },
    ]);
  });

  it("keeps the calls of choices sent one after the other, each with tool-call index 0 and the same tool", () => {
    const header = (id: string) => ({ tool_calls: [{ index: 0, id, type: "function", function: { name: "lookup", arguments: "" } }] });
    const args = (text: string) => ({ tool_calls: [{ index: 0, function: { arguments: text } }] });
    const { response } = parseStream([
      streamChunk({ index: 0, delta: { content: "Looking both up." }, finish_reason: "tool_calls" }),
      streamChunk({ index: 1, delta: header("toolu_1") }),
      streamChunk({ index: 1, delta: args('{"key":"a"}') }),
      streamChunk({ index: 1, delta: {}, finish_reason: "tool_calls" }),
      streamChunk({ index: 2, delta: header("toolu_1") }),
      streamChunk({ index: 2, delta: args('{"key":"b"}') }),
      streamChunk({ index: 2, delta: {}, finish_reason: "tool_calls" }),
    ]);
    expect(response.toolCalls.map((call) => [call.name, call.rawArguments])).toEqual([
      ["lookup", '{"key":"a"}'],
      ["lookup", '{"key":"b"}'],
    ]);
    // The repeated id is replaced, across choices too, so that each result finds its call.
    expect(response.toolCalls[0]?.id).toBe("toolu_1");
    expect(response.toolCalls[1]?.id).toMatch(/^[0-9A-Za-z]{16}$/);
  });

  it("sends text deltas as they arrive but merges each choice's text in index order; finish reasons merge like a JSON answer's", () => {
    const { deltas, response } = parseStream([
      streamChunk({ index: 1, delta: { content: "Later " } }),
      streamChunk({ index: 0, delta: { content: "Ear", reasoning_content: "Hm" } }, { index: 1, delta: { content: "choice." } }),
      streamChunk({ index: 0, delta: { content: "lier. ", reasoning_content: "m." }, finish_reason: "stop" }),
      streamChunk({ index: 1, delta: {}, finish_reason: "length" }),
    ]);
    expect(response).toMatchObject({ text: "Earlier. Later choice.", reasoning: { text: "Hmm." }, finishReason: "stop" });
    expect(deltas.filter((part) => part.type === "text-delta").map((part) => part.delta)).toEqual(["Later ", "Ear", "choice.", "lier. "]);
  });

  it("takes an entry's position for a missing index", () => {
    const { response } = parseStream([
      streamChunk({ delta: { content: "Text." } }, { delta: { tool_calls: [{ index: 0, id: "toolu_x", function: { name: "lookup", arguments: "" } }] } }),
      streamChunk({ delta: {} }, { delta: { tool_calls: [{ index: 0, function: { arguments: "{}" } }] } }),
      streamChunk({ delta: {}, finish_reason: "stop" }, { delta: {}, finish_reason: "tool_calls" }),
    ]);
    expect(response).toMatchObject({ text: "Text.", toolCalls: [{ id: "toolu_x", name: "lookup", rawArguments: "{}" }], finishReason: "tool-calls" });
  });
});
