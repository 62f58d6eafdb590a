/**
 * Oversized provider data fails only that model call: an SSE event past its limit, a JSON body
 * past the response limit, a tool call's arguments and a message's text past theirs each end the
 * turn with a `session.error` that names the limit and its size, for every wire format the runtime
 * speaks (chat completions, the responses API, Anthropic's messages API). The runtime and its
 * client stay connected and the next send in the same session works.
 *
 * The limits are set low by configuration; the oversized bodies are streamed by a small HTTP
 * server in front of the scripted model server (which answers everything else).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ModelServer } from "@tandem/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { worldAround, type TestWorld } from "../helpers/harness.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";

const KiB = 1024;
const MiB = 1024 * KiB;
/**
 * How much an oversized answer offers: far more than the limits plus what the loopback socket's
 * buffers take in before the runtime hangs up (several MiB on Linux), so "stopped reading before the
 * end" holds however slowly the runtime gets to it.
 */
const oversizedAnswerBytes = 32 * MiB;
const limits = {
  TANDEM_MAX_SSE_EVENT_BYTES: String(1 * MiB),
  TANDEM_MAX_RESPONSE_BYTES: String(2 * MiB),
  TANDEM_MAX_RESPONSE_CONTENT_CHARS: String(100_000),
  TANDEM_MAX_TOOL_ARGUMENT_CHARS: String(100_000),
};

/**
 * Answers a request whose body holds a marker not served before with an oversized body (once per
 * marker: the session's next request carries the marker in its history), and passes everything
 * else to the scripted model server.
 */
class OversizingFront {
  private server: Server | undefined;
  private readonly served = new Set<string>();
  /** Bytes written of each oversized answer (what the runtime took before it stopped reading). */
  readonly written = new Map<string, number>();

  constructor(private readonly modelUrl: string) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const marker = /OVERSIZED_(EVENT|BODY)_\w+/.exec(body.toString("utf8"))?.[0];
    if (marker && !this.served.has(marker)) {
      this.served.add(marker);
      const opening = marker.startsWith("OVERSIZED_EVENT") ? "data: " : '{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"';
      response.writeHead(200, { "content-type": marker.startsWith("OVERSIZED_EVENT") ? "text/event-stream" : "application/json" });
      await this.stream(marker, response, opening, oversizedAnswerBytes);
      return;
    }
    this.proxy(request, body, response);
  }

  /** Writes `opening` and then `total` bytes of "x" in 64 KiB chunks, as fast as the reader takes them, until it hangs up. */
  private async stream(marker: string, response: ServerResponse, opening: string, total: number): Promise<void> {
    const chunk = Buffer.alloc(64 * KiB, "x");
    let written = 0;
    let closed = false;
    response.on("close", () => (closed = true));
    response.write(opening);
    while (written < total && !closed) {
      written += chunk.length;
      this.written.set(marker, written);
      if (!response.write(chunk)) await new Promise((resolve) => response.once("drain", resolve).once("close", resolve));
    }
    if (!closed) response.end();
  }

  private proxy(request: IncomingMessage, body: Buffer, response: ServerResponse): void {
    const target = new URL(request.url ?? "/", this.modelUrl);
    const forward = httpRequest(target, { method: request.method, headers: { ...request.headers, host: target.host } }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    forward.on("error", () => response.destroy());
    forward.end(body);
  }
}

type WireFormat = { name: string; create(url: string): Record<string, unknown> };

const formats: WireFormat[] = [
  // The default provider (the Copilot API) speaks chat completions.
  { name: "chat-completions", create: () => ({}) },
  { name: "openai-responses", create: (url) => ({ model: "o4-mini", provider: { type: "openai", wireApi: "responses", baseUrl: `${url}/v1`, apiKey: "sk-test" } }) },
  { name: "anthropic", create: (url) => ({ model: "claude-sonnet-4-5", provider: { type: "anthropic", baseUrl: url, apiKey: "sk-ant" } }) },
];

let world: TestWorld;
let front: OversizingFront;
let frontUrl: string;
let client: RawClient;

beforeAll(async () => {
  const model = new ModelServer();
  const nextTurn = { contains: "next turn", reply: { content: "Still here." } };
  model.addScript({ name: "default", steps: [{ reply: { content: "Still here." } }], byContent: [nextTurn] });
  model.addScript({ name: "long text", match: "long text", steps: [{ reply: { content: "y".repeat(150_000), chunkSize: 10_000 } }], byContent: [nextTurn] });
  model.addScript({
    name: "long arguments",
    match: "long arguments",
    steps: [{ reply: { toolCalls: [{ id: "call_long", name: "sql", arguments: JSON.stringify({ description: "d", query: `SELECT '${"z".repeat(150_000)}'` }) }] } }],
    byContent: [nextTurn],
  });
  // Chat completions come from the default provider (COPILOT_API_URL), which the front stands in for.
  world = await worldAround(model, limits);
  front = new OversizingFront(world.modelUrl);
  frontUrl = await front.start();
  client = new RawClient({ ...world.env, COPILOT_API_URL: frontUrl });
});

afterAll(async () => {
  await client?.close(true);
  await front?.stop();
  await world?.dispose();
});

function eventOf(message: WireMessage, sessionId: string): { type: string; data: Record<string, unknown> } | undefined {
  if (message.method !== "session.event") return undefined;
  const params = message.params as { sessionId: string; event: { type: string; data: Record<string, unknown> } };
  return params.sessionId === sessionId ? params.event : undefined;
}

const eventsOf = (sessionId: string, type: string) => client.received.map((message) => eventOf(message, sessionId)).filter((event) => event?.type === type);

async function turn(sessionId: string, prompt: string): Promise<void> {
  const idles = eventsOf(sessionId, "session.idle").length;
  const sent = await client.request("session.send", { sessionId, prompt });
  expect(sent.error).toBeUndefined();
  await client.waitFor(() => eventsOf(sessionId, "session.idle").length > idles, 30_000).catch((error: Error) => {
    const types = client.received.map((message) => eventOf(message, sessionId)?.type).filter((type) => type && type !== "assistant.streaming_delta");
    throw new Error(`${error.message}\nevents (without streaming deltas): ${types.join(", ")}`);
  });
}

describe.each(formats)("oversized provider data ($name)", (format) => {
  const cases = [
    { what: "an SSE event", prompt: `OVERSIZED_EVENT_${format.name.replace(/-/g, "_")}`, streaming: true, limit: "TANDEM_MAX_SSE_EVENT_BYTES", size: limits.TANDEM_MAX_SSE_EVENT_BYTES },
    { what: "a JSON body", prompt: `OVERSIZED_BODY_${format.name.replace(/-/g, "_")}`, streaming: false, limit: "TANDEM_MAX_RESPONSE_BYTES", size: limits.TANDEM_MAX_RESPONSE_BYTES },
    { what: "a message's text", prompt: "long text", streaming: true, limit: "TANDEM_MAX_RESPONSE_CONTENT_CHARS", size: limits.TANDEM_MAX_RESPONSE_CONTENT_CHARS },
    // Not streamed: the scripted server streams arguments in small pieces, which would only be slow.
    { what: "a tool call's arguments", prompt: "long arguments", streaming: false, limit: "TANDEM_MAX_TOOL_ARGUMENT_CHARS", size: limits.TANDEM_MAX_TOOL_ARGUMENT_CHARS },
  ];

  it.each(cases)("$what past its limit fails the call with session.error; the runtime and the session go on", async ({ prompt, streaming, limit, size }) => {
    const created = await client.request("session.create", { ...format.create(frontUrl), streaming });
    expect(created.error).toBeUndefined();
    const { sessionId } = created.result as { sessionId: string };

    await turn(sessionId, prompt);
    const errors = eventsOf(sessionId, "session.error");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.data).toMatchObject({ errorType: "provider", message: expect.stringContaining(`${size} `) });
    expect(errors[0]!.data.message).toContain(limit);
    expect(eventsOf(sessionId, "assistant.message")).toEqual([]);
    expect(eventsOf(sessionId, "tool.execution_start")).toEqual([]);
    // The runtime stopped reading well before the whole oversized answer.
    if (front.written.has(prompt)) expect(front.written.get(prompt)).toBeLessThan(oversizedAnswerBytes);

    await turn(sessionId, "next turn");
    expect(eventsOf(sessionId, "assistant.message").map((event) => event?.data.content)).toEqual(["Still here."]);
    expect(client.isClosed).toBe(false);
    expect((await client.request("ping", {})).error).toBeUndefined();
  });
});

describe("an event larger than the client's outbound budget", () => {
  it("reaches a client that reads, which stays connected: the turn completes and the next one works", async () => {
    const model = new ModelServer();
    model.addScript({ name: "huge", match: "huge message", steps: [{ reply: { content: "w".repeat(6 * MiB) } }], byContent: [{ contains: "next turn", reply: { content: "Still here." } }] });
    const small = await worldAround(model, { TANDEM_CLIENT_DROP_PROGRESS_BYTES: String(256 * KiB), TANDEM_CLIENT_DISCONNECT_BYTES: String(4 * MiB) });
    const reader = new RawClient(small.env);
    try {
      const { sessionId } = (await reader.request("session.create", {})).result as { sessionId: string };
      const idleCount = () => reader.received.filter((message) => eventOf(message, sessionId)?.type === "session.idle").length;
      await reader.request("session.send", { sessionId, prompt: "huge message" });
      await reader.waitFor(() => idleCount() === 1, 30_000);
      const contents = () => reader.received.map((message) => eventOf(message, sessionId)).filter((event) => event?.type === "assistant.message").map((event) => event?.data.content as string);
      expect(contents().map((content) => content.length)).toEqual([6 * MiB]);
      await reader.request("session.send", { sessionId, prompt: "next turn" });
      await reader.waitFor(() => idleCount() === 2, 30_000);
      expect(contents().at(-1)).toBe("Still here.");
      expect(reader.isClosed).toBe(false);
      expect(reader.child.exitCode).toBeNull();
    } finally {
      await reader.close(true);
      await small.dispose();
    }
  });
});
