import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { approveAll, CopilotClient, defineTool, type SessionEvent } from "../src/index.js";
import { startFakeRuntime, type FakeRuntime } from "./helpers/fake-runtime.js";

let fake: FakeRuntime;
let client: CopilotClient;

beforeEach(async () => {
  fake = await startFakeRuntime();
  client = new CopilotClient({ cliUrl: fake.url });
});

afterEach(async () => {
  await client.forceStop();
  await fake.close();
});

describe("createSession", () => {
  it("requires onPermissionRequest", async () => {
    await expect(client.createSession({} as never)).rejects.toThrow(/onPermissionRequest handler is required/);
    expect(fake.requests).toHaveLength(0);
  });

  it("auto-starts and sends exactly the official wire payload", async () => {
    const weather = defineTool("get_weather", {
      description: "Weather for a city",
      parameters: z.object({ city: z.string() }),
      handler: ({ city }) => `sunny in ${city}`,
    });
    const raw = { name: "raw", parameters: { type: "object", properties: {} }, handler: () => "", skipPermission: true, overridesBuiltInTool: true };
    const session = await client.createSession({
      sessionId: "s-1",
      onPermissionRequest: approveAll,
      onUserInputRequest: () => ({ answer: "a", wasFreeform: true }),
      hooks: { onPreToolUse: () => undefined },
      model: "gpt-test",
      clientName: "tests",
      reasoningEffort: "high",
      tools: [weather, raw],
      systemMessage: { mode: "append", content: "Be brief." },
      availableTools: ["view"],
      excludedTools: ["bash"],
      provider: { type: "openai", baseUrl: "http://localhost:1/v1" },
      workingDirectory: "/work",
      streaming: true,
      mcpServers: { mem: { command: "mem", args: [], tools: ["*"] } },
      customAgents: [{ name: "reviewer", prompt: "Review." }],
      agent: "reviewer",
      configDir: "/cfg",
      skillDirectories: ["/skills"],
      disabledSkills: ["x"],
      infiniteSessions: { enabled: false },
    });

    expect(client.getState()).toBe("connected");
    // The fake does not know `connect` (like an older runtime): the SDK falls back to `ping`.
    expect(fake.requests.map((request) => request.method)).toEqual(["connect", "ping", "session.create"]);
    const params = fake.requestsFor("session.create")[0];
    expect(params).toEqual({
      model: "gpt-test",
      sessionId: "s-1",
      clientName: "tests",
      reasoningEffort: "high",
      tools: [
        {
          name: "get_weather",
          description: "Weather for a city",
          parameters: {
            $schema: "https://json-schema.org/draft/2020-12/schema",
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"],
            additionalProperties: false,
          },
        },
        { name: "raw", parameters: { type: "object", properties: {} }, overridesBuiltInTool: true, skipPermission: true },
      ],
      systemMessage: { mode: "append", content: "Be brief." },
      availableTools: ["view"],
      excludedTools: ["bash"],
      provider: { type: "openai", baseUrl: "http://localhost:1/v1" },
      requestPermission: true,
      requestUserInput: true,
      hooks: true,
      workingDirectory: "/work",
      streaming: true,
      mcpServers: { mem: { command: "mem", args: [], tools: ["*"] } },
      envValueMode: "direct",
      customAgents: [{ name: "reviewer", prompt: "Review." }],
      agent: "reviewer",
      configDir: "/cfg",
      skillDirectories: ["/skills"],
      disabledSkills: ["x"],
      infiniteSessions: { enabled: false },
    });
    // Same key order as the official client, so the JSON on the wire matches too.
    expect(Object.keys(params).slice(0, 4)).toEqual(["model", "sessionId", "clientName", "reasoningEffort"]);
    expect(session.sessionId).toBe("s-1");
    expect(session.workspacePath).toBe("/tmp/fake/s-1");
  });

  it("sends only the always-present fields for a minimal config and generates a UUID", async () => {
    const session = await client.createSession({ onPermissionRequest: approveAll, hooks: {} });
    expect(session.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(fake.requestsFor("session.create")[0]).toEqual({
      sessionId: session.sessionId,
      requestPermission: true,
      requestUserInput: false,
      hooks: false,
      envValueMode: "direct",
    });
  });

  it("registers the session before session.create so early events reach onEvent", async () => {
    fake.handle("session.create", async (params) => {
      fake.emitEvent(params.sessionId, "session.start", { sessionId: params.sessionId, version: 1, producer: "fake", copilotVersion: "0", startTime: "now" });
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { sessionId: params.sessionId };
    });
    const seen: SessionEvent[] = [];
    const session = await client.createSession({ onPermissionRequest: approveAll, onEvent: (event) => seen.push(event) });
    expect(seen.map((event) => event.type)).toEqual(["session.start"]);
    expect(session.workspacePath).toBeUndefined();
  });

  it("unregisters the session when session.create fails", async () => {
    fake.handle("session.create", () => {
      throw new Error("boom");
    });
    const seen: SessionEvent[] = [];
    await expect(client.createSession({ sessionId: "bad", onPermissionRequest: approveAll, onEvent: (event) => seen.push(event) })).rejects.toThrow(/boom/);
    // Events for the failed id are no longer routed, and stop() has nothing to disconnect.
    fake.emitEvent("bad", "session.idle", {}, true);
    await client.ping();
    expect(seen).toEqual([]);
    expect(await client.stop()).toEqual([]);
    expect(fake.requestsFor("session.destroy")).toEqual([]);
  });

  it("throws without autoStart when not connected", async () => {
    const manual = new CopilotClient({ cliUrl: fake.url, autoStart: false });
    await expect(manual.createSession({ onPermissionRequest: approveAll })).rejects.toThrow("Client not connected. Call start() first.");
  });
});

describe("resumeSession", () => {
  it("sends session.resume with the id, the shared fields and disableResume", async () => {
    const session = await client.resumeSession("old-1", { onPermissionRequest: approveAll, disableResume: true, model: "m" });
    expect(session.sessionId).toBe("old-1");
    expect(session.workspacePath).toBe("/tmp/fake/old-1");
    expect(fake.requestsFor("session.resume")[0]).toEqual({
      sessionId: "old-1",
      model: "m",
      requestPermission: true,
      requestUserInput: false,
      hooks: false,
      envValueMode: "direct",
      disableResume: true,
    });
  });

  it("requires onPermissionRequest", async () => {
    await expect(client.resumeSession("x", {} as never)).rejects.toThrow(/required when resuming a session/);
  });
});
