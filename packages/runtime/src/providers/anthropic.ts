import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { AiSdkAdapter } from "./ai-sdk-client.js";
import { fetchModelList } from "./model-list.js";
import type { ModelRequest } from "./types.js";
import { trimSlash } from "./url.js";

/** Settings of the Anthropic messages API. */
export interface AnthropicSettings {
  /** `https://api.anthropic.com` (or a proxy); `/v1` is appended unless the URL already ends with it. */
  baseUrl: string;
  /** Sent as `x-api-key`. */
  apiKey?: string;
  /** Sent as `Authorization: Bearer <token>`; wins over `apiKey`. */
  bearerToken?: string;
  headers?: Record<string, string>;
}

/**
 * Extended-thinking budgets (tokens) per reasoning effort. Without an effort, thinking stays off.
 * `xhigh` stays below 32 000 because the budget must be smaller than `max_tokens`, which is 32 000
 * for the models with the smallest output limit (Claude Opus 4 / 4.1). Models that only think
 * adaptively get adaptive thinking instead (the provider package decides).
 *
 * @example
 * anthropicThinkingBudgets.high; // 16000
 */
export const anthropicThinkingBudgets: Readonly<Record<string, number>> = { low: 4_000, medium: 10_000, high: 16_000, xhigh: 31_999 };

/** The version the Anthropic API is called with (`anthropic-version` header). */
export const anthropicApiVersion = "2023-06-01";

/**
 * The Anthropic messages API through `@ai-sdk/anthropic`. Reasoning effort → extended thinking
 * with the budget of {@link anthropicThinkingBudgets} (`low` 4 000, `medium` 10 000, `high` 16 000,
 * `xhigh` 31 999 tokens). Thinking blocks come back with their signature (or redacted) and are
 * handed back on the next request, as Anthropic requires during tool use.
 *
 * @example
 * const client = new AiSdkModelClient(anthropicAdapter({ baseUrl: "https://api.anthropic.com", apiKey }), timeouts);
 */
export function anthropicAdapter(settings: AnthropicSettings): AiSdkAdapter {
  const apiBase = anthropicApiBase(settings.baseUrl);
  return {
    name: "anthropic",
    optionsKey: "anthropic",
    reasoningOrigin: "anthropic",
    async createModel(modelId: string, fetchImpl: typeof fetch): Promise<LanguageModelV3> {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      const keyless = !settings.bearerToken && !settings.apiKey;
      const provider = createAnthropic({
        baseURL: apiBase,
        ...(settings.bearerToken ? { authToken: settings.bearerToken } : { apiKey: settings.apiKey ?? "" }),
        // Without a key, no x-api-key header at all (undefined headers are dropped).
        headers: { ...(keyless ? { "x-api-key": undefined as unknown as string } : {}), ...settings.headers },
        fetch: fetchImpl,
      });
      return provider.messages(modelId);
    },
    providerOptions(request: ModelRequest) {
      const budgetTokens = request.reasoningEffort ? anthropicThinkingBudgets[request.reasoningEffort] : undefined;
      return budgetTokens ? { anthropic: { thinking: { type: "enabled", budgetTokens } } } : undefined;
    },
    listModels(fetchImpl: typeof fetch) {
      return fetchModelList(`${apiBase}/models?limit=1000`, anthropicHeaders(settings), fetchImpl, { contextWindowTokens: 200_000, reasoningEffort: true });
    },
  };
}

/**
 * The API base of an Anthropic `baseUrl` (a URL already ending with `/v1` is used as is).
 *
 * @example
 * anthropicApiBase("https://api.anthropic.com"); // "https://api.anthropic.com/v1"
 */
export function anthropicApiBase(baseUrl: string): string {
  const trimmed = trimSlash(baseUrl);
  return /\/v1$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

function anthropicHeaders(settings: AnthropicSettings): Record<string, string> {
  const auth: Record<string, string> = settings.bearerToken
    ? { Authorization: `Bearer ${settings.bearerToken}` }
    : settings.apiKey
      ? { "x-api-key": settings.apiKey }
      : {};
  return { "anthropic-version": anthropicApiVersion, ...auth, ...settings.headers };
}
