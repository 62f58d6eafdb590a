import type { ModelInfo } from "@tandem/protocol";
import type { Logger } from "../log.js";
import { ProviderError } from "./errors.js";
import type { ModelClient, ModelRequest, ModelResponse, ModelStreamPart } from "./types.js";

/** What one model call's log line holds: never prompt text, answers or credentials. */
export interface ModelCallRecord {
  provider: string;
  model: string;
  status: "ok" | "error" | "aborted";
  latencyMs: number;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  finishReason?: string;
  errorType?: string;
  httpStatus?: number;
  providerCallId?: string;
}

/** What a model call sent and (when it succeeded) received. */
export interface ModelExchange {
  request: ModelRequest;
  response?: ModelResponse;
}

/** Called after each model call with its record, its start (epoch milliseconds) and the exchange, e.g. for telemetry. */
export type ModelCallObserver = (record: ModelCallRecord, startTime: number, exchange: ModelExchange) => void;

/**
 * A model client that logs every call at `info` ("model call" with provider, model, status,
 * latency and tokens; on failure the error's category and HTTP status, not its message) and
 * hands the same record to `observer`.
 *
 * @example
 * const client = new LoggedModelClient(createModelClient(provider, environment), logger);
 */
export class LoggedModelClient implements ModelClient {
  constructor(
    private readonly inner: ModelClient,
    private readonly logger: Logger,
    private readonly observer?: ModelCallObserver,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  async generate(request: ModelRequest, onPart: (part: ModelStreamPart) => void): Promise<ModelResponse> {
    if (!this.logger.enabled("info") && !this.observer) return this.inner.generate(request, onPart);
    const started = performance.now();
    const startTime = performance.timeOrigin + started;
    const base = { provider: this.inner.name, model: request.model };
    try {
      const response = await this.inner.generate(request, onPart);
      const { inputTokens, outputTokens, cacheReadTokens } = response.usage;
      this.log({ ...base, status: "ok", latencyMs: elapsed(started), inputTokens, outputTokens, cacheReadTokens, finishReason: response.finishReason, providerCallId: response.providerCallId }, startTime, { request, response });
      return response;
    } catch (error) {
      const status = request.signal.aborted ? "aborted" : "error";
      const detail = error instanceof ProviderError ? { errorType: error.errorType, httpStatus: error.statusCode, providerCallId: error.providerCallId } : { errorType: error instanceof Error ? error.name : typeof error };
      this.log({ ...base, status, latencyMs: elapsed(started), ...detail }, startTime, { request });
      throw error;
    }
  }

  listModels(): Promise<ModelInfo[]> {
    return this.inner.listModels();
  }

  private log(record: ModelCallRecord, startTime: number, exchange: ModelExchange): void {
    const fields = Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as unknown as ModelCallRecord;
    this.logger.info("model call", fields);
    this.observer?.(fields, startTime, exchange);
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
