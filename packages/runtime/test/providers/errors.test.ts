/**
 * Error classification from each provider's error shape, without a server.
 */
import { describe, expect, it } from "vitest";
import { providerErrorFromStatus, providerErrorFromStreamError, requestIdFromHeaders, toProviderError } from "../../src/providers/error-mapping.js";
import { ProviderError } from "../../src/providers/errors.js";
import { providerTimeoutsFromEnv } from "../../src/providers/timeouts.js";

const openAi = (message: string, code: string | null = null, type = "invalid_request_error"): string => JSON.stringify({ error: { message, type, param: null, code } });
const anthropic = (message: string, type: string): string => JSON.stringify({ type: "error", error: { type, message } });

describe("providerErrorFromStatus", () => {
  it.each([
    ["OpenAI context_length_exceeded code", 400, openAi("Too long.", "context_length_exceeded"), "context_length"],
    ["Copilot model_max_prompt_tokens_exceeded", 400, openAi("prompt token count of 130000 exceeds the limit of 128000", "model_max_prompt_tokens_exceeded"), "context_length"],
    ["Anthropic prompt too long", 400, anthropic("prompt is too long: 210344 tokens > 200000 maximum", "invalid_request_error"), "context_length"],
    ["Anthropic request too large", 413, anthropic("Request exceeds the maximum allowed number of bytes.", "request_too_large"), "context_length"],
    ["Anthropic credit balance", 400, anthropic("Your credit balance is too low to access the Anthropic API.", "invalid_request_error"), "quota"],
    ["OpenAI insufficient_quota", 429, openAi("You exceeded your current quota.", "insufficient_quota", "insufficient_quota"), "quota"],
    ["Anthropic rate limit", 429, anthropic("Number of requests has exceeded your rate limit.", "rate_limit_error"), "rate_limit"],
    ["Anthropic overloaded", 529, anthropic("Overloaded", "overloaded_error"), "provider"],
    ["payment required", 402, "", "quota"],
    ["request timeout", 408, "", "timeout"],
    ["authentication", 401, anthropic("invalid x-api-key", "authentication_error"), "authentication"],
  ])("%s → %s", (_name, status, body, errorType) => {
    expect(providerErrorFromStatus(status as number, body as string, {}, "error").errorType).toBe(errorType);
  });

  it("marks only transient failures retryable", () => {
    expect(providerErrorFromStatus(529, anthropic("Overloaded", "overloaded_error"), {}, "").retryable).toBe(true);
    expect(providerErrorFromStatus(503, "", {}, "Service Unavailable").retryable).toBe(true);
    expect(providerErrorFromStatus(429, openAi("You exceeded your current quota.", "insufficient_quota"), {}, "").retryable).toBe(false);
    expect(providerErrorFromStatus(400, openAi("Too long.", "context_length_exceeded"), {}, "").retryable).toBe(false);
  });

  it("follows x-should-retry, retry-after-ms and retry-after", () => {
    expect(providerErrorFromStatus(500, "", { "x-should-retry": "false" }, "").retryable).toBe(false);
    expect(providerErrorFromStatus(400, "", { "x-should-retry": "true" }, "").retryable).toBe(true);
    expect(providerErrorFromStatus(429, "", { "retry-after-ms": "1500", "retry-after": "9" }, "").retryAfterMs).toBe(1500);
    expect(providerErrorFromStatus(429, "", { "retry-after": "3" }, "").retryAfterMs).toBe(3000);
  });

  it("reads the tracing id of each provider", () => {
    expect(requestIdFromHeaders({ "x-github-request-id": "gh-1", "x-request-id": "x-1" })).toBe("gh-1");
    expect(requestIdFromHeaders(new Headers({ "request-id": "req_anthropic" }))).toBe("req_anthropic");
    expect(requestIdFromHeaders({ "apim-request-id": "azure-1" })).toBe("azure-1");
    expect(providerErrorFromStatus(500, "", { "request-id": "req_1" }, "").providerCallId).toBe("req_1");
  });
});

describe("toProviderError", () => {
  const live = new AbortController().signal;

  it("passes an abort through untouched", () => {
    const controller = new AbortController();
    controller.abort();
    const abort = new DOMException("aborted", "AbortError");
    expect(toProviderError(abort, { signal: controller.signal, timeoutMessage: "timed out" })).toBe(abort);
  });

  it("reports our own deadline as a retryable timeout", () => {
    expect(toProviderError(new Error("aborted"), { signal: live, timeoutMessage: "Model request timed out after 1 s" })).toMatchObject({ errorType: "timeout", retryable: true });
  });

  it("classifies errors reported inside a stream", () => {
    expect(toProviderError({ type: "overloaded_error", message: "Overloaded" }, { signal: live })).toMatchObject({ errorType: "provider", retryable: true });
    expect(providerErrorFromStreamError({ code: "rate_limit_exceeded", message: "slow down" }, "id-1")).toMatchObject({ errorType: "rate_limit", retryable: true, providerCallId: "id-1" });
    expect(providerErrorFromStreamError({ code: "context_length_exceeded", message: "too long" }, undefined)).toMatchObject({ errorType: "context_length", retryable: false });
  });

  it("classifies a connection failure deep in the cause chain as network", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    const error = Object.assign(new Error("Cannot connect to API: fetch failed"), { name: "AI_APICallError", cause: new TypeError("fetch failed", { cause: refused }) });
    const classified = toProviderError(error, { signal: live });
    expect(classified).toBeInstanceOf(ProviderError);
    expect(classified).toMatchObject({ errorType: "network", retryable: true });
  });
});

describe("providerTimeoutsFromEnv", () => {
  it("reads the two variables and falls back to 10 min / 2 min", () => {
    expect(providerTimeoutsFromEnv({})).toEqual({ requestTimeoutMs: 600_000, streamIdleTimeoutMs: 120_000 });
    expect(providerTimeoutsFromEnv({ TANDEM_REQUEST_TIMEOUT_MS: "1000", TANDEM_STREAM_IDLE_TIMEOUT_MS: "250" })).toEqual({ requestTimeoutMs: 1000, streamIdleTimeoutMs: 250 });
    expect(providerTimeoutsFromEnv({ TANDEM_REQUEST_TIMEOUT_MS: "soon", TANDEM_STREAM_IDLE_TIMEOUT_MS: "-5" })).toEqual({ requestTimeoutMs: 600_000, streamIdleTimeoutMs: 120_000 });
  });
});
