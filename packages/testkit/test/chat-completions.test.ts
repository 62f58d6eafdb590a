import { describe, expect, it } from "vitest";
import { parseScript } from "../src/index.js";
import { postJson, postSse, useServer } from "./helpers.js";

const weatherScript = parseScript(`
name: weather
model: gpt-test
steps:
  - reply:
      content: "Let me check the weather for you."
      reasoning: "The user wants weather."
      toolCalls:
        - { id: call_1, name: get_weather, arguments: { city: "Paris", units: "celsius" } }
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 3 }
  - reply:
      content: "It is 22 degrees in Paris."
`);

const startServer = useServer();

describe("chat completions", () => {
  it("answers non-streaming requests in the chat.completion shape", async () => {
    const { url } = await startServer({ scripts: [weatherScript] });
    const response = await postJson(`${url}/v1/chat/completions`, { model: "gpt-4.1", messages: [{ role: "user", content: "weather?" }] });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get("x-github-request-id")).toBe(response.headers.get("x-request-id"));
    const body = await response.json();
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "gpt-test",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: "Let me check the weather for you.",
            reasoning_content: "The user wants weather.",
            tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris","units":"celsius"}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 3 } },
    });
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(typeof body.created).toBe("number");
  });

  it("streams content, reasoning and tool-call deltas that reassemble", async () => {
    const { url } = await startServer({ scripts: [weatherScript] });
    const { response, events } = await postSse(`${url}/chat/completions`, {
      model: "gpt-4.1",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "weather?" }],
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(events.at(-1)?.data).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((event) => event.json);
    for (const chunk of chunks) expect(chunk).toMatchObject({ object: "chat.completion.chunk", model: "gpt-test" });
    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice: any) => choice.delta));
    const contentDeltas = deltas.filter((delta) => delta.content).map((delta) => delta.content);
    expect(contentDeltas.length).toBeGreaterThanOrEqual(3);
    expect(contentDeltas.join("")).toBe("Let me check the weather for you.");
    expect(deltas.map((delta) => delta.reasoning_content ?? "").join("")).toBe("The user wants weather.");
    const toolDeltas = deltas.flatMap((delta) => delta.tool_calls ?? []);
    expect(toolDeltas[0]).toMatchObject({ index: 0, id: "call_1", type: "function", function: { name: "get_weather" } });
    const argumentDeltas = toolDeltas.map((delta) => delta.function.arguments).filter(Boolean);
    expect(argumentDeltas.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(argumentDeltas.join(""))).toEqual({ city: "Paris", units: "celsius" });
    const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason);
    expect(finish.choices[0].finish_reason).toBe("tool_calls");
    const usage = chunks.at(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 3 } });
  });

  it("omits the usage chunk unless include_usage is set, and honors chunkSize", async () => {
    const script = parseScript("name: s\nsteps:\n  - reply: { content: 'abcdefghij', chunkSize: 4 }\n");
    const { url } = await startServer({ scripts: [script] });
    const { events } = await postSse(`${url}/chat/completions`, { stream: true, messages: [{ role: "user", content: "x" }] });
    const chunks = events.filter((event) => event.json).map((event) => event.json);
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
    const contentDeltas = chunks.map((chunk) => chunk.choices[0].delta.content).filter(Boolean);
    expect(contentDeltas).toEqual(["abcd", "efgh", "ij"]);
    expect(chunks.at(-1).choices[0].finish_reason).toBe("stop");
  });

  it("selects the step from the number of assistant messages in the history", async () => {
    const { url, server } = await startServer({ scripts: [weatherScript] });
    const history = [
      { role: "system", content: "be brief" },
      { role: "user", content: "weather?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_1", content: "22" },
    ];
    const body = await (await postJson(`${url}/chat/completions`, { messages: history })).json();
    expect(body.choices[0].message.content).toBe("It is 22 degrees in Paris.");
    expect(body.choices[0].finish_reason).toBe("stop");
    expect(body.choices[0].message.tool_calls).toBeUndefined();
    expect(server.requests.at(-1)).toMatchObject({ scriptName: "weather", stepIndex: 1, status: 200, outcome: "reply" });
  });

  it("joins text parts of array content when matching", async () => {
    const fallback = parseScript("name: fallback\nsteps:\n  - reply: { content: fallback }\n");
    const matched = parseScript("name: matched\nmatch: needle\nsteps:\n  - reply: { content: matched }\n");
    const { url } = await startServer({ scripts: [fallback, matched] });
    const ask = async (content: unknown) =>
      (await (await postJson(`${url}/chat/completions`, { messages: [{ role: "system", content: "needle" }, { role: "user", content }] })).json()).choices[0].message.content;
    expect(await ask([{ type: "text", text: "find the" }, { type: "text", text: "needle please" }])).toBe("matched");
    expect(await ask("no match here")).toBe("fallback");
  });
  describe("a turn split over several choices (splitChoices, as the Copilot API answers Claude)", () => {
    const splitScript = parseScript(`
name: split
steps:
  - reply:
      content: "I'll do both."
      reasoning: "Two tools."
      splitChoices: true
      toolCalls:
        - { id: call_a, name: create, arguments: { path: "/tmp/a" } }
        - { id: call_b, name: lookup, arguments: { key: "k" } }
  - reply:
      splitChoices: true
      toolCalls:
        - { id: call_c, name: lookup, arguments: {} }
  - reply: { content: "Done.", splitChoices: true }
`);
    const history = (turns: number): unknown[] => [
      { role: "user", content: "go" },
      ...Array.from({ length: turns }, () => ({ role: "assistant", content: "x" })),
    ];

    it("answers JSON with the text in choice 0 and each tool call in its own following choice", async () => {
      const { url } = await startServer({ scripts: [splitScript] });
      const body = await (await postJson(`${url}/chat/completions`, { messages: history(0) })).json();
      expect(body.choices).toEqual([
        { index: 0, logprobs: null, finish_reason: "tool_calls", message: { role: "assistant", content: "I'll do both.", reasoning_content: "Two tools." } },
        {
          index: 1,
          logprobs: null,
          finish_reason: "tool_calls",
          message: { role: "assistant", content: null, tool_calls: [{ id: "call_a", type: "function", function: { name: "create", arguments: '{"path":"/tmp/a"}' } }] },
        },
        {
          index: 2,
          logprobs: null,
          finish_reason: "tool_calls",
          message: { role: "assistant", content: null, tool_calls: [{ id: "call_b", type: "function", function: { name: "lookup", arguments: '{"key":"k"}' } }] },
        },
      ]);
      // Without text the tool calls start at choice 0; without tool calls there is one choice.
      const toolsOnly = await (await postJson(`${url}/chat/completions`, { messages: history(1) })).json();
      expect(toolsOnly.choices.map((choice: any) => [choice.index, choice.message.tool_calls[0].id])).toEqual([[0, "call_c"]]);
      const textOnly = await (await postJson(`${url}/chat/completions`, { messages: history(2) })).json();
      expect(textOnly.choices).toEqual([{ index: 0, logprobs: null, finish_reason: "stop", message: { role: "assistant", content: "Done." } }]);
    });

    it("streams the choices one after the other, each with its index, tool-call index 0 and its own finish reason", async () => {
      const { url } = await startServer({ scripts: [splitScript] });
      const { events } = await postSse(`${url}/chat/completions`, { stream: true, stream_options: { include_usage: true }, messages: history(0) });
      const chunks = events.filter((event) => event.json).map((event) => event.json);
      const entries = chunks.flatMap((chunk) => chunk.choices);
      const indexes = entries.map((choice: any) => choice.index);
      expect([...new Set(indexes)]).toEqual([0, 1, 2]);
      expect([...indexes].sort()).toEqual(indexes);
      const of = (index: number) => entries.filter((choice: any) => choice.index === index);
      expect(of(0).map((choice: any) => choice.delta.content ?? "").join("")).toBe("I'll do both.");
      expect(of(0).map((choice: any) => choice.delta.reasoning_content ?? "").join("")).toBe("Two tools.");
      for (const [index, name, args] of [
        [1, "create", { path: "/tmp/a" }],
        [2, "lookup", { key: "k" }],
      ] as const) {
        const toolDeltas = of(index).flatMap((choice: any) => choice.delta.tool_calls ?? []);
        expect(toolDeltas.every((delta: any) => delta.index === 0)).toBe(true);
        expect(toolDeltas[0]).toMatchObject({ function: { name } });
        expect(JSON.parse(toolDeltas.map((delta: any) => delta.function.arguments).join(""))).toEqual(args);
      }
      for (const index of [0, 1, 2]) expect(of(index).map((choice: any) => choice.finish_reason).filter(Boolean)).toEqual(["tool_calls"]);
      expect(of(0).at(-1).finish_reason).toBe("tool_calls");
      expect(chunks.at(-1).usage).toBeDefined();
    });
  });
});
