import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { ModelInfo } from "@tandem/protocol";
import type { ModelToolCall, ReasoningData } from "../loop/messages.js";
import { toAiSdkPrompt, toAiSdkTools } from "./ai-sdk-prompt.js";
import { ProviderError, providerErrorFromStatus } from "./errors.js";
import { meteredFetch } from "./fetch-meter.js";
import type { ModelClient, ModelRequest, ModelResponse, ModelStreamPart, ModelUsage } from "./types.js";

/** Settings of an OpenAI-compatible chat-completions endpoint. */
export interface OpenAICompatibleSettings {
  /** A short provider name (`copilot`, `openai`, …). */
  name: string;
  /** Base URL; `/chat/completions` and `/models` are appended. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`. */
  bearerToken?: string;
  headers?: Record<string, string>;
}

/**
 * Chat completions through `@ai-sdk/openai-compatible` (the Copilot API, OpenAI, Ollama, vLLM,
 * llama.cpp, …). The provider package is loaded on first use, never at start-up.
 *
 * @example
 * const client = new OpenAICompatibleClient({ name: "copilot", baseUrl, bearerToken });
 */
export class OpenAICompatibleClient implements ModelClient {
  readonly name: string;

  constructor(private readonly settings: OpenAICompatibleSettings) {
    this.name = settings.name;
  }

  async generate(request: ModelRequest, onPart: (part: ModelStreamPart) => void): Promise<ModelResponse> {
    let providerCallId: string | undefined;
    const fetchWithMeter = meteredFetch(
      (totalBytes) => {
        if (request.stream) onPart({ type: "bytes", totalBytes });
      },
      (headers) => {
        providerCallId = headers.get("x-github-request-id") ?? headers.get("x-request-id") ?? undefined;
      },
    );
    const model = await this.createModel(request.model, fetchWithMeter);
    const callOptions = {
      prompt: toAiSdkPrompt(request.system, request.messages),
      tools: request.tools.length > 0 ? toAiSdkTools(request.tools) : undefined,
      abortSignal: request.signal,
      providerOptions: request.reasoningEffort ? { [this.name]: { reasoningEffort: request.reasoningEffort } } : undefined,
    };
    try {
      const response = request.stream
        ? await this.streamOnce(model, callOptions, onPart)
        : await this.generateOnce(model, callOptions);
      return { ...response, providerCallId: response.providerCallId ?? providerCallId };
    } catch (error) {
      throw toProviderError(error, request.signal);
    }
  }

  async listModels(): Promise<ModelInfo[]> {
    const url = `${trimSlash(this.settings.baseUrl)}/models`;
    let response: Response;
    try {
      response = await fetch(url, { headers: this.requestHeaders() });
    } catch (error) {
      throw new ProviderError(`Could not reach ${url}: ${String(error)}`, "network", undefined, undefined, true, undefined);
    }
    const text = await response.text();
    if (!response.ok) throw providerErrorFromStatus(response.status, text, Object.fromEntries(response.headers), response.statusText);
    return parseModelList(text);
  }

  private requestHeaders(): Record<string, string> {
    return {
      ...(this.settings.bearerToken ? { Authorization: `Bearer ${this.settings.bearerToken}` } : {}),
      ...this.settings.headers,
    };
  }

  private async createModel(modelId: string, fetchImpl: typeof fetch): Promise<LanguageModelV3> {
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
    const provider = createOpenAICompatible({
      name: this.name,
      baseURL: trimSlash(this.settings.baseUrl),
      headers: this.requestHeaders(),
      includeUsage: true,
      fetch: fetchImpl,
    });
    return provider.chatModel(modelId);
  }

  private async generateOnce(model: LanguageModelV3, options: Parameters<LanguageModelV3["doGenerate"]>[0]): Promise<ModelResponse> {
    const result = await model.doGenerate(options);
    let text = "";
    let reasoningText: string | undefined;
    const toolCalls: ModelToolCall[] = [];
    for (const part of result.content) {
      if (part.type === "text") text += part.text;
      else if (part.type === "reasoning") reasoningText = (reasoningText ?? "") + part.text;
      else if (part.type === "tool-call") toolCalls.push({ id: part.toolCallId, name: part.toolName, rawArguments: part.input });
    }
    const headers = result.response?.headers ?? {};
    return {
      text,
      reasoning: reasoningText === undefined ? undefined : { text: reasoningText },
      toolCalls,
      usage: convertUsage(result.usage),
      finishReason: String(result.finishReason?.unified ?? result.finishReason ?? "stop"),
      responseId: result.response?.id,
      providerCallId: headers["x-github-request-id"] ?? headers["x-request-id"],
    };
  }

  private async streamOnce(
    model: LanguageModelV3,
    options: Parameters<LanguageModelV3["doStream"]>[0],
    onPart: (part: ModelStreamPart) => void,
  ): Promise<ModelResponse> {
    const { stream } = await model.doStream(options);
    const state = new StreamState();
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      state.accept(value, onPart);
    }
    return state.result();
  }
}

/** Accumulates the parts of one streamed response. */
class StreamState {
  private text = "";
  private reasoningText: string | undefined;
  private readonly toolCalls: ModelToolCall[] = [];
  private usage: ModelUsage = {};
  private finishReason = "stop";
  private responseId: string | undefined;
  private reasoningMetadata: ReasoningData["providerMetadata"];

  accept(part: LanguageModelV3StreamPart, onPart: (part: ModelStreamPart) => void): void {
    switch (part.type) {
      case "text-delta":
        if (!part.delta) return;
        this.text += part.delta;
        onPart({ type: "text-delta", delta: part.delta });
        return;
      case "reasoning-delta":
        if (!part.delta) return;
        this.reasoningText = (this.reasoningText ?? "") + part.delta;
        onPart({ type: "reasoning-delta", delta: part.delta });
        return;
      case "reasoning-end":
        if (part.providerMetadata) this.reasoningMetadata = part.providerMetadata as ReasoningData["providerMetadata"];
        return;
      case "tool-call":
        this.toolCalls.push({ id: part.toolCallId, name: part.toolName, rawArguments: part.input });
        return;
      case "response-metadata":
        this.responseId ??= part.id;
        return;
      case "finish":
        this.usage = convertUsage(part.usage);
        this.finishReason = String((part.finishReason as { unified?: string }).unified ?? part.finishReason);
        return;
      case "error":
        throw part.error;
      default:
        return;
    }
  }

  result(): ModelResponse {
    const hasReasoning = this.reasoningText !== undefined || this.reasoningMetadata !== undefined;
    return {
      text: this.text,
      reasoning: hasReasoning ? { text: this.reasoningText, providerMetadata: this.reasoningMetadata } : undefined,
      toolCalls: this.toolCalls,
      usage: this.usage,
      finishReason: this.finishReason,
      responseId: this.responseId,
    };
  }
}

function convertUsage(usage: { inputTokens?: { total?: number; cacheRead?: number; cacheWrite?: number }; outputTokens?: { total?: number } } | undefined): ModelUsage {
  if (!usage) return {};
  return {
    inputTokens: usage.inputTokens?.total,
    outputTokens: usage.outputTokens?.total,
    cacheReadTokens: usage.inputTokens?.cacheRead,
    cacheWriteTokens: usage.inputTokens?.cacheWrite,
  };
}

/** Maps whatever the provider package threw to a {@link ProviderError} (aborts pass through). */
export function toProviderError(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return error;
  if (error instanceof ProviderError) return error;
  const candidate = error as {
    name?: string;
    message?: string;
    statusCode?: number;
    responseBody?: string;
    responseHeaders?: Record<string, string>;
    cause?: unknown;
  };
  if (typeof candidate?.statusCode === "number") {
    return providerErrorFromStatus(candidate.statusCode, candidate.responseBody ?? "", candidate.responseHeaders, candidate.message ?? "error");
  }
  const message = candidate?.message ?? String(error);
  if (candidate?.name === "AI_APICallError" || candidate?.name === "TypeError" || /fetch failed|ECONNREFUSED|ECONNRESET|socket/i.test(message)) {
    const cause = candidate.cause instanceof Error ? `: ${candidate.cause.message}` : "";
    return new ProviderError(`Could not reach the model provider: ${message}${cause}`, "network", undefined, undefined, true, undefined);
  }
  return new ProviderError(`Model provider error: ${message}`, "provider", undefined, undefined, false, undefined);
}

function parseModelList(text: string): ModelInfo[] {
  const body = JSON.parse(text) as { data?: unknown[]; models?: unknown[] };
  const items = (body.data ?? body.models ?? []) as Array<Record<string, unknown>>;
  return items
    .filter((item) => typeof item.id === "string")
    .map((item) => {
      const capabilities = (item.capabilities ?? {}) as { limits?: Record<string, number>; supports?: Record<string, unknown> };
      const limits = capabilities.limits ?? {};
      const supports = capabilities.supports ?? {};
      const policy = item.policy as { state?: string; terms?: string } | undefined;
      const billing = item.billing as { multiplier?: number } | undefined;
      return {
        id: item.id as string,
        name: typeof item.name === "string" ? item.name : (item.id as string),
        capabilities: {
          supports: { vision: Boolean(supports.vision), reasoningEffort: Boolean(supports.reasoning_effort ?? supports.reasoningEffort) },
          limits: {
            max_prompt_tokens: limits.max_prompt_tokens,
            max_output_tokens: limits.max_output_tokens,
            max_context_window_tokens: limits.max_context_window_tokens ?? 128_000,
          },
        },
        ...(policy?.state ? { policy: { state: policy.state, terms: policy.terms ?? "" } } : {}),
        ...(billing?.multiplier !== undefined ? { billing: { multiplier: billing.multiplier } } : {}),
      };
    });
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
