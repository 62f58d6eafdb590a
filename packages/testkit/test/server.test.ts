import { describe, expect, it } from "vitest";
import { ModelServer, parseScript } from "../src/index.js";
import { parseSse, postJson, request, useServer } from "./helpers.js";

const startServer = useServer();
const chat = (content: string, extra: object[] = []) => ({ model: "gpt-4.1", messages: [{ role: "user", content }, ...extra] });

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("ModelServer", () => {
  it("errors for the first `times` hits, with retry-after, then replies", async () => {
    const script = parseScript(`
name: flaky
steps:
  - error: { status: 429, message: "slow down", times: 2, retryAfter: 1 }
    reply: { content: "finally" }
`);
    const { url, server } = await startServer({ scripts: [script] });
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await postJson(`${url}/chat/completions`, chat("hi"));
      expect(response.status).toBe(429);
      expect(response.headers.get("retry-after")).toBe("1");
      expect(await response.json()).toEqual({ error: { message: "slow down", type: "rate_limit_error", param: null, code: "rate_limit_exceeded" } });
    }
    const success = await postJson(`${url}/chat/completions`, chat("hi"));
    expect(success.status).toBe(200);
    expect((await success.json()).choices[0].message.content).toBe("finally");
    expect(server.requests.map((request) => request.outcome)).toEqual(["error", "error", "reply"]);
    server.reset();
    expect(server.requests).toHaveLength(0);
    expect((await postJson(`${url}/chat/completions`, chat("hi"))).status).toBe(429);
  });

  it("errors on every hit when `times` is not set", async () => {
    const script = parseScript("name: down\nsteps:\n  - error: { status: 503 }\n");
    const { url } = await startServer({ scripts: [script] });
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await postJson(`${url}/responses`, { input: "hi" });
      expect(response.status).toBe(503);
      expect((await response.json()).error).toMatchObject({ type: "server_error", message: "scripted error 503" });
    }
  });

  it("hangs until the client aborts, then serves the fallthrough reply; stop() ends hanging requests", async () => {
    const script = parseScript("name: hang\nsteps:\n  - { hang: true, hangTimes: 1, reply: { content: recovered } }\n");
    const { url, server } = await startServer({ scripts: [script] });
    const controller = new AbortController();
    const hanging = postJson(`${url}/chat/completions`, chat("hi"), { signal: controller.signal });
    await waitFor(() => server.requests[0]?.outcome === "hang");
    controller.abort();
    await expect(hanging).rejects.toThrow(/abort/i);
    const recovered = await (await postJson(`${url}/chat/completions`, chat("hi"))).json();
    expect(recovered.choices[0].message.content).toBe("recovered");

    const forever = new ModelServer({ scripts: [parseScript("name: forever\nsteps:\n  - hang: true\n")] });
    const started = await forever.start();
    const pending = postJson(`${started.url}/chat/completions`, chat("hi"));
    pending.catch(() => undefined);
    await waitFor(() => forever.requests.length === 1 && forever.requests[0]?.outcome === "hang");
    const stopStarted = Date.now();
    await forever.stop();
    expect(Date.now() - stopStarted).toBeLessThan(1000);
    await expect(pending).rejects.toThrow();
  });

  it("answers 500 naming the script when the history is past the last step", async () => {
    const script = parseScript("name: short-one\nsteps:\n  - reply: { content: only }\n");
    const { url, server } = await startServer({ scripts: [script] });
    const response = await postJson(`${url}/chat/completions`, chat("hi", [{ role: "assistant", content: "only" }, { role: "user", content: "again" }]));
    expect(response.status).toBe(500);
    expect((await response.json()).error.message).toMatch(/script "short-one" has no step 1/);
    expect(server.requests[0]).toMatchObject({ stepIndex: 1, status: 500 });
  });

  it("rejects garbled JSON and wrong shapes with 400 and unknown routes with 404", async () => {
    const { url, server } = await startServer({ scripts: [parseScript("name: s\nsteps:\n  - reply: { content: x }\n")] });
    const garbled = await request(`${url}/v1/chat/completions`, { method: "POST", body: "{oops" });
    expect(garbled.status).toBe(400);
    expect((await garbled.json()).error.message).toMatch(/not valid JSON/);
    const noMessages = await postJson(`${url}/chat/completions`, { model: "x" });
    expect(noMessages.status).toBe(400);
    expect((await noMessages.json()).error.message).toMatch(/messages/);
    expect((await postJson(`${url}/responses`, { input: 42 })).status).toBe(400);
    expect((await request(`${url}/nope`)).status).toBe(404);
    expect(server.requests.map((request) => request.status)).toEqual([400, 400, 400, 404]);
  });

  it("records method, path, headers, body, script and step", async () => {
    const { url, server } = await startServer({ scripts: [parseScript("name: rec\nsteps:\n  - reply: { content: x }\n")] });
    await postJson(`${url}/v1/chat/completions?api-version=1`, chat("hello"), { headers: { "content-type": "application/json", authorization: "Bearer t" } });
    expect(server.requests).toEqual([
      expect.objectContaining({
        method: "POST",
        path: "/v1/chat/completions",
        format: "chat-completions",
        body: chat("hello"),
        scriptName: "rec",
        stepIndex: 0,
        status: 200,
        headers: expect.objectContaining({ authorization: "Bearer t" }),
      }),
    ]);
  });

  it("selects scripts by match, falls back to the default, and fails loudly without one", async () => {
    const weather = parseScript("name: weather\nmatch: weather\nsteps:\n  - reply: { content: sunny }\n");
    const jokes = parseScript("name: jokes\nmatch: joke\nsteps:\n  - reply: { content: knock knock }\n");
    const { url } = await startServer({ scripts: [weather, jokes] });
    const content = async (text: string) => (await (await postJson(`${url}/chat/completions`, chat(text))).json());
    expect((await content("what's the weather")).choices[0].message.content).toBe("sunny");
    expect((await content("tell me a joke")).choices[0].message.content).toBe("knock knock");
    expect((await content("something else")).error.message).toMatch(/no script matches/);
    const single = await startServer({ scripts: [weather] });
    const onlyOne = await (await postJson(`${single.url}/chat/completions`, chat("unrelated"))).json();
    expect(onlyOne.choices[0].message.content).toBe("sunny");
  });

  it("refuses duplicate names and a second default script", () => {
    const server = new ModelServer({ scripts: [parseScript("name: a\nsteps:\n  - reply: { content: x }\n")] });
    expect(() => server.addScript(parseScript("name: a\nmatch: m\nsteps:\n  - reply: { content: x }\n"))).toThrow(/already loaded/);
    expect(() => server.addScript(parseScript("name: b\nsteps:\n  - reply: { content: x }\n"))).toThrow(/already the default/);
    expect(() => server.addScript({ name: "c", match: "q", steps: [] })).toThrow(/<inline>: steps must contain at least one step/);
  });

  it("serves concurrent sessions at different steps statelessly", async () => {
    const script = parseScript("name: turns\nsteps:\n  - reply: { content: first }\n  - reply: { content: second }\n  - reply: { content: third }\n");
    const { url } = await startServer({ scripts: [script] });
    const history = (turns: number) => chat("go", Array.from({ length: turns }, () => [{ role: "assistant", content: "." }, { role: "user", content: "more" }]).flat());
    const replies = await Promise.all([2, 0, 1, 0, 2].map(async (turns) => (await (await postJson(`${url}/chat/completions`, history(turns))).json()).choices[0].message.content));
    expect(replies).toEqual(["third", "first", "second", "first", "third"]);
  });

  it("paces responses with delayMs and chunkDelayMs", async () => {
    const script = parseScript("name: slow\nsteps:\n  - { delayMs: 100, chunkDelayMs: 30, reply: { content: 'one two three' } }\n");
    const { url } = await startServer({ scripts: [script] });
    const startedAt = Date.now();
    const response = await postJson(`${url}/chat/completions`, { ...chat("hi"), stream: true });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(90);
    const reader = response.body!.getReader();
    const arrivals: number[] = [];
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arrivals.push(Date.now());
      text += new TextDecoder().decode(value);
    }
    expect(arrivals.length).toBeGreaterThanOrEqual(4);
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(100);
    expect(parseSse(text).at(-1)?.data).toBe("[DONE]");
  });

  it("streams large repeated replies intact", async () => {
    const script = parseScript("name: big\nsteps:\n  - reply: { content: 'lorem ipsum dolor sit amet ', repeat: 2000, chunkSize: 64 }\n");
    const { url } = await startServer({ scripts: [script] });
    const response = await postJson(`${url}/chat/completions`, { ...chat("hi"), stream: true });
    const events = parseSse(await response.text());
    const content = events.filter((event) => event.json).map((event) => event.json.choices[0]?.delta.content ?? "").join("");
    expect(content).toBe("lorem ipsum dolor sit amet ".repeat(2000));
  });

  it("lists Copilot API models, default or configured", async () => {
    const { url } = await startServer();
    const list = await (await request(`${url}/models`)).json();
    expect(list.data.map((model: any) => model.id)).toEqual(["gpt-4.1", "claude-sonnet-4"]);
    expect(list.data[0]).toMatchObject({
      object: "model",
      policy: { state: "enabled" },
      billing: { multiplier: 1 },
      capabilities: { type: "chat", limits: { max_context_window_tokens: 128000 }, supports: { streaming: true, tool_calls: true, vision: false } },
    });
    const custom = await startServer({ models: [{ id: "o-test", reasoningEfforts: ["low", "high"], maxContextWindowTokens: 1000, maxOutputTokens: 100 }] });
    const customList = await (await request(`${custom.url}/v1/models`)).json();
    expect(customList.data).toHaveLength(1);
    expect(customList.data[0].capabilities).toMatchObject({
      family: "o-test",
      limits: { max_context_window_tokens: 1000, max_output_tokens: 100, max_prompt_tokens: 900 },
      supports: { reasoning_effort: ["low", "high"] },
    });
  });

  it("answers GET /models with 404 when it lists no models (listsModels: false), and still serves model calls", async () => {
    const script = parseScript(`
name: unlisted
steps:
  - reply: { content: "still answering" }
`);
    const { url, server } = await startServer({ listsModels: false, scripts: [script] });
    for (const path of ["/models", "/v1/models"]) expect((await request(`${url}${path}`)).status).toBe(404);
    expect(server.modelListRequests).toHaveLength(2);
    const response = await postJson(`${url}/chat/completions`, { ...chat("hi"), stream: false });
    expect(response.status).toBe(200);
  });

  it("reports start/stop state", async () => {
    const server = new ModelServer();
    expect(() => server.url).toThrow(/not started/);
    const { url, port } = await server.start();
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(server.url).toBe(url);
    await expect(server.start()).rejects.toThrow(/already listening/);
    await server.stop();
    await server.stop();
  });
});
