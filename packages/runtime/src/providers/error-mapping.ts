/**
 * From a provider's failure to a {@link ProviderError}: HTTP statuses and error bodies, stream
 * errors, network failures, request ids and `retry-after`. The model clients use it (they load with
 * a session's first model call); the loop and the session only read the resulting errors.
 * @module
 */
import { ProviderError, type ProviderErrorType } from "./errors.js";

/**
 * Response headers: a `Headers`, or a plain object with lower-case names (as `node:http`'s
 * `IncomingHttpHeaders`, where a repeated header may be an array).
 */
export type HeaderSource = Headers | Record<string, string | string[] | undefined> | undefined;

/**
 * The provider's tracing id for a call: `x-github-request-id` (Copilot API), `x-request-id`
 * (OpenAI), `request-id` (Anthropic) or `apim-request-id` (Azure).
 *
 * @example
 * requestIdFromHeaders(response.headers); // "req_011CV…" for Anthropic
 */
export function requestIdFromHeaders(headers: HeaderSource): string | undefined {
  for (const name of ["x-github-request-id", "x-request-id", "request-id", "apim-request-id"]) {
    const value = readHeader(headers, name);
    if (value) return value;
  }
  return undefined;
}

/**
 * Builds a {@link ProviderError} from an HTTP status, the body text and the response headers.
 * Understands the OpenAI / Azure / Copilot body `{error: {message, type, code}}` and Anthropic's
 * `{type: "error", error: {type, message}}`; honours `retry-after`, `retry-after-ms` and
 * `x-should-retry`.
 *
 * @example
 * providerErrorFromStatus(429, '{"error":{"message":"Slow down"}}', { "retry-after": "2" }, "Too Many Requests");
 * // → errorType "rate_limit", retryable, retryAfterMs 2000
 */
export function providerErrorFromStatus(statusCode: number, bodyText: string, headers: HeaderSource, fallbackMessage: string): ProviderError {
  const detail = readErrorBody(bodyText);
  const message = detail.message ?? (bodyText ? bodyText.slice(0, 500) : fallbackMessage);
  const errorType = classifyStatus(statusCode, detail, message);
  const shouldRetry = readHeader(headers, "x-should-retry");
  const retryable = shouldRetry === "true" || (shouldRetry !== "false" && isRetryableStatus(statusCode, errorType));
  const retryAfterMs = parseRetryAfterMs(readHeader(headers, "retry-after-ms")) ?? parseRetryAfter(readHeader(headers, "retry-after"));
  return new ProviderError(`Model request failed (HTTP ${statusCode}): ${message}`, errorType, statusCode, requestIdFromHeaders(headers), retryable, retryAfterMs, detail.code);
}

/**
 * Classifies an error a provider reported inside a stream that had already started (no HTTP
 * status): Anthropic `{type: "overloaded_error", message}`, OpenAI `{code: "rate_limit_exceeded"}`.
 *
 * @example
 * providerErrorFromStreamError({ type: "overloaded_error", message: "Overloaded" }, requestId); // provider, retryable
 */
export function providerErrorFromStreamError(error: { type?: unknown; code?: unknown; message?: unknown }, providerCallId: string | undefined): ProviderError {
  const kind = `${stringOr(error.code)} ${stringOr(error.type)}`;
  const message = stringOr(error.message) || kind.trim() || "the stream reported an error";
  const text = `Model stream failed: ${message}`;
  if (/rate_limit/.test(kind)) return new ProviderError(text, "rate_limit", undefined, providerCallId, true, undefined);
  if (isQuota(kind, message)) return new ProviderError(text, "quota", undefined, providerCallId, false, undefined);
  if (isContextLength(kind, message)) return new ProviderError(text, "context_length", undefined, providerCallId, false, undefined);
  const retryable = /overloaded|server_error|api_error|internal/.test(kind) || kind.trim() === "";
  return new ProviderError(text, "provider", undefined, providerCallId, retryable, undefined);
}

/** What is known about a failed call when its error is classified. */
export interface CallFailureContext {
  /** The caller's signal, if any: when it aborted, the error passes through unchanged. */
  signal?: AbortSignal;
  /** Set when the call's own deadline fired: the message to report. */
  timeoutMessage?: string;
  /** The tracing id from the response headers, if a response arrived. */
  providerCallId?: string;
}

/**
 * Maps whatever a provider package threw (an `APICallError` with a status, a fetch failure, an
 * error the stream reported, our own deadline) to a {@link ProviderError}. An abort by the caller
 * is returned unchanged: it is not a provider failure.
 *
 * @example
 * try { ... } catch (error) { throw toProviderError(error, { signal: request.signal }); }
 */
export function toProviderError(error: unknown, context: CallFailureContext): unknown {
  if (context.signal?.aborted) return error;
  const { providerCallId } = context;
  if (context.timeoutMessage) return new ProviderError(context.timeoutMessage, "timeout", undefined, providerCallId, true, undefined);
  if (error instanceof ProviderError) return error;
  const candidate = (error ?? {}) as { name?: unknown; message?: unknown; statusCode?: unknown; responseBody?: unknown; responseHeaders?: Record<string, string> };
  // A 2xx status means the answer started and then failed (e.g. the connection dropped mid-stream).
  if (typeof candidate.statusCode === "number" && candidate.statusCode >= 400) {
    const failure = providerErrorFromStatus(candidate.statusCode, stringOr(candidate.responseBody), candidate.responseHeaders, stringOr(candidate.message) || "error");
    if (failure.providerCallId || !providerCallId) return failure;
    return new ProviderError(failure.message, failure.errorType, failure.statusCode, providerCallId, failure.retryable, failure.retryAfterMs);
  }
  if (isNetworkFailure(error)) {
    return new ProviderError(`Could not reach the model provider: ${describeChain(error)}`, "network", undefined, providerCallId, true, undefined);
  }
  if (candidate.name === "AI_LoadAPIKeyError") {
    return new ProviderError(`Model provider credentials are missing: ${stringOr(candidate.message)}`, "authentication", undefined, undefined, false, undefined);
  }
  if (!(error instanceof Error) && typeof error === "object" && error !== null) return providerErrorFromStreamError(error, providerCallId);
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(`Model provider error: ${message}`, "provider", undefined, providerCallId, false, undefined);
}

/**
 * Whether an error (or one of its causes) is a failure to reach or keep talking to the server.
 *
 * @example
 * isNetworkFailure(new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } })); // true
 */
export function isNetworkFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 6; depth++) {
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof candidate.code === "string" && networkErrorCodes.has(candidate.code)) return true;
    if (typeof candidate.message === "string" && /fetch failed|terminated|other side closed|socket hang up|Cannot connect to API/i.test(candidate.message)) {
      return true;
    }
    current = candidate.cause;
  }
  return false;
}

const networkErrorCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
]);

/**
 * `retry-after` in seconds or as an HTTP date, in milliseconds.
 *
 * @example
 * parseRetryAfter("2"); // 2000
 */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - Date.now());
}

function parseRetryAfterMs(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const milliseconds = Number(value);
  return Number.isFinite(milliseconds) ? Math.max(0, milliseconds) : undefined;
}

interface ErrorBodyDetail {
  message?: string;
  /** `error.code` and `error.type`, joined (e.g. `context_length_exceeded invalid_request_error`). */
  kind: string;
  /** `error.code` alone. */
  code?: string;
}

function readErrorBody(bodyText: string): ErrorBodyDetail {
  if (!bodyText) return { kind: "" };
  try {
    const body = JSON.parse(bodyText) as { error?: unknown; message?: unknown; detail?: unknown };
    if (typeof body.error === "string") return { message: body.error, kind: "" };
    if (body.error && typeof body.error === "object") {
      const error = body.error as { message?: unknown; code?: unknown; type?: unknown };
      const code = stringOr(error.code) || undefined;
      return { message: stringOr(error.message) || undefined, kind: `${stringOr(error.code)} ${stringOr(error.type)}`.trim(), ...(code ? { code } : {}) };
    }
    const message = stringOr(body.message) || stringOr(body.detail);
    return { message: message || undefined, kind: "" };
  } catch {
    return { kind: "" };
  }
}

function classifyStatus(statusCode: number, detail: ErrorBodyDetail, message: string): ProviderErrorType {
  if (statusCode === 401 || statusCode === 403) return "authentication";
  if (statusCode === 402) return "quota";
  if (statusCode === 408) return "timeout";
  if (statusCode === 429) return isQuota(detail.kind, message) ? "quota" : "rate_limit";
  if (statusCode === 400 || statusCode === 413 || statusCode === 422) {
    if (isContextLength(detail.kind, message) || detail.kind.includes("request_too_large")) return "context_length";
    if (isQuota(detail.kind, message)) return "quota";
  }
  return "provider";
}

function isRetryableStatus(statusCode: number, errorType: ProviderErrorType): boolean {
  if (errorType === "quota" || errorType === "authentication" || errorType === "context_length") return false;
  return statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500;
}

function isQuota(kind: string, message: string): boolean {
  return /insufficient_quota|quota_exceeded|billing/.test(kind) || /quota|billing|credit balance/i.test(message);
}

function isContextLength(kind: string, message: string): boolean {
  if (/context_length_exceeded|model_max_prompt_tokens_exceeded|string_above_max_length/.test(kind)) return true;
  return /context (length|window)|prompt is too long|too many (input )?tokens|maximum context|max_prompt_tokens|input is too long|exceeds the (context|token limit)/i.test(message);
}

function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  // Not `instanceof Headers`: in Node 20 touching the global `Headers` loads undici.
  if (isHeaders(headers)) return headers.get(name) ?? undefined;
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isHeaders(headers: NonNullable<HeaderSource>): headers is Headers {
  return typeof (headers as { get?: unknown }).get === "function";
}

function describeChain(error: unknown): string {
  const messages: string[] = [];
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const message = (current as { message?: unknown }).message;
    if (typeof message === "string" && message && !messages.includes(message)) messages.push(message);
    current = (current as { cause?: unknown }).cause;
  }
  return messages.join(": ") || String(error);
}

function stringOr(value: unknown): string {
  return typeof value === "string" ? value : "";
}
