import { describe, expect, it } from "vitest";
import { parseScript } from "../src/index.js";
import { postJson, postSse, useServer } from "./helpers.js";

const script = parseScript(`
name: responses
steps:
  - reply:
      reasoning: "Need the weather tool."
      content: "Checking the weather now."
      toolCalls:
        - { id: call_abc, name: get_weather, arguments: { city: "Oslo" } }
      usage: { inputTokens: 20, outputTokens: 7, cacheReadTokens: 4 }
  - reply:
      content: "Oslo is cold today."
`);

const startServer = useServer();
const userTurn = [{ role: "user", content: [{ type: "input_text", text: "weather in Oslo?" }] }];

describe("responses API", () => {
  it("answers non-streaming requests with reasoning, message and function_call items", async () => {
    const { url } = await startServer({ scripts: [script] });
    const response = await postJson(`${url}/v1/responses`, { model: "gpt-5", input: userTurn, include: ["reasoning.encrypted_content"] });
    const body = await response.json();
    expect(body).toMatchObject({ object: "response", status: "completed", model: "gpt-5" });
    expect(body.id).toMatch(/^resp_/);
    expect(body.output.map((item: any) => item.type)).toEqual(["reasoning", "message", "function_call"]);
    expect(body.output[0].summary).toEqual([{ type: "summary_text", text: "Need the weather tool." }]);
    expect(typeof body.output[0].encrypted_content).toBe("string");
    expect(body.output[1]).toMatchObject({ role: "assistant", content: [{ type: "output_text", text: "Checking the weather now.", annotations: [] }] });
    expect(body.output[2]).toMatchObject({ call_id: "call_abc", name: "get_weather", arguments: '{"city":"Oslo"}', status: "completed" });
    expect(body.usage).toMatchObject({ input_tokens: 20, output_tokens: 7, total_tokens: 27, input_tokens_details: { cached_tokens: 4 } });
  });

  it("omits encrypted_content unless requested", async () => {
    const { url } = await startServer({ scripts: [script] });
    const body = await (await postJson(`${url}/responses`, { input: "weather?" })).json();
    expect(body.output[0].encrypted_content).toBeUndefined();
  });

  it("streams named events whose deltas reassemble", async () => {
    const { url } = await startServer({ scripts: [script] });
    const { events } = await postSse(`${url}/responses`, { stream: true, input: userTurn });
    for (const event of events) expect(event.json.type).toBe(event.event);
    const types = events.map((event) => event.event);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(types.filter((type) => type === "response.output_item.added")).toHaveLength(3);
    expect(types.filter((type) => type === "response.output_item.done")).toHaveLength(3);
    const sequence = events.map((event) => event.json.sequence_number);
    expect(sequence).toEqual(sequence.map((_, index) => index));
    const joined = (type: string) => events.filter((event) => event.event === type).map((event) => event.json.delta).join("");
    expect(joined("response.reasoning_summary_text.delta")).toBe("Need the weather tool.");
    expect(joined("response.output_text.delta")).toBe("Checking the weather now.");
    expect(events.filter((event) => event.event === "response.output_text.delta").length).toBeGreaterThanOrEqual(3);
    expect(events.filter((event) => event.event === "response.function_call_arguments.delta").length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(joined("response.function_call_arguments.delta"))).toEqual({ city: "Oslo" });
    const added = events.find((event) => event.event === "response.output_item.added" && event.json.item.type === "function_call");
    expect(added?.json.item).toMatchObject({ call_id: "call_abc", name: "get_weather", arguments: "" });
    const completed = events.at(-1)!.json.response;
    expect(completed.usage).toMatchObject({ input_tokens: 20, output_tokens: 7, input_tokens_details: { cached_tokens: 4 } });
    expect(completed.output).toHaveLength(3);
  });

  it("counts runs of model-side items as turns", async () => {
    const { url, server } = await startServer({ scripts: [script] });
    const input = [
      ...userTurn,
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
      { type: "function_call", call_id: "call_abc", name: "get_weather", arguments: "{}" },
      { type: "function_call_output", call_id: "call_abc", output: "-5C" },
    ];
    const body = await (await postJson(`${url}/responses`, { input })).json();
    expect(body.output).toEqual([expect.objectContaining({ type: "message", content: [expect.objectContaining({ text: "Oslo is cold today." })] })]);
    expect(server.requests.at(-1)?.stepIndex).toBe(1);
    const twoTurns = [...input, { role: "assistant", content: "done" }, { role: "user", content: "more" }];
    const tooFar = await postJson(`${url}/responses`, { input: twoTurns });
    expect(tooFar.status).toBe(500);
    expect((await tooFar.json()).error.message).toContain('script "responses" has no step 2');
  });
});
