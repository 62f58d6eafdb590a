import type { LanguageModelV3, SharedV3ProviderOptions } from "@ai-sdk/provider";
import type { AiSdkAdapter } from "./ai-sdk-client.js";
import type { ProviderError } from "./errors.js";
import { fetchModelList } from "./model-list.js";
import type { ModelRequest } from "./types.js";
import { trimSlash } from "./url.js";

/** Settings of an OpenAI responses API endpoint. */
export interface OpenAIResponsesSettings {
  /** Base URL, e.g. `https://api.openai.com/v1`; `/responses` and `/models` are appended. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>` (BYOK `bearerToken`, else `apiKey`); without it no `Authorization` header is sent. */
  bearerToken?: string;
  headers?: Record<string, string>;
}

/**
 * What a responses request asks for about reasoning, and what the server turned out to refuse.
 * One per client: a refusal is remembered for the rest of the session.
 *
 * @example
 * const reasoning = new ResponsesReasoningOptions();
 * reasoning.forRequest("openai", request); // { openai: { store: false, reasoningEffort: "high", forceReasoning: true, reasoningSummary: "auto" } }
 */
export class ResponsesReasoningOptions {
  private capEffortAtHigh = false;
  private withoutSummary = false;

  /**
   * The options for a request: `store: false` (Tandem keeps the history, so reasoning goes back as
   * `encrypted_content`, which is then requested), `reasoning.effort` from the request (marking
   * the model as a reasoning model whatever its name), and `reasoning.summary: "auto"` so the
   * reasoning is readable.
   */
  forRequest(key: string, request: ModelRequest): SharedV3ProviderOptions {
    const effort = request.reasoningEffort === "xhigh" && this.capEffortAtHigh ? "high" : request.reasoningEffort;
    return {
      [key]: {
        store: false,
        ...(effort ? { reasoningEffort: effort, forceReasoning: true } : {}),
        ...(this.withoutSummary ? {} : { reasoningSummary: "auto" }),
      },
    };
  }

  /**
   * Learns from a 400: `xhigh` refused → `high` from now on; reasoning summaries refused (an
   * organization that is not verified) → no summaries. True when the request is worth repeating.
   */
  adjustAfterError(error: ProviderError, request: ModelRequest): boolean {
    if (error.statusCode !== 400) return false;
    if (request.reasoningEffort === "xhigh" && !this.capEffortAtHigh && /xhigh/i.test(error.message)) {
      this.capEffortAtHigh = true;
      return true;
    }
    if (!this.withoutSummary && /summar/i.test(error.message)) {
      this.withoutSummary = true;
      return true;
    }
    return false;
  }
}

/**
 * The OpenAI responses API through `@ai-sdk/openai` (`wireApi: "responses"`). Reasoning effort:
 * `reasoning.effort` (`low`, `medium`, `high`; `xhigh` is sent as is and becomes `high` once the
 * model refuses it). Reasoning items come back with their `encrypted_content` and are handed back
 * on the next request.
 *
 * @example
 * const client = new AiSdkModelClient(openAIResponsesAdapter({ baseUrl: "https://api.openai.com/v1", bearerToken: key }), timeouts);
 */
export function openAIResponsesAdapter(settings: OpenAIResponsesSettings): AiSdkAdapter {
  const baseUrl = trimSlash(settings.baseUrl);
  const reasoning = new ResponsesReasoningOptions();
  return {
    name: "openai",
    optionsKey: "openai",
    reasoningOrigin: "openai-responses",
    async createModel(modelId: string, fetchImpl: typeof fetch): Promise<LanguageModelV3> {
      const { createOpenAI } = await import("@ai-sdk/openai");
      const provider = createOpenAI({
        baseURL: baseUrl,
        apiKey: settings.bearerToken ?? "",
        // Without a token, no Authorization header at all (undefined headers are dropped).
        headers: { ...settings.headers, ...(settings.bearerToken ? {} : { Authorization: undefined as unknown as string }) },
        fetch: withDefaultedAnnotations(fetchImpl),
      });
      return provider.responses(modelId);
    },
    providerOptions: (request) => reasoning.forRequest("openai", request),
    adjustAfterError: (error, request) => reasoning.adjustAfterError(error, request),
    listModels(fetchImpl: typeof fetch) {
      const headers = { ...(settings.bearerToken ? { Authorization: `Bearer ${settings.bearerToken}` } : {}), ...settings.headers };
      return fetchModelList(`${baseUrl}/models`, headers, fetchImpl, { contextWindowTokens: 128_000, reasoningEffort: false });
    },
  };
}

/**
 * A `fetch` whose complete (non-streamed) JSON answers have `annotations: []` on every
 * `output_text` part that lacks it. OpenAI always sends the list; some compatible servers leave it
 * out when there is nothing to annotate, and the AI SDK would refuse the whole answer for it.
 */
export function withDefaultedAnnotations(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!response.ok || !(response.headers.get("content-type") ?? "").includes("application/json")) return response;
    const text = await response.text();
    const headers = new Headers(response.headers);
    // The body is read (and decoded) here: its original length and encoding no longer apply.
    headers.delete("content-length");
    headers.delete("content-encoding");
    return new Response(defaultAnnotations(text), { status: response.status, statusText: response.statusText, headers });
  };
}

/** `body` with `annotations: []` added to the `output_text` parts of its `output` messages that have none; other bodies as they are. */
function defaultAnnotations(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  const output = isObject(parsed) && Array.isArray(parsed.output) ? parsed.output : undefined;
  if (!output) return body;
  let changed = false;
  for (const item of output) {
    if (!isObject(item) || item.type !== "message" || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      if (!isObject(part) || part.type !== "output_text" || part.annotations !== undefined) continue;
      part.annotations = [];
      changed = true;
    }
  }
  return changed ? JSON.stringify(parsed) : body;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
