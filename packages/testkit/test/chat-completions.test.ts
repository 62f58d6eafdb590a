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
});
