/**
 * A bare `node:http` server for wire cases the scripted model server does not produce: odd line
 * endings, bytes split at chosen places, compressed bodies, streams that stop short. It records
 * each request and counts connections (to see keep-alive at work).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach } from "vitest";
import { ChatCompletionsClient, type ChatCompletionsSettings } from "../../src/providers/chat-completions/client.js";
import { ConnectionPool } from "../../src/providers/chat-completions/connections.js";

/** A request the raw server received. */
export interface RawRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body text. */
  body: string;
  /** The number of the connection it came on (1 for the first). */
  connection: number;
  /** Set when the client went away before the answer was complete. */
  closedEarly: boolean;
}

/** Answers one request. */
export type RawHandler = (request: RawRequest, response: ServerResponse) => void | Promise<void>;

/** A started raw server. */
export interface RawServer {
  url: string;
  requests: RawRequest[];
  /** Connections opened so far. */
  connections(): number;
}

/**
 * Starts raw servers for one test (closed after it).
 *
 * @example
 * const startRawServer = useRawServer();
 * const { url } = await startRawServer((request, response) => response.end("{}"));
 */
export function useRawServer(): (handler: RawHandler) => Promise<RawServer> {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });
  return async (handler) => {
    const requests: RawRequest[] = [];
    const connectionIds = new WeakMap<Socket, number>();
    let connections = 0;
    const server = createServer((incoming, response) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () => {
        const request: RawRequest = {
          method: incoming.method ?? "GET",
          url: incoming.url ?? "/",
          headers: incoming.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          connection: connectionIds.get(incoming.socket) ?? 0,
          closedEarly: false,
        };
        requests.push(request);
        response.on("close", () => {
          if (!response.writableFinished) request.closedEarly = true;
        });
        Promise.resolve(handler(request, response)).catch(() => response.destroy());
      });
    });
    server.on("connection", (socket) => connectionIds.set(socket, ++connections));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, connections: () => connections };
  };
}

/** A chat-completions stream chunk with one choice. */
export function chunk(delta: Record<string, unknown> | null, finishReason: string | null = null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: "chatcmpl-raw", object: "chat.completion.chunk", created: 1, model: "gpt-test", choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra };
}

/** Events as SSE text (`data: <json>\n\n`, a string as is), ending with `data: [DONE]` unless told otherwise. */
export function sseText(events: Array<Record<string, unknown> | string>, done = true): string {
  const lines = events.map((event) => `data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`);
  return lines.join("") + (done ? "data: [DONE]\n\n" : "");
}

/** Writes an SSE answer head. */
export function startSse(response: ServerResponse, headers: Record<string, string> = {}): void {
  response.writeHead(200, { "content-type": "text/event-stream", "x-request-id": "req-raw", ...headers });
}

/** Writes `pieces` one by one with a pause between them, so that each arrives as its own chunk. */
export async function writeSlowly(response: ServerResponse, pieces: Array<string | Buffer>, pauseMs = 15): Promise<void> {
  response.socket?.setNoDelay(true);
  for (const piece of pieces) {
    if (response.destroyed) return;
    response.write(piece);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/**
 * Chat-completions clients for one test file, each with its own connection pool (closed after each
 * test): `clientAt(url, requestTimeoutMs?)`.
 */
export function useChatClients(settings: Partial<ChatCompletionsSettings> = {}): (url: string, requestTimeoutMs?: number) => ChatCompletionsClient {
  const pools: ConnectionPool[] = [];
  afterEach(() => {
    for (const pool of pools.splice(0)) pool.close();
  });
  return (url, requestTimeoutMs = 10_000) => {
    const pool = new ConnectionPool();
    pools.push(pool);
    return new ChatCompletionsClient({ name: "openai", ...settings, baseUrl: url }, { requestTimeoutMs, streamIdleTimeoutMs: 5_000 }, pool);
  };
}

/** What `test/scripts/provider-tool-turns.yaml` answers first, as a `ModelResponse` (without the ids). */
export const toolTurnAnswer = {
  text: "Let me check.",
  reasoning: { text: "The user wants the weather in Paris; the tool knows it." },
  toolCalls: [{ id: "call_weather_1", name: "get_weather", rawArguments: '{"city":"Paris"}' }],
  usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: 20 },
  finishReason: "tool-calls",
};
