/**
 * Session options that reach the model request or come back to the client, through real clients
 * (the official SDK 0.2.0, the official SDK 1.0.x and ours) against the fake model server:
 * BYOK `provider.headers`, `bearerToken` and 1.0.x's `bearerTokenProvider` (openai, azure,
 * anthropic), a message's `requestHeaders`, `reasoningEffort` echoed back (session.start,
 * session.model.getCurrent, assistant.usage, kept across a resume), and `send({ mode })`.
 */
import { join } from "node:path";
import { CopilotClient, approveAll } from "@github/copilot-sdk";
import { CopilotClient as TandemClient } from "@tandem/sdk";
import { ModelServer } from "@tandem/testkit";
import { CopilotClient as V1Client, RuntimeConnection, approveAll as v1ApproveAll } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startRecordingProxy, type RecordingProxy } from "../../packages/runtime/test/providers/recording-proxy.js";
import { scriptsDir, startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.dispose();
  world = undefined;
});

/** The official SDK 1.0.x, spawning `tandem` over stdio. */
function v1Client(env: Record<string, string>): V1Client {
  const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin, env }), logLevel: "error" });
  cleanups.push(() => client.forceStop());
  return client;
}

function tandemClient(env: Record<string, string>): TandemClient {
  const client = new TandemClient({ env, logLevel: "error" });
  cleanups.push(() => client.stop());
  return client;
}

function officialClient(env: Record<string, string>): CopilotClient {
  const client = new CopilotClient({ cliPath: tandemBin, env, logLevel: "error" });
  cleanups.push(() => client.stop());
  return client;
}

/** A fake model server behind a recording proxy (which shows Azure's URLs and every header as sent). */
async function startProxiedModel(script: string): Promise<{ server: ModelServer; proxy: RecordingProxy }> {
  const server = new ModelServer();
  server.loadScriptFile(join(scriptsDir, `${script}.yaml`));
  const { url } = await server.start();
  const { proxy, close } = await startRecordingProxy(url);
  cleanups.push(async () => {
    await close();
    await server.stop();
  });
  return { server, proxy };
}

const providerKinds = [
  { type: "openai" as const, model: "gpt-test", baseUrl: (url: string) => `${url}/v1` },
  { type: "azure" as const, model: "my-deployment", baseUrl: (url: string) => url },
  { type: "anthropic" as const, model: "claude-sonnet-4-5", baseUrl: (url: string) => url },
];

describe.each(providerKinds)("BYOK $type", (kind) => {
  it("sends provider.headers and a bearerToken (instead of the API key) on every model request (SDK 1.0.x)", async () => {
    world = await startWorld([]);
    const { server, proxy } = await startProxiedModel("plain-reply");
    const session = await v1Client(world.env).createSession({
      model: kind.model,
      provider: { type: kind.type, baseUrl: kind.baseUrl(proxy.url), apiKey: "static-key", bearerToken: "bearer-1", headers: { "X-Team": "blue", "X-Trace": "t-1" } },
      onPermissionRequest: v1ApproveAll,
    });
    await session.sendAndWait({ prompt: "hi" });
    await session.sendAndWait({ prompt: "again" });
    expect(server.requests.map((request) => request.expectationError)).toEqual([undefined, undefined]);
    const calls = proxy.requests.filter((request) => request.method === "POST");
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call.headers).toMatchObject({ "x-team": "blue", "x-trace": "t-1", authorization: "Bearer bearer-1" });
      expect(call.headers["x-api-key"]).toBeUndefined();
      expect(call.headers["api-key"]).toBeUndefined();
    }
  });

  it("asks the client for a bearer token before each model request (SDK 1.0.x bearerTokenProvider)", async () => {
    world = await startWorld([]);
    const { proxy } = await startProxiedModel("plain-reply");
    const asked: Array<{ providerName: string; sessionId: string }> = [];
    const session = await v1Client(world.env).createSession({
      model: kind.model,
      provider: {
        type: kind.type,
        baseUrl: kind.baseUrl(proxy.url),
        apiKey: "static-key",
        headers: { "X-Team": "green" },
        bearerTokenProvider: async (args) => {
          asked.push({ providerName: args.providerName, sessionId: args.sessionId });
          return `minted-${asked.length}`;
        },
      },
      onPermissionRequest: v1ApproveAll,
    });
    await session.sendAndWait({ prompt: "hi" });
    await session.sendAndWait({ prompt: "again" });
    expect(asked).toEqual([
      { providerName: "default", sessionId: session.sessionId },
      { providerName: "default", sessionId: session.sessionId },
    ]);
    const calls = proxy.requests.filter((request) => request.method === "POST");
    expect(calls.map((call) => call.headers.authorization)).toEqual(["Bearer minted-1", "Bearer minted-2"]);
    for (const call of calls) {
      expect(call.headers["x-team"]).toBe("green");
      expect(call.headers["x-api-key"]).toBeUndefined();
      expect(call.headers["api-key"]).toBeUndefined();
    }
  });
});

it("fails the turn with a session.error when the token callback throws, and answers the next message", async () => {
  world = await startWorld(["plain-reply"]);
  let fail = true;
  const session = await v1Client(world.env).createSession({
    model: "gpt-test",
    provider: {
      type: "openai",
      baseUrl: `${world.modelUrl}/v1`,
      bearerTokenProvider: async () => {
        if (fail) throw new Error("identity service down");
        return "fresh";
      },
    },
    onPermissionRequest: v1ApproveAll,
  });
  const idle = new Promise<void>((resolve) => session.on("session.idle", () => resolve()));
  await expect(session.sendAndWait({ prompt: "hi" })).rejects.toThrow(/bearer token.*identity service down/);
  // The failed turn's idle follows its error: the next message starts after it.
  await idle;
  expect(world.model.requests).toHaveLength(0);
  fail = false;
  const reply = await session.sendAndWait({ prompt: "hi again" });
  expect(reply?.data.content).toBe("Hello from the scripted model.");
  expect(world.model.requests[0]?.headers.authorization).toBe("Bearer fresh");
});

describe.each([
  { sdk: "official SDK 1.0.x", make: (env: Record<string, string>) => v1Client(env) },
  { sdk: "@tandem/sdk", make: (env: Record<string, string>) => tandemClient(env) as unknown as V1Client },
])("through $sdk", ({ make }) => {
  it("adds a message's requestHeaders to the model requests of that message only", async () => {
    world = await startWorld(["plain-reply"]);
    const session = await make(world.env).createSession({ onPermissionRequest: v1ApproveAll });
    await session.sendAndWait({ prompt: "hi", requestHeaders: { "X-Request-Tag": "first" } });
    await session.sendAndWait({ prompt: "again" });
    expect(world.model.requests.map((request) => request.headers["x-request-tag"])).toEqual(["first", undefined]);
  });

  it("steers with mode immediate: the message joins the running turn at its next model call", async () => {
    world = await startWorld(["steering"]);
    const { session, release, started } = await sessionWithLongJob(make(world.env));
    const types: string[] = [];
    session.on((event) => types.push(event.type));
    const done = session.sendAndWait({ prompt: "Run the long job" });
    await waitFor(() => started(), "the tool to start");
    await session.send({ prompt: "Oh, and use metric units", mode: "immediate" });
    release();
    const reply = await done;
    expect(reply?.data.content).toBe("Done, and I switched to metric units as you asked.");
    const second = world.model.requests[1]?.body as { messages: Array<{ role: string; content: string }> };
    expect(second.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(world.model.requests).toHaveLength(2);
    expect(types.filter((type) => type === "session.idle")).toHaveLength(1);
  });

  it("queues with mode enqueue: the message waits until the running turn has finished", async () => {
    world = await startWorld(["send-enqueue"]);
    const { session, release, started } = await sessionWithLongJob(make(world.env));
    const replies: string[] = [];
    session.on((event) => {
      if (event.type === "assistant.message") replies.push(event.data.content);
    });
    const first = session.send({ prompt: "Run the long job" });
    await waitFor(() => started(), "the tool to start");
    await first;
    const idle = new Promise<void>((resolve) => session.on("session.idle", () => resolve()));
    await session.send({ prompt: "Please use metric units", mode: "enqueue" });
    release();
    await idle;
    expect(replies).toEqual(["Starting the long job.", "The job is done.", "From now on, metric units."]);
    expect(world.model.requests.map((request) => request.expectationError)).toEqual([undefined, undefined, undefined]);
    // The queued message was not seen before the first turn's final answer.
    const second = world.model.requests[1]?.body as { messages: Array<{ role: string }> };
    expect(second.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"]);
  });
});

async function sessionWithLongJob(client: V1Client) {
  let release: () => void = () => undefined;
  let toolStarted = false;
  const session = await client.createSession({
    onPermissionRequest: v1ApproveAll,
    tools: [
      {
        name: "long_job",
        description: "A job that takes a while",
        skipPermission: true,
        handler: () => {
          toolStarted = true;
          return new Promise<string>((resolve) => (release = () => resolve("job finished")));
        },
      },
    ],
  });
  return { session, release: () => release(), started: () => toolStarted };
}

describe("reasoningEffort is echoed back", () => {
  it("in session.start, session.model.getCurrent and assistant.usage, and kept across a resume in a new runtime (SDK 1.0.x)", async () => {
    world = await startWorld(["plain-reply"]);
    const opened: Array<{ type: string; data: unknown }> = [];
    const onEvent = (event: { type: string; data: unknown }) => void opened.push(event);
    const first = v1Client(world.env);
    const session = await first.createSession({ onPermissionRequest: v1ApproveAll, reasoningEffort: "high", onEvent });
    const usage: Array<string | undefined> = [];
    session.on("assistant.usage", (event) => usage.push(event.data.reasoningEffort));
    await session.sendAndWait({ prompt: "hi" });
    expect(usage).toEqual(["high"]);
    const start = opened.find((event) => event.type === "session.start");
    expect(start?.data).toMatchObject({ selectedModel: expect.any(String), reasoningEffort: "high" });
    expect(await session.rpc.model.getCurrent()).toMatchObject({ reasoningEffort: "high" });
    expect((world.model.requests[0]?.body as { reasoning_effort?: string }).reasoning_effort).toBe("high");
    // The first runtime goes away; a new one resumes the session from its files.
    await first.forceStop();

    const resumed = await v1Client(world.env).resumeSession(session.sessionId, { onPermissionRequest: v1ApproveAll, onEvent });
    expect(await resumed.rpc.model.getCurrent()).toMatchObject({ reasoningEffort: "high" });
    const resumeEvent = opened.find((event) => event.type === "session.resume");
    expect(resumeEvent?.data).toMatchObject({ reasoningEffort: "high" });
    await resumed.sendAndWait({ prompt: "again" });
    expect((world.model.requests[1]?.body as { reasoning_effort?: string }).reasoning_effort).toBe("high");
  });

  it("in session.model.getCurrent after a switch with an effort (official SDK 0.2.0)", async () => {
    world = await startWorld(["plain-reply"]);
    const session = await officialClient(world.env).createSession({ onPermissionRequest: approveAll });
    expect(await session.rpc.model.getCurrent()).not.toHaveProperty("reasoningEffort");
    await session.rpc.model.switchTo({ modelId: "gpt-test", reasoningEffort: "low" } as { modelId: string });
    expect(await session.rpc.model.getCurrent()).toEqual({ modelId: "gpt-test", reasoningEffort: "low" });
  });
});
