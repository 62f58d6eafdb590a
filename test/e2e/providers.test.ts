/**
 * Every BYOK provider type driving the real runtime through the official SDK: a
 * tool-using conversation to `session.idle` against the fake model server speaking each wire
 * format (Azure through a proxy that maps its deployment URLs to the server's routes).
 */
import { join } from "node:path";
import { CopilotClient, approveAll, type SessionConfig, type SessionEvent } from "@github/copilot-sdk";
import { ModelServer } from "@tandem/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { startRecordingProxy, type RecordingProxy } from "../../packages/runtime/test/providers/recording-proxy.js";
import { scriptsDir, startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";

type ProviderConfig = NonNullable<SessionConfig["provider"]>;

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.dispose();
  world = undefined;
});

interface ByokCase {
  name: string;
  model: string;
  provider(url: string): ProviderConfig;
  /** The path of the model calls, as the client sent them. */
  path: string;
}

const byokCases: ByokCase[] = [
  { name: "openai (completions)", model: "gpt-test", path: "/v1/chat/completions", provider: (url) => ({ type: "openai", baseUrl: `${url}/v1`, apiKey: "sk-openai" }) },
  { name: "openai (responses)", model: "o4-mini", path: "/v1/responses", provider: (url) => ({ type: "openai", wireApi: "responses", baseUrl: `${url}/v1`, apiKey: "sk-openai" }) },
  {
    name: "azure",
    model: "my-deployment",
    path: "/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21",
    provider: (url) => ({ type: "azure", baseUrl: url, apiKey: "azure-key", azure: { apiVersion: "2024-10-21" } }),
  },
  { name: "anthropic", model: "claude-sonnet-4-5", path: "/v1/messages", provider: (url) => ({ type: "anthropic", baseUrl: url, apiKey: "sk-ant" }) },
];

async function startByokServer(): Promise<{ server: ModelServer; proxy: RecordingProxy }> {
  const server = new ModelServer();
  server.loadScriptFile(join(scriptsDir, "provider-tool-turns.yaml"));
  const { url } = await server.start();
  const { proxy, close } = await startRecordingProxy(url);
  cleanups.push(async () => {
    await close();
    await server.stop();
  });
  return { server, proxy };
}

describe.each(byokCases)("BYOK $name through the official SDK", (byok) => {
  it.each([false, true])("runs a tool-using conversation to session.idle (streaming: %s)", async (streaming) => {
    world = await startWorld([]);
    const { server, proxy } = await startByokServer();
    const client = new CopilotClient({ cliPath: tandemBin, env: world.env, logLevel: "error" });
    cleanups.push(async () => void (await client.stop()));
    const calls: unknown[] = [];
    const session = await client.createSession({
      model: byok.model,
      provider: byok.provider(proxy.url),
      streaming,
      reasoningEffort: "high",
      onPermissionRequest: () => ({ kind: "approved" }),
      tools: [
        {
          name: "get_weather",
          description: "Weather for a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          handler: async (args) => {
            calls.push(args);
            return { temperature: 72, city: "Paris" };
          },
        },
      ],
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));

    const reply = await session.sendAndWait({ prompt: "What is the weather in Paris?" });

    expect(reply?.data.content).toBe("It is 72 degrees in Paris.");
    expect(calls).toEqual([{ city: "Paris" }]);
    expect(events.at(-1)?.type).toBe("session.idle");
    expect(events.filter((event) => event.type === "session.error")).toEqual([]);
    expect(events.find((event) => event.type === "tool.execution_complete")?.data).toMatchObject({ toolCallId: "call_weather_1", success: true });
    const usage = events.find((event) => event.type === "assistant.usage");
    expect(usage?.data).toMatchObject({ model: byok.model, inputTokens: 120, outputTokens: 30, cacheReadTokens: 20 });
    if (streaming) expect(events.some((event) => event.type === "assistant.message_delta")).toBe(true);
    expect(world.model.requests).toHaveLength(0);
    expect(server.requests.map((request) => request.expectationError)).toEqual([undefined, undefined]);
    // Besides the model calls, at most one read of the provider's model list (the model's window).
    const listReads = proxy.requests.filter((request) => /\/models(\?|$)/.test(request.url));
    expect(listReads.length).toBeLessThanOrEqual(1);
    expect(proxy.requests.filter((request) => !listReads.includes(request)).map((request) => request.url)).toEqual([byok.path, byok.path]);
  });
});

it("hands Anthropic's signed thinking block back on the tool-result request", async () => {
  world = await startWorld([]);
  const { server, proxy } = await startByokServer();
  const client = new CopilotClient({ cliPath: tandemBin, env: world.env, logLevel: "error" });
  cleanups.push(async () => void (await client.stop()));
  const session = await client.createSession({
    model: "claude-sonnet-4-5",
    provider: { type: "anthropic", baseUrl: proxy.url, apiKey: "sk-ant" },
    reasoningEffort: "medium",
    onPermissionRequest: () => ({ kind: "approved" }),
    tools: [{ name: "get_weather", description: "Weather for a city", handler: async () => ({ temperature: 72 }) }],
  });
  await session.sendAndWait({ prompt: "What is the weather in Paris?" });
  const first = server.requests[0]?.body as { thinking?: unknown };
  expect(first.thinking).toEqual({ type: "enabled", budget_tokens: 10_000 });
  const second = server.requests[1]?.body as { messages: Array<{ role: string; content: Array<{ type: string; signature?: string }> }> };
  const thinking = second.messages[1]?.content[0];
  expect(thinking).toMatchObject({ type: "thinking", thinking: "The user wants the weather in Paris; the tool knows it." });
  expect(thinking?.signature).toEqual(expect.any(String));
});

describe("connections to the model server", () => {
  it("are kept alive and shared by the sessions of one runtime", async () => {
    world = await startWorld(["plain-reply"]);
    const client = new CopilotClient({ cliPath: tandemBin, env: world.env, logLevel: "error" });
    cleanups.push(async () => void (await client.stop()));
    const first = await client.createSession({ onPermissionRequest: approveAll });
    expect((await first.sendAndWait({ prompt: "one" }))?.data.content).toBe("Hello from the scripted model.");
    const second = await client.createSession({ onPermissionRequest: approveAll });
    expect((await second.sendAndWait({ prompt: "two" }))?.data.content).toBeTruthy();
    const modelCalls = world.model.requests.filter((request) => request.path.endsWith("/chat/completions"));
    expect(modelCalls).toHaveLength(2);
    // One kept-alive connection carried both sessions' model calls (the GitHub MCP server has its own).
    expect(new Set(modelCalls.map((request) => request.connection)).size).toBe(1);
  });
});
