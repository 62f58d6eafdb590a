/**
 * BYOK provider configs: which URL and which credential header each type sends,
 * keyless servers, and model listing per provider type.
 */
import type { ProviderConfig } from "@tandem/protocol";
import { describe, expect, it } from "vitest";
import { parseModelList } from "../../src/providers/model-list.js";
import { createModelClient } from "../../src/providers/resolve.js";
import { clientFor, modelRequest, useModelServer } from "./helpers.js";

const startServer = useModelServer();
const question = [{ role: "user" as const, content: "hello" }];
const reply = `
name: hello
steps:
  - reply: { content: "Hi." }
`;

async function callOnce(provider: (url: string) => ProviderConfig, model = "some-model") {
  const started = await startServer([reply]);
  const response = await clientFor(provider(started.proxy.url)).generate(modelRequest(model, question), () => {});
  expect(response.text).toBe("Hi.");
  const request = started.proxy.requests[0]!;
  return { url: request.url, headers: request.headers };
}

describe("credentials and URLs per provider type", () => {
  it("openai completions: Bearer apiKey, bearerToken wins, nothing without a key (Ollama, vLLM, llama.cpp)", async () => {
    expect(await callOnce((url) => ({ baseUrl: url, apiKey: "sk-1" }))).toMatchObject({ url: "/chat/completions", headers: { authorization: "Bearer sk-1" } });
    expect((await callOnce((url) => ({ type: "openai", baseUrl: `${url}/v1/`, apiKey: "sk-1", bearerToken: "tok-2" }))).headers.authorization).toBe("Bearer tok-2");
    const keyless = await callOnce((url) => ({ type: "openai", baseUrl: `${url}/v1` }));
    expect(keyless.url).toBe("/v1/chat/completions");
    expect(keyless.headers.authorization).toBeUndefined();
  });

  it("openai responses: POST <baseUrl>/responses with the same credentials", async () => {
    const withKey = await callOnce((url) => ({ type: "openai", wireApi: "responses", baseUrl: `${url}/v1`, apiKey: "sk-1" }));
    expect(withKey).toMatchObject({ url: "/v1/responses", headers: { authorization: "Bearer sk-1" } });
    expect((await callOnce((url) => ({ type: "openai", wireApi: "responses", baseUrl: `${url}/v1` }))).headers.authorization).toBeUndefined();
  });

  it("anthropic: x-api-key (or Bearer), anthropic-version, /v1 appended to a bare host", async () => {
    const withKey = await callOnce((url) => ({ type: "anthropic", baseUrl: url, apiKey: "sk-ant" }));
    expect(withKey.url).toBe("/v1/messages");
    expect(withKey.headers).toMatchObject({ "x-api-key": "sk-ant", "anthropic-version": "2023-06-01" });
    expect(withKey.headers.authorization).toBeUndefined();
    const withToken = await callOnce((url) => ({ type: "anthropic", wireApi: "responses", baseUrl: `${url}/v1`, apiKey: "sk-ant", bearerToken: "tok" }));
    expect(withToken).toMatchObject({ url: "/v1/messages", headers: { authorization: "Bearer tok" } });
    expect(withToken.headers["x-api-key"]).toBeUndefined();
    const keyless = await callOnce((url) => ({ type: "anthropic", baseUrl: url }));
    expect(keyless.headers["x-api-key"]).toBeUndefined();
  });

  it("azure: the deployment URL with api-version, api-key (or Bearer)", async () => {
    const withKey = await callOnce((url) => ({ type: "azure", baseUrl: url, apiKey: "az-key", azure: { apiVersion: "2025-01-01-preview" } }), "gpt-4o-deploy");
    expect(withKey.url).toBe("/openai/deployments/gpt-4o-deploy/chat/completions?api-version=2025-01-01-preview");
    expect(withKey.headers["api-key"]).toBe("az-key");
    const withToken = await callOnce((url) => ({ type: "azure", baseUrl: `${url}/openai/`, bearerToken: "entra-token" }), "gpt-4o-deploy");
    expect(withToken.url).toBe("/openai/deployments/gpt-4o-deploy/chat/completions?api-version=2024-10-21");
    expect(withToken.headers).toMatchObject({ authorization: "Bearer entra-token" });
    expect(withToken.headers["api-key"]).toBeUndefined();
  });
});

describe("listModels", () => {
  it("lists an OpenAI-compatible server's models", async () => {
    const { proxy } = await startServer([reply]);
    const models = await clientFor({ type: "openai", baseUrl: proxy.url, apiKey: "sk" }).listModels();
    expect(models.map((model) => model.id)).toEqual(["gpt-4.1", "claude-sonnet-4"]);
    expect(proxy.requests[0]).toMatchObject({ url: "/models", headers: { authorization: "Bearer sk" } });
    const responses = await clientFor({ type: "openai", wireApi: "responses", baseUrl: `${proxy.url}/v1` }).listModels();
    expect(responses).toHaveLength(2);
    expect(proxy.requests[1]?.url).toBe("/v1/models");
  });

  it("lists Anthropic's models with its headers", async () => {
    const { proxy } = await startServer([reply]);
    const models = await clientFor({ type: "anthropic", baseUrl: proxy.url, apiKey: "sk-ant" }).listModels();
    expect(models.map((model) => model.id)).toEqual(["gpt-4.1", "claude-sonnet-4"]);
    expect(proxy.requests[0]).toMatchObject({ url: "/v1/models?limit=1000", headers: { "x-api-key": "sk-ant", "anthropic-version": "2023-06-01" } });
  });

  it("reports the configured deployment for Azure", async () => {
    const client = createModelClient({ type: "azure", baseUrl: "https://example.openai.azure.com", apiKey: "k" }, { env: {} }, { model: "my-deployment" });
    expect(await client.listModels()).toEqual([expect.objectContaining({ id: "my-deployment", name: "my-deployment" })]);
  });

  it("fails with a ProviderError when the list cannot be fetched", async () => {
    await expect(clientFor({ type: "openai", baseUrl: "http://127.0.0.1:1" }).listModels()).rejects.toMatchObject({ errorType: "network" });
  });

  it("maps the Anthropic, OpenAI and Copilot list shapes", () => {
    const anthropicList = { data: [{ type: "model", id: "claude-sonnet-4-5", display_name: "Claude Sonnet 4.5", created_at: "2025-09-29T00:00:00Z" }], has_more: false };
    expect(parseModelList(anthropicList, { contextWindowTokens: 200_000, reasoningEffort: true })).toEqual([
      { id: "claude-sonnet-4-5", name: "Claude Sonnet 4.5", capabilities: { supports: { vision: false, reasoningEffort: true }, limits: { max_context_window_tokens: 200_000 } } },
    ]);
    const openAiList = { object: "list", data: [{ id: "llama3.2", object: "model", owned_by: "library" }] };
    expect(parseModelList(openAiList, { contextWindowTokens: 128_000, reasoningEffort: false })[0]).toMatchObject({ id: "llama3.2", name: "llama3.2" });
    const copilotList = {
      data: [
        { id: "gpt-5", name: "GPT-5", capabilities: { type: "chat", limits: { max_context_window_tokens: 400_000 }, supports: { reasoning_effort: ["low", "high"] } } },
        { id: "text-embedding-3-small", capabilities: { type: "embeddings" } },
      ],
    };
    expect(parseModelList(copilotList, { contextWindowTokens: 128_000, reasoningEffort: false })).toEqual([
      {
        id: "gpt-5",
        name: "GPT-5",
        capabilities: { supports: { vision: false, reasoningEffort: true }, limits: { max_context_window_tokens: 400_000 } },
        supportedReasoningEfforts: ["low", "high"],
      },
    ]);
  });
});

describe("createModelClient", () => {
  it("names the client after the provider it reaches", () => {
    expect(createModelClient(undefined, { env: { COPILOT_API_URL: "http://127.0.0.1:1", GH_TOKEN: "t" } }).name).toBe("copilot");
    expect(createModelClient(undefined, { env: { OPENAI_BASE_URL: "http://127.0.0.1:1" } }).name).toBe("openai");
    expect(createModelClient({ type: "anthropic", baseUrl: "https://api.anthropic.com" }, { env: {} }).name).toBe("anthropic");
    expect(createModelClient({ type: "azure", baseUrl: "https://x.openai.azure.com" }, { env: {} }).name).toBe("azure");
    expect(createModelClient({ type: "openai", wireApi: "responses", baseUrl: "https://api.openai.com/v1" }, { env: {} }).name).toBe("openai");
  });
});
