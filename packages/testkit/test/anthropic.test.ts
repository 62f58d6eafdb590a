import { describe, expect, it } from "vitest";
import { parseScript } from "../src/index.js";
import { postJson, postSse, request, useServer } from "./helpers.js";

const script = parseScript(`
name: anthropic
steps:
  - reply:
      reasoning: "I should call the tool."
      content: "Looking that up for you."
      toolCalls:
        - { name: lookup, arguments: { query: "tandem bikes", limit: 3 } }
      usage: { inputTokens: 30, outputTokens: 9, cacheReadTokens: 10 }
  - reply:
      content: "Found three results."
`);

const startServer = useServer();

describe("anthropic messages", () => {
  it("answers non-streaming requests with thinking, text and tool_use blocks", async () => {
    const { url } = await startServer({ scripts: [script] });
    const response = await postJson(`${url}/v1/messages`, { model: "claude-sonnet-4", max_tokens: 100, messages: [{ role: "user", content: "search" }] });
    expect(response.headers.get("request-id")).toBe(response.headers.get("x-request-id"));
    const body = await response.json();
    expect(body).toMatchObject({ type: "message", role: "assistant", model: "claude-sonnet-4", stop_reason: "tool_use", stop_sequence: null });
    expect(body.id).toMatch(/^msg_/);
    expect(body.content.map((block: any) => block.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(body.content[0]).toMatchObject({ thinking: "I should call the tool." });
    expect(body.content[0].signature.length).toBeGreaterThan(10);
    expect(body.content[2]).toMatchObject({ name: "lookup", input: { query: "tandem bikes", limit: 3 } });
    expect(body.content[2].id).toMatch(/^toolu_/);
    expect(body.usage).toEqual({ input_tokens: 20, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 10 });
  });

  it("streams the Anthropic event sequence with reassemblable deltas", async () => {
    const { url } = await startServer({ scripts: [script] });
    const { events } = await postSse(`${url}/messages`, { stream: true, messages: [{ role: "user", content: [{ type: "text", text: "search" }] }] });
    for (const event of events) expect(event.json.type).toBe(event.event);
    const types = events.map((event) => event.event);
    expect(types[0]).toBe("message_start");
    expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
    const starts = events.filter((event) => event.event === "content_block_start").map((event) => event.json);
    expect(starts.map((start) => [start.index, start.content_block.type])).toEqual([[0, "thinking"], [1, "text"], [2, "tool_use"]]);
    expect(starts[2].content_block).toMatchObject({ name: "lookup", input: {} });
    const deltas = events.filter((event) => event.event === "content_block_delta").map((event) => event.json.delta);
    const join = (type: string, field: string) => deltas.filter((delta) => delta.type === type).map((delta) => delta[field]).join("");
    expect(join("thinking_delta", "thinking")).toBe("I should call the tool.");
    expect(join("signature_delta", "signature").length).toBeGreaterThan(10);
    expect(join("text_delta", "text")).toBe("Looking that up for you.");
    expect(deltas.filter((delta) => delta.type === "input_json_delta").length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(join("input_json_delta", "partial_json"))).toEqual({ query: "tandem bikes", limit: 3 });
    expect(events.filter((event) => event.event === "content_block_stop")).toHaveLength(3);
    const messageDelta = events.at(-2)!.json;
    expect(messageDelta.delta.stop_reason).toBe("tool_use");
    expect(messageDelta.usage.output_tokens).toBe(9);
  });

  it("selects the step by assistant messages and reports tool results as role tool", async () => {
    const withExpect = parseScript(`
name: expecting
steps:
  - reply: { toolCalls: [{ name: lookup }] }
  - expect: { lastRole: tool, contains: "three" }
    reply: { content: "ok" }
`);
    const { url, server } = await startServer({ scripts: [withExpect] });
    const messages = [
      { role: "user", content: "search" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "lookup", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "three results" }] }] },
    ];
    const body = await (await postJson(`${url}/v1/messages`, { messages })).json();
    expect(body.content).toEqual([{ type: "text", text: "ok" }]);
    expect(body.stop_reason).toBe("end_turn");
    expect(server.requests.at(-1)?.expectationError).toBeUndefined();
    messages[2] = { role: "user", content: "no tool result" };
    await postJson(`${url}/v1/messages`, { messages });
    expect(server.requests.at(-1)?.expectationError).toMatch(/expected last message role "tool" but got "user".*contain "three"/);
  });

  it("sends errors in Anthropic's shape", async () => {
    const failing = parseScript("name: f\nsteps:\n  - error: { status: 529, message: overloaded }\n");
    const { url } = await startServer({ scripts: [failing] });
    const response = await postJson(`${url}/v1/messages`, { messages: [{ role: "user", content: "hi" }] });
    expect(response.status).toBe(529);
    expect(await response.json()).toEqual({ type: "error", error: { type: "overloaded_error", message: "overloaded" } });
    const garbled = await request(`${url}/v1/messages`, { method: "POST", body: "{not json" });
    expect(garbled.status).toBe(400);
    expect((await garbled.json()).error.type).toBe("invalid_request_error");
  });
});
