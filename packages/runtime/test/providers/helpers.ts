/**
 * Shared helpers for the provider tests: a fake model server per test, a recording proxy (Azure
 * URL shapes, cancelled requests), one entry per wire format, and a two-turn tool conversation
 * driven through the `ModelClient` interface.
 */
import { fileURLToPath } from "node:url";
import { ModelServer, parseScript, type Script } from "@tandem/testkit";
import type { ProviderConfig } from "@tandem/protocol";
import { afterEach } from "vitest";
import type { ConversationMessage, ToolSpec } from "../../src/loop/messages.js";
import { createModelClient } from "../../src/providers/resolve.js";
import { startRecordingProxy, type RecordingProxy } from "./recording-proxy.js";
import type { ModelClient, ModelRequest, ModelResponse, ModelStreamPart } from "../../src/providers/types.js";

/** The YAML scripts shared with the end-to-end tests. */
export const scriptsDir = fileURLToPath(new URL("../../../../test/scripts/", import.meta.url));

/** A started fake model server (and its recording proxy). */
export interface TestServer {
  server: ModelServer;
  url: string;
  proxy: RecordingProxy;
}

/**
 * Starts a fake model server with the given scripts (YAML text or `test/scripts/<name>.yaml`)
 * behind a recording proxy, for one test. The proxy maps Azure paths to the testkit's routes:
 * `/openai/deployments/<d>/chat/completions` → `/chat/completions`, `/openai/v1/responses` → `/v1/responses`.
 */
export function useModelServer(): (scripts: Array<string | Script>) => Promise<TestServer> {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });
  return async (scripts) => {
    const server = new ModelServer();
    for (const script of scripts) {
      if (typeof script !== "string") server.addScript(script);
      else if (script.includes("\n")) server.addScript(parseScript(script));
      else server.loadScriptFile(`${scriptsDir}${script}.yaml`);
    }
    const { url } = await server.start();
    const { proxy, close } = await startRecordingProxy(url);
    closers.push(async () => {
      await close();
      await server.stop();
    });
    return { server, url, proxy };
  };
}

/** One wire format under test: how to reach it through a BYOK provider config. */
export interface WireFormatCase {
  name: string;
  model: string;
  /** The provider config for a started server (`url` is the proxy's). */
  provider(url: string): ProviderConfig;
}

/** Every wire format, as the BYOK configs reach them. */
export const wireFormats: WireFormatCase[] = [
  { name: "chat completions", model: "gpt-test", provider: (url) => ({ type: "openai", baseUrl: url, apiKey: "sk-test" }) },
  { name: "responses", model: "o4-mini", provider: (url) => ({ type: "openai", wireApi: "responses", baseUrl: `${url}/v1`, apiKey: "sk-test" }) },
  { name: "anthropic", model: "claude-sonnet-4-5", provider: (url) => ({ type: "anthropic", baseUrl: url, apiKey: "sk-ant-test" }) },
  { name: "azure", model: "my-deployment", provider: (url) => ({ type: "azure", baseUrl: url, apiKey: "azure-key", azure: { apiVersion: "2024-10-21" } }) },
];

/** A client for a provider config, with small timeouts unless given. */
export function clientFor(provider: ProviderConfig, env: Record<string, string> = {}): ModelClient {
  return createModelClient(provider, { env: { TANDEM_REQUEST_TIMEOUT_MS: "10000", TANDEM_STREAM_IDLE_TIMEOUT_MS: "5000", ...env } });
}

/** The tool every conversation offers. */
export const weatherTool: ToolSpec = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

/** A model request with the weather tool. */
export function modelRequest(model: string, messages: ConversationMessage[], overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { model, system: "You are a test assistant.", messages, tools: [weatherTool], stream: false, signal: new AbortController().signal, ...overrides };
}

/** What a two-turn tool conversation produced. */
export interface ToolConversation {
  first: ModelResponse;
  second: ModelResponse;
  parts: ModelStreamPart[];
  messages: ConversationMessage[];
}

/** Turn 1 (expects a tool call), the tool result, turn 2 (expects text), as the agent loop does it. */
export async function runToolConversation(client: ModelClient, model: string, overrides: Partial<ModelRequest> = {}): Promise<ToolConversation> {
  const parts: ModelStreamPart[] = [];
  const messages: ConversationMessage[] = [{ role: "user", content: "What is the weather in Paris?" }];
  const first = await client.generate(modelRequest(model, messages, overrides), (part) => parts.push(part));
  messages.push({ role: "assistant", content: first.text, toolCalls: first.toolCalls, ...(first.reasoning ? { reasoning: first.reasoning } : {}) });
  for (const call of first.toolCalls) {
    messages.push({ role: "tool", toolCallId: call.id, toolName: call.name, content: JSON.stringify({ temperature: 72, city: "Paris" }) });
  }
  const second = await client.generate(modelRequest(model, messages, overrides), (part) => parts.push(part));
  return { first, second, parts, messages };
}

/** The body of the `index`-th model call the server recorded, loosely typed for assertions. */
export function requestBody(server: ModelServer, index: number): any {
  return server.requests.filter((request) => request.format !== undefined)[index]?.body;
}
