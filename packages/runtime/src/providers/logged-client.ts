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

/**
 * A model client that logs every call at `info` ("model call" with provider, model, status,
 * latency and tokens; on failure the error's category and HTTP status, not its message).
 *
 * @example
 * const client = new LoggedModelClient(createModelClient(provider, environment), logger);
 */
export class LoggedModelClient implements ModelClient {
  constructor(
    private readonly inner: ModelClient,
    private readonly logger: Logger,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  async generate(request: ModelRequest, onPart: (part: ModelStreamPart) => void): Promise<ModelResponse> {
    if (!this.logger.enabled("info")) return this.inner.generate(request, onPart);
    const started = performance.now();
    const base = { provider: this.inner.name, model: request.model };
    try {
      const response = await this.inner.generate(request, onPart);
      const { inputTokens, outputTokens, cacheReadTokens } = response.usage;
      this.log({ ...base, status: "ok", latencyMs: elapsed(started), inputTokens, outputTokens, cacheReadTokens, finishReason: response.finishReason, providerCallId: response.providerCallId });
      return response;
    } catch (error) {
      const status = request.signal.aborted ? "aborted" : "error";
      const detail = error instanceof ProviderError ? { errorType: error.errorType, httpStatus: error.statusCode, providerCallId: error.providerCallId } : { errorType: error instanceof Error ? error.name : typeof error };
      this.log({ ...base, status, latencyMs: elapsed(started), ...detail });
      throw error;
    }
  }

  listModels(): Promise<ModelInfo[]> {
    return this.inner.listModels();
  }

  private log(record: ModelCallRecord): void {
    const fields = Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
    this.logger.info("model call", fields);
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
