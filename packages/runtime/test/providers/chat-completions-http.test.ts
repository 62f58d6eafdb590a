/**
 * The chat-completions client's HTTP handling: keep-alive reuse (and a second try when a reused
 * connection turns out closed), compressed bodies, the headers each configuration sends, and
 * model listing.
 */
import { promisify } from "node:util";
import { brotliCompressSync, constants, createGzip, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { createModelClient } from "../../src/providers/resolve.js";
import type { ModelStreamPart } from "../../src/providers/types.js";
import { modelRequest } from "./helpers.js";
import { chunk, sseText, startSse, useChatClients, useRawServer } from "./raw-server.js";

const startRawServer = useRawServer();
const question = [{ role: "user" as const, content: "hello" }];
const completion = { id: "chatcmpl-json", choices: [{ message: { role: "assistant", content: "Hi there." }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 2 } };
const clientAt = useChatClients();

const modelList = { data: [{ id: "llama3.2", object: "model" }] };

describe("connections", () => {
  it("reuses one keep-alive connection for streamed, JSON and model-list calls", async () => {
    const server = await startRawServer((request, response) => {
      if (request.url === "/v1/models") return void response.end(JSON.stringify(modelList));
      if (JSON.parse(request.body).stream !== true) return void response.end(JSON.stringify(completion));
      startSse(response);
      response.end(sseText([chunk({ content: "Hi." }, "stop")]));
    });
    const client = clientAt(`${server.url}/v1`);
    for (const stream of [true, false, true]) expect((await client.generate(modelRequest("gpt-test", question, { stream }), () => {})).text).toMatch(/^Hi/);
    expect((await client.listModels()).map((model) => model.id)).toEqual(["llama3.2"]);
    expect(server.requests.map((request) => request.connection)).toEqual([1, 1, 1, 1]);
    expect(server.connections()).toBe(1);
  });

  it("sends a request once more on a fresh connection when the reused one was closed", async () => {
    let served = 0;
    const server = await startRawServer((_request, response) => {
      served += 1;
      if (served === 2) return void response.socket?.destroy();
      response.end(JSON.stringify(completion));
    });
    const client = clientAt(server.url);
    await client.generate(modelRequest("gpt-test", question), () => {});
    expect((await client.generate(modelRequest("gpt-test", question), () => {})).text).toBe("Hi there.");
    expect(server.requests.map((request) => request.connection)).toEqual([1, 1, 2]);
  });

  it("does not send twice on a fresh connection that fails", async () => {
    const server = await startRawServer((_request, response) => void response.socket?.destroy());
    const error = await clientAt(server.url)
      .generate(modelRequest("gpt-test", question), () => {})
      .catch((failure: unknown) => failure);
    expect(error).toMatchObject({ errorType: "network", retryable: true });
    expect(server.requests).toHaveLength(1);
  });
});

describe("compressed answers", () => {
  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ])("decodes a %s JSON answer (and asks for compression)", async (encoding, compress) => {
    const server = await startRawServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-encoding": encoding });
      response.end(compress(Buffer.from(JSON.stringify(completion))));
    });
    expect((await clientAt(server.url).generate(modelRequest("gpt-test", question), () => {})).text).toBe("Hi there.");
    expect(server.requests[0]?.headers["accept-encoding"]).toBe("gzip, deflate, br");
  });

  it("decodes a gzip event stream event by event (and asks for none)", async () => {
    const server = await startRawServer(async (_request, response) => {
      startSse(response, { "content-encoding": "gzip" });
      const gzip = createGzip();
      gzip.pipe(response);
      const flush = promisify((callback: () => void) => gzip.flush(constants.Z_SYNC_FLUSH, callback));
      for (const event of [chunk({ content: "One " }), chunk({ content: "two " }), chunk({ content: "three." }, "stop")]) {
        gzip.write(sseText([event], false));
        await flush();
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
      gzip.end("data: [DONE]\n\n");
    });
    const parts: ModelStreamPart[] = [];
    const response = await clientAt(server.url).generate(modelRequest("gpt-test", question, { stream: true }), (part) => parts.push(part));
    expect(response.text).toBe("One two three.");
    expect(parts.filter((part) => part.type === "text-delta")).toHaveLength(3);
    expect(parts.filter((part) => part.type === "bytes").length).toBeGreaterThanOrEqual(3);
    expect(server.requests[0]?.headers["accept-encoding"]).toBeUndefined();
  });
});

describe("headers and body", () => {
  it("sends the Copilot headers, the token, JSON with its length, and no Authorization without a token", async () => {
    const server = await startRawServer((_request, response) => void response.end(JSON.stringify(completion)));
    const copilot = createModelClient(undefined, { env: { COPILOT_API_URL: `${server.url}/`, GH_TOKEN: "gh-token", TANDEM_REQUEST_TIMEOUT_MS: "5000" } });
    await copilot.generate(modelRequest("gpt-4.1", question, { reasoningEffort: "high" }), () => {});
    const [request] = server.requests;
    expect(request?.url).toBe("/chat/completions");
    expect(request?.headers).toMatchObject({
      authorization: "Bearer gh-token",
      "copilot-integration-id": "tandem",
      "editor-version": "tandem/0.1.0",
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(request!.body)),
    });
    expect(JSON.parse(request!.body)).toMatchObject({ model: "gpt-4.1", reasoning_effort: "high", messages: [{ role: "system" }, { role: "user", content: "hello" }] });
    const keyless = createModelClient({ type: "openai", baseUrl: server.url }, { env: {} });
    await keyless.generate(modelRequest("llama3.2", question), () => {});
    expect(server.requests[1]?.headers.authorization).toBeUndefined();
  });
});

describe("listModels", () => {
  it("maps a compressed list and fails on one that is not JSON", async () => {
    let body = gzipSync(Buffer.from(JSON.stringify(modelList)));
    const server = await startRawServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      response.end(body);
    });
    expect(await clientAt(server.url).listModels()).toEqual([
      { id: "llama3.2", name: "llama3.2", capabilities: { supports: { vision: false, reasoningEffort: false }, limits: { max_context_window_tokens: 128_000 } } },
    ]);
    body = gzipSync(Buffer.from("<html>"));
    await expect(clientAt(server.url).listModels()).rejects.toMatchObject({ errorType: "provider", message: expect.stringContaining("is not valid JSON") });
  });

  it("times out with the request timeout", async () => {
    const server = await startRawServer(() => {});
    await expect(clientAt(server.url, 200).listModels()).rejects.toMatchObject({ errorType: "timeout", message: "Listing models timed out after 200 ms" });
  });
});
