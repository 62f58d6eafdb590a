import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import type { ModelInfo } from "@tandem/protocol";
import { toAiSdkPrompt, toAiSdkTools, type PromptTarget } from "./ai-sdk-prompt.js";
import { requestIdFromHeaders, toProviderError } from "./error-mapping.js";
import { ProviderError } from "./errors.js";
import { meteredFetch } from "./fetch-meter.js";
import { ResponseCollector, StreamErrorPart } from "./response-collector.js";
import { assertResponseWithinLimits, defaultResponseLimits, limitContent, ResponseMeter, ResponseTooLarge, type ResponseLimits } from "./response-limits.js";
import { CallDeadline, type ProviderTimeouts } from "./timeouts.js";
import type { ModelClient, ModelRequest, ModelResponse, ModelStreamPart, RequestOrigin } from "./types.js";

/**
 * What differs between providers reached through an AI SDK provider package: how to create the
 * model, which options a request needs, where reasoning metadata lives, how to list models.
 */
export interface AiSdkAdapter extends PromptTarget {
  /** The client's name (`ModelClient.name`): `copilot`, `openai`, `azure`, `anthropic`, … */
  readonly name: string;
  /** Creates the language model; the provider package is imported here, on first use. */
  createModel(modelId: string, fetchImpl: typeof fetch): Promise<LanguageModelV3>;
  /** Provider options for one request (reasoning effort, storage, …). */
  providerOptions(request: ModelRequest): LanguageModelV3CallOptions["providerOptions"];
  /** Lists the provider's models; `fetchImpl` carries the request timeout. */
  listModels(fetchImpl: typeof fetch): Promise<ModelInfo[]>;
  /**
   * Optional: called when a request failed; returns true when the adapter changed what it sends
   * (e.g. a reasoning effort the model does not accept) so the request is worth repeating at once.
   */
  adjustAfterError?(error: ProviderError, request: ModelRequest): boolean;
}

/**
 * A {@link ModelClient} over an AI SDK `LanguageModelV3`: streams one model step (text, reasoning,
 * tool calls, usage), counts response bytes, enforces the request and stream-idle timeouts and
 * turns failures into {@link ProviderError}s. An abort of `request.signal` cancels the HTTP request
 * at once and rejects with the abort reason, never with a `ProviderError`.
 *
 * @example
 * const client = new AiSdkModelClient(anthropicAdapter({ baseUrl, apiKey }), defaultProviderTimeouts);
 * const response = await client.generate(request, (part) => { ... });
 */
/** The per-call fetch of each call in flight, by the call's abort signal (which the AI SDK hands to fetch). */
const callFetch = new WeakMap<AbortSignal, typeof fetch>();
const stableFetch: typeof fetch = (input, init) => (init?.signal ? callFetch.get(init.signal) : undefined)?.(input, init) ?? fetch(input, init);

export class AiSdkModelClient implements ModelClient {
  readonly name: string;
  private readonly models = new Map<string, Promise<LanguageModelV3>>();

  constructor(
    private readonly adapter: AiSdkAdapter,
    private readonly timeouts: ProviderTimeouts,
    private readonly limits: ResponseLimits = defaultResponseLimits,
    /** The `fetch` of a call (by who makes it): the network's, or a client's that performs the requests (`llmInference`). */
    private readonly fetchFor: (origin: RequestOrigin | undefined) => typeof fetch = () => fetch,
  ) {
    this.name = adapter.name;
  }

  async generate(request: ModelRequest, onPart: (part: ModelStreamPart) => void): Promise<ModelResponse> {
    try {
      return await this.generateOnce(request, onPart);
    } catch (error) {
      if (!(error instanceof ProviderError) || !this.adapter.adjustAfterError?.(error, request)) throw error;
      return await this.generateOnce(request, onPart);
    }
  }

  async listModels(): Promise<ModelInfo[]> {
    const signal = AbortSignal.timeout(this.timeouts.requestTimeoutMs);
    const baseFetch = this.fetchFor(undefined);
    const fetchWithTimeout: typeof fetch = (input, init) => baseFetch(input, { ...init, signal });
    try {
      return await this.adapter.listModels(fetchWithTimeout);
    } catch (error) {
      const timeoutMessage = signal.aborted ? `Listing models timed out after ${this.timeouts.requestTimeoutMs} ms` : undefined;
      throw toProviderError(error, { timeoutMessage });
    }
  }

  private async generateOnce(request: ModelRequest, onPart: (part: ModelStreamPart) => void): Promise<ModelResponse> {
    const deadline = new CallDeadline(request.signal, this.timeouts, request.stream);
    let providerCallId: string | undefined;
    const meter = new ResponseMeter(this.limits, { eventStream: request.stream });
    const fetchWithMeter = meteredFetch(
      request.stream,
      (totalBytes) => {
        deadline.activity();
        if (request.stream) onPart({ type: "bytes", totalBytes });
      },
      (headers) => {
        deadline.activity();
        providerCallId = requestIdFromHeaders(headers);
      },
      meter,
      this.fetchFor(request.origin),
    );
    const collector = new ResponseCollector({ metadataKey: this.adapter.optionsKey, reasoningOrigin: this.adapter.reasoningOrigin });
    try {
      callFetch.set(deadline.signal, fetchWithMeter);
      let modelPromise = this.models.get(request.model);
      if (!modelPromise) {
        modelPromise = this.adapter.createModel(request.model, stableFetch);
        modelPromise.catch(() => this.models.delete(request.model));
        this.models.set(request.model, modelPromise);
      }
      const model = await modelPromise;
      const options: LanguageModelV3CallOptions = {
        prompt: toAiSdkPrompt(request.system, request.messages, this.adapter, { citations: request.citations === true }),
        ...(request.tools.length > 0 ? { tools: toAiSdkTools(request.tools) } : {}),
        abortSignal: deadline.signal,
        providerOptions: this.adapter.providerOptions(request),
        ...(request.headers ? { headers: { ...request.headers } } : {}),
      };
      if (request.stream) await streamInto(model, options, collector, limitContent(onPart, this.limits));
      else collector.acceptGenerateResult(await model.doGenerate(options));
      return assertResponseWithinLimits(collector.result(providerCallId), this.limits);
    } catch (error) {
      const cause = meter.exceeded ?? (error instanceof StreamErrorPart ? error.error : error);
      if (cause instanceof ResponseTooLarge && !request.signal.aborted) throw cause.providerCallId || !providerCallId ? cause : new ResponseTooLarge(cause.limit, cause.limitSize, providerCallId);
      throw toProviderError(cause, { signal: request.signal, timeoutMessage: deadline.timeoutMessage, providerCallId });
    } finally {
      deadline.dispose();
    }
  }
}

async function streamInto(
  model: LanguageModelV3,
  options: LanguageModelV3CallOptions,
  collector: ResponseCollector,
  onPart: (part: ModelStreamPart) => void,
): Promise<void> {
  const { stream } = await model.doStream(options);
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      collector.acceptStreamPart(value, onPart);
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}
