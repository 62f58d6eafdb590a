import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { ModelInfo } from "@tandem/protocol";
import type { AiSdkAdapter } from "./ai-sdk-client.js";
import { ResponsesReasoningOptions } from "./openai-responses.js";
import type { ModelRequest } from "./types.js";
import { trimSlash } from "./url.js";

/** Settings of an Azure OpenAI resource. */
export interface AzureSettings {
  /** The resource endpoint, `https://<resource>.openai.azure.com` (a trailing `/openai` or `/openai/v1` is accepted). */
  baseUrl: string;
  /** `completions` (default): the deployment's chat completions; `responses`: the v1 responses API. */
  wireApi?: "completions" | "responses";
  /** Chat completions `api-version`; default {@link defaultAzureApiVersion}. */
  apiVersion?: string;
  /** Sent as `api-key`. */
  apiKey?: string;
  /** Sent as `Authorization: Bearer <token>` (a Microsoft Entra token); wins over `apiKey`. */
  bearerToken?: string;
  /** The session's model, which is the deployment name: what `listModels` reports. */
  deployment?: string;
  headers?: Record<string, string>;
}

/** The chat completions `api-version` when the provider config gives none (the Copilot SDK's default). */
export const defaultAzureApiVersion = "2024-10-21";

/**
 * Azure OpenAI through `@ai-sdk/azure`. The session's model is the deployment name. URLs, for
 * `baseUrl` = `https://<resource>.openai.azure.com`:
 * - `wireApi: "completions"`: `POST <resource>/openai/deployments/<model>/chat/completions?api-version=<azure.apiVersion>`
 * - `wireApi: "responses"`: `POST <resource>/openai/v1/responses` (the version-less v1 API; `model` in the body)
 *
 * Reasoning effort: `reasoning_effort` (chat) or `reasoning.effort` (responses), as for OpenAI.
 *
 * @example
 * const client = new AiSdkModelClient(azureAdapter({ baseUrl: "https://my-resource.openai.azure.com", apiKey, apiVersion: "2024-10-21" }), timeouts);
 */
export function azureAdapter(settings: AzureSettings): AiSdkAdapter {
  const wireApi = settings.wireApi ?? "completions";
  const resource = azureResourceUrl(settings.baseUrl);
  const reasoning = new ResponsesReasoningOptions();
  return {
    name: "azure",
    optionsKey: wireApi === "responses" ? "azure" : "openai",
    reasoningOrigin: wireApi === "responses" ? "openai-responses" : undefined,
    async createModel(modelId: string, fetchImpl: typeof fetch): Promise<LanguageModelV3> {
      const { createAzure } = await import("@ai-sdk/azure");
      const keyless = !settings.bearerToken && !settings.apiKey;
      const token = settings.bearerToken;
      const provider = createAzure({
        ...(wireApi === "responses"
          ? { baseURL: `${resource}/openai/v1` }
          : { baseURL: `${resource}/openai`, useDeploymentBasedUrls: true, apiVersion: settings.apiVersion ?? defaultAzureApiVersion }),
        ...(token ? { tokenProvider: async () => token } : { apiKey: settings.apiKey ?? "" }),
        // Without a key, no api-key header at all (undefined headers are dropped).
        headers: { ...(keyless ? { "api-key": undefined as unknown as string } : {}), ...settings.headers },
        fetch: fetchImpl,
      });
      return wireApi === "responses" ? provider.responses(modelId) : provider.chat(modelId);
    },
    providerOptions(request: ModelRequest) {
      if (wireApi === "responses") return reasoning.forRequest("azure", request);
      return request.reasoningEffort ? { openai: { reasoningEffort: request.reasoningEffort, forceReasoning: true } } : undefined;
    },
    adjustAfterError: (error, request) => wireApi === "responses" && reasoning.adjustAfterError(error, request),
    async listModels(): Promise<ModelInfo[]> {
      if (!settings.deployment) return [];
      const model: ModelInfo = {
        id: settings.deployment,
        name: settings.deployment,
        capabilities: { supports: { vision: false, reasoningEffort: true }, limits: { max_context_window_tokens: 128_000 } },
      };
      return [model];
    },
  };
}

/**
 * The resource endpoint of an Azure `baseUrl`, without a trailing `/openai` or `/openai/v1`.
 *
 * @example
 * azureResourceUrl("https://my-resource.openai.azure.com/openai/v1/"); // "https://my-resource.openai.azure.com"
 */
export function azureResourceUrl(baseUrl: string): string {
  return trimSlash(baseUrl).replace(/\/openai(\/v1)?$/i, "");
}
