import type { ModelInfo } from "@tandem/protocol";
import { providerErrorFromStatus, requestIdFromHeaders, toProviderError } from "../error-mapping.js";
import { ProviderError } from "../errors.js";
import { modelListFromText } from "../model-list.js";
import { assertResponseWithinLimits, defaultResponseLimits, limitContent, ResponseMeter, ResponseTooLarge, type ResponseLimits } from "../response-limits.js";
import { CallDeadline, type ProviderTimeouts } from "../timeouts.js";
import type { ModelClient, ModelRequest, ModelResponse, ModelStreamPart } from "../types.js";
import { trimSlash } from "../url.js";
import { completionResponse } from "./completion.js";
import { ConnectionPool } from "./connections.js";
import type { HttpResponse, HttpSender } from "./http.js";
import { chatCompletionsBody, ToolsJsonCache } from "./request.js";
import { SseParser } from "./sse.js";
import { ChatStreamState } from "./stream-state.js";
import { userAgent } from "./user-agent.js";

const acceptEncoding = "gzip, deflate, br";

/** Settings of an OpenAI-compatible chat-completions endpoint. */
export interface ChatCompletionsSettings {
  /** A short provider name (`copilot`, `openai`, …), the client's `name`. */
  name: string;
  /** Base URL; `/chat/completions` and `/models` are appended. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`; without it no `Authorization` header is sent (Ollama, vLLM, llama.cpp). */
  bearerToken?: string;
  /** More headers for every request (the Copilot API's integration headers). */
  headers?: Record<string, string>;
  /** The `User-Agent` (default: `tandem/<version>`). */
  userAgent?: string;
}

/**
 * A {@link ModelClient} for OpenAI chat completions (the Copilot API, OpenAI, and any
 * OpenAI-compatible server: Ollama, vLLM, llama.cpp, LiteLLM, …) written directly on
 * `node:http` / `node:https` with keep-alive connections: the request body is one
 * `JSON.stringify`, a stream is parsed from the response bytes as they arrive. The reasoning
 * effort is sent as `reasoning_effort` as given; reasoning comes back as plain text
 * (`reasoning_content`) and is sent back the same way.
 *
 * Failures become {@link ProviderError}s (HTTP status, connection, stream error, request and
 * stream-idle timeouts); an abort of `request.signal` closes the connection at once and rejects
 * with the abort reason.
 *
 * @example
 * const client = new ChatCompletionsClient({ name: "openai", baseUrl: "http://localhost:11434/v1" }, defaultProviderTimeouts);
 * const response = await client.generate(request, (part) => { ... });
 */
export class ChatCompletionsClient implements ModelClient {
  readonly name: string;
  private readonly baseUrl: string;
  /** Parsed on first use, so that a malformed base URL fails the call (as a ProviderError), not the session. */
  private completionsUrl: URL | undefined;
  private modelsUrl: URL | undefined;
  private readonly jsonHeaders: Record<string, string>;
  private readonly streamHeaders: Record<string, string>;
  private readonly listHeaders: Record<string, string>;
  /** The Copilot API takes prompt-cache breakpoints (`copilot_cache_control`). */
  private readonly cacheMarks: boolean;
  private readonly toolsCache = new ToolsJsonCache();

  constructor(
    settings: ChatCompletionsSettings,
    private readonly timeouts: ProviderTimeouts,
    private readonly connections: HttpSender = new ConnectionPool(),
    private readonly limits: ResponseLimits = defaultResponseLimits,
  ) {
    this.name = settings.name;
    this.cacheMarks = settings.name === "copilot";
    this.baseUrl = trimSlash(settings.baseUrl);
    const common = {
      "User-Agent": settings.userAgent ?? userAgent,
      ...(settings.bearerToken ? { Authorization: `Bearer ${settings.bearerToken}` } : {}),
      ...settings.headers,
    };
    this.listHeaders = { ...common, "Accept-Encoding": acceptEncoding };
    // A compressed event stream costs a decompressor per call and delays events: ask for none.
    this.streamHeaders = { ...common, "Content-Type": "application/json" };
    this.jsonHeaders = { ...this.streamHeaders, "Accept-Encoding": acceptEncoding };
  }

  async generate(request: ModelRequest, onPart: (part: ModelStreamPart) => void): Promise<ModelResponse> {
    const deadline = new CallDeadline(request.signal, this.timeouts, request.stream);
    let providerCallId: string | undefined;
    let response: HttpResponse | undefined;
    try {
      const body = chatCompletionsBody(request, { cacheMarks: this.cacheMarks, toolsCache: this.toolsCache });
      const base = request.stream ? this.streamHeaders : this.jsonHeaders;
      const headers = request.headers ? withRequestHeaders(base, request.headers) : base;
      const url = (this.completionsUrl ??= new URL(`${this.baseUrl}/chat/completions`));
      response = await this.connections.send({ method: "POST", url, headers, body, ...(request.origin ? { origin: request.origin } : {}) }, deadline.signal);
      deadline.activity();
      providerCallId = requestIdFromHeaders(response.headers);
      await failOnErrorStatus(response, deadline.signal, this.limits);
      if (!request.stream) return assertResponseWithinLimits(completionResponse(await readBody(response, deadline.signal, this.limits), providerCallId), this.limits);
      return assertResponseWithinLimits(await readStream(response, deadline, limitContent(onPart, this.limits), providerCallId, this.limits), this.limits);
    } catch (error) {
      response?.destroy();
      if (error instanceof ResponseTooLarge && !request.signal.aborted) throw error.providerCallId || !providerCallId ? error : new ResponseTooLarge(error.limit, error.limitSize, providerCallId);
      throw toProviderError(error, { signal: request.signal, timeoutMessage: deadline.timeoutMessage, providerCallId });
    } finally {
      deadline.dispose();
    }
  }

  async listModels(): Promise<ModelInfo[]> {
    const signal = AbortSignal.timeout(this.timeouts.requestTimeoutMs);
    try {
      const url = (this.modelsUrl ??= new URL(`${this.baseUrl}/models`));
      const response = await this.connections.send({ method: "GET", url, headers: this.listHeaders }, signal);
      const text = await response.readText(signal);
      if (response.status >= 400) throw providerErrorFromStatus(response.status, text, response.headers, response.statusMessage);
      return modelListFromText(`${this.baseUrl}/models`, response.status, text, { contextWindowTokens: 128_000, reasoningEffort: false });
    } catch (error) {
      const timeoutMessage = signal.aborted ? `Listing models timed out after ${this.timeouts.requestTimeoutMs} ms` : undefined;
      throw toProviderError(error, { timeoutMessage });
    }
  }
}

/** The client's headers with a request's own laid over them (names compared case-insensitively). */
function withRequestHeaders(base: Record<string, string>, extra: Readonly<Record<string, string>>): Record<string, string> {
  const overridden = new Set(Object.keys(extra).map((name) => name.toLowerCase()));
  const kept = Object.entries(base).filter(([name]) => !overridden.has(name.toLowerCase()));
  return { ...Object.fromEntries(kept), ...extra };
}

/** Throws the {@link ProviderError} of a response that is not a success (reading its body for the message). */
async function failOnErrorStatus(response: HttpResponse, signal: AbortSignal, limits: ResponseLimits): Promise<void> {
  if (response.status >= 200 && response.status < 300) return;
  const text = await readBody(response, signal, limits);
  const providerCallId = requestIdFromHeaders(response.headers);
  if (response.status >= 400) throw providerErrorFromStatus(response.status, text, response.headers, response.statusMessage);
  // Redirects are not followed: an API endpoint answers where it is asked.
  throw new ProviderError(`Model provider error: unexpected HTTP ${response.status} ${response.statusMessage}`.trim(), "provider", response.status, providerCallId, false, undefined);
}

/**
 * Reads a server-sent-events answer: each chunk of bytes counts as activity for the idle clock;
 * each event is reported as `bytes` (the stream position just past it) and then parsed, so every
 * model chunk gives `assistant.streaming_delta` before its deltas, as in the reference runtime.
 * The answer is complete at the end of the body; a connection lost after `[DONE]` loses nothing.
 */
async function readStream(
  response: HttpResponse,
  deadline: CallDeadline,
  onPart: (part: ModelStreamPart) => void,
  providerCallId: string | undefined,
  limits: ResponseLimits,
): Promise<ModelResponse> {
  const state = new ChatStreamState(onPart, providerCallId);
  const meter = new ResponseMeter(limits, { eventStream: true });
  const signal = deadline.signal;
  const parser = new SseParser((data, position) => {
    if (data !== "[DONE]") onPart({ type: "bytes", totalBytes: position });
    state.acceptData(data);
    if (state.done || signal.aborted) parser.stop();
  });
  try {
    await response.readChunks(signal, (chunk) => {
      deadline.activity();
      if (signal.aborted) return;
      meter.push(chunk);
      parser.push(chunk);
    });
  } catch (error) {
    if (!state.done || signal.aborted) throw error;
  }
  return state.result();
}

/** A JSON body, read whole unless it passes `maxResponseBytes` (then the read stops and the connection closes). */
async function readBody(response: HttpResponse, signal: AbortSignal, limits: ResponseLimits): Promise<string> {
  const meter = new ResponseMeter(limits, { eventStream: false });
  const chunks: Buffer[] = [];
  await response.readChunks(signal, (chunk) => {
    meter.push(chunk);
    chunks.push(chunk);
  });
  return Buffer.concat(chunks).toString("utf8");
}
