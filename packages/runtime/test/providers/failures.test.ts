/**
 * Failures of every wire format, classified for the retry policy and `session.error`: HTTP errors
 * in each provider's shape, connection failures, timeouts, and aborts (which are not failures).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ProviderError } from "../../src/providers/errors.js";
import type { ModelStreamPart } from "../../src/providers/types.js";
import { clientFor, modelRequest, useModelServer, wireFormats } from "./helpers.js";

const startServer = useModelServer();
const question = [{ role: "user" as const, content: "What is the weather in Paris?" }];

/** Context-length messages as each provider words them. */
const contextLengthMessages: Record<string, string> = {
  "chat completions": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
  responses: "Your input exceeds the context window of this model. Please adjust your input and try again.",
  anthropic: "prompt is too long: 210344 tokens > 200000 maximum",
  azure: "This model's maximum context length is 128000 tokens. However, you requested 131072 tokens.",
};

function errorScript(status: number, message: string, retryAfter?: number): string {
  return `
name: fails
steps:
  - error: { status: ${status}, message: ${JSON.stringify(message)}${retryAfter !== undefined ? `, retryAfter: ${retryAfter}` : ""} }
`;
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error,
  );
}

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

describe.each(wireFormats)("$name failures", (format) => {
  it.each([
    { status: 401, message: "Invalid API key", errorType: "authentication", retryable: false },
    { status: 403, message: "This key may not use this model", errorType: "authentication", retryable: false },
    { status: 429, message: "Rate limit reached, slow down", errorType: "rate_limit", retryable: true },
    { status: 429, message: "You exceeded your current quota, please check your plan and billing details.", errorType: "quota", retryable: false },
    { status: 500, message: "The server had an error", errorType: "provider", retryable: true },
    { status: 400, message: "Unknown parameter: 'foo'", errorType: "provider", retryable: false },
  ])("HTTP $status ($message) → $errorType", async ({ status, message, errorType, retryable }) => {
    const { proxy } = await startServer([errorScript(status, message)]);
    for (const stream of [false, true]) {
      const error = await failureOf(clientFor(format.provider(proxy.url)).generate(modelRequest(format.model, question, { stream }), () => {}));
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ errorType, statusCode: status, retryable, providerCallId: expect.any(String) });
      expect((error as Error).message).toContain(message);
    }
  });

  it("honours retry-after on a 429", async () => {
    const { proxy } = await startServer([errorScript(429, "Too many requests", 2)]);
    const error = await failureOf(clientFor(format.provider(proxy.url)).generate(modelRequest(format.model, question, { stream: true }), () => {}));
    expect(error).toMatchObject({ errorType: "rate_limit", retryable: true, retryAfterMs: 2000 });
  });

  it("recognizes the provider's context-length error", async () => {
    const { proxy } = await startServer([errorScript(400, contextLengthMessages[format.name]!)]);
    const error = await failureOf(clientFor(format.provider(proxy.url)).generate(modelRequest(format.model, question), () => {}));
    expect(error).toMatchObject({ errorType: "context_length", statusCode: 400, retryable: false });
  });

  it("reports a refused connection as a retryable network failure", async () => {
    const port = await closedPort();
    const error = await failureOf(clientFor(format.provider(`http://127.0.0.1:${port}`)).generate(modelRequest(format.model, question), () => {}));
    expect(error).toMatchObject({ errorType: "network", retryable: true });
    expect((error as Error).message).toMatch(/ECONNREFUSED|fetch failed|connect/i);
  });

  it("reports a connection reset in the middle of a stream as a network failure", async () => {
    const url = await startResettingServer();
    const parts: ModelStreamPart[] = [];
    const error = await failureOf(clientFor(format.provider(url)).generate(modelRequest(format.model, question, { stream: true }), (part) => parts.push(part)));
    // The server answered 200 and wrote a comment before the reset: the stream had started.
    expect(error).toMatchObject({ errorType: "network", retryable: true });
    expect(parts.filter((part) => part.type !== "bytes")).toEqual([]);
  });

  it("times out a request that never answers (request timeout)", async () => {
    const { proxy } = await startServer(["provider-hang"]);
    const client = clientFor(format.provider(proxy.url), { TANDEM_REQUEST_TIMEOUT_MS: "300" });
    const started = Date.now();
    const error = await failureOf(client.generate(modelRequest(format.model, question), () => {}));
    expect(error).toMatchObject({ errorType: "timeout", retryable: true });
    expect((error as Error).message).toContain("timed out after 300 ms");
    expect(Date.now() - started).toBeLessThan(2000);
    await waitUntil(() => proxy.requests[0]?.clientClosedEarly === true);
  });

  it("times out a stream that goes silent (idle timeout), before and after the first byte", async () => {
    for (const script of ["provider-hang", "provider-slow-stream"]) {
      const { proxy } = await startServer([script]);
      const client = clientFor(format.provider(proxy.url), { TANDEM_STREAM_IDLE_TIMEOUT_MS: "300" });
      const error = await failureOf(client.generate(modelRequest(format.model, question, { stream: true }), () => {}));
      expect(error).toMatchObject({ errorType: "timeout", retryable: true });
      expect((error as Error).message).toContain("idle for 300 ms");
    }
  });

  it("cancels the HTTP request at once on abort during a stream, without a ProviderError", async () => {
    const { proxy } = await startServer(["provider-slow-stream"]);
    const controller = new AbortController();
    let abortedAt = 0;
    const onPart = (part: ModelStreamPart): void => {
      if (part.type !== "bytes" || controller.signal.aborted) return;
      abortedAt = Date.now();
      controller.abort(new Error("user abort"));
    };
    const error = await failureOf(clientFor(format.provider(proxy.url)).generate(modelRequest(format.model, question, { stream: true, signal: controller.signal }), onPart));
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect(error).not.toBeInstanceOf(ProviderError);
    await waitUntil(() => proxy.requests[0]?.clientClosedEarly === true);
  });

  it("cancels a request that is still waiting for an answer on abort", async () => {
    const { proxy } = await startServer(["provider-hang"]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await failureOf(clientFor(format.provider(proxy.url)).generate(modelRequest(format.model, question, { signal: controller.signal }), () => {}));
    expect(error).not.toBeInstanceOf(ProviderError);
    await waitUntil(() => proxy.requests[0]?.clientClosedEarly === true);
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server that starts an SSE answer and then drops the connection. */
async function startResettingServer(): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(": keep-alive\n\n");
    setTimeout(() => response.socket?.destroy(), 50);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function waitUntil(predicate: () => boolean, timeoutMs = 2000): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error("condition not reached");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
