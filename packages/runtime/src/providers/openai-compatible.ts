import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { AiSdkAdapter } from "./ai-sdk-client.js";
import { fetchModelList } from "./model-list.js";
import type { ModelRequest } from "./types.js";

/** Settings of an OpenAI-compatible chat-completions endpoint. */
export interface OpenAICompatibleSettings {
  /** A short provider name (`copilot`, `openai`, …). */
  name: string;
  /** Base URL; `/chat/completions` and `/models` are appended. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`; without it no `Authorization` header is sent (Ollama, vLLM, llama.cpp). */
  bearerToken?: string;
  headers?: Record<string, string>;
}

/**
 * Chat completions through `@ai-sdk/openai-compatible`: the Copilot API, OpenAI, and any
 * OpenAI-compatible server (Ollama, vLLM, llama.cpp, LiteLLM, …). The reasoning effort is sent as
 * `reasoning_effort` as given (`low`, `medium`, `high`, `xhigh`). Reasoning comes back as plain
 * text (`reasoning_content`) and is sent back the same way.
 *
 * @example
 * const client = new AiSdkModelClient(openAICompatibleAdapter({ name: "openai", baseUrl: "http://localhost:11434/v1" }), timeouts);
 */
export function openAICompatibleAdapter(settings: OpenAICompatibleSettings): AiSdkAdapter {
  const baseUrl = trimSlash(settings.baseUrl);
  const headers = {
    ...(settings.bearerToken ? { Authorization: `Bearer ${settings.bearerToken}` } : {}),
    ...settings.headers,
  };
  return {
    name: settings.name,
    optionsKey: settings.name,
    reasoningOrigin: undefined,
    async createModel(modelId: string, fetchImpl: typeof fetch): Promise<LanguageModelV3> {
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      const provider = createOpenAICompatible({ name: settings.name, baseURL: baseUrl, headers, includeUsage: true, fetch: fetchImpl });
      return provider.chatModel(modelId);
    },
    providerOptions(request: ModelRequest) {
      return request.reasoningEffort ? { [settings.name]: { reasoningEffort: request.reasoningEffort } } : undefined;
    },
    listModels(fetchImpl: typeof fetch) {
      return fetchModelList(`${baseUrl}/models`, headers, fetchImpl, { contextWindowTokens: 128_000, reasoningEffort: false });
    },
  };
}

/**
 * Removes trailing slashes from a URL.
 *
 * @example
 * trimSlash("http://localhost:11434/v1/"); // "http://localhost:11434/v1"
 */
export function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
