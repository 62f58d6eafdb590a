/**
 * Shared helpers for the testkit tests: starting a server and reading SSE.
 */
import { afterEach } from "vitest";
import { ModelServer, type ModelServerOptions } from "../src/index.js";

/** One parsed server-sent event; `json` is the parsed data unless it was `[DONE]`. */
export interface SseMessage {
  event: string | undefined;
  data: string;
  json: any;
}

/** Parses an SSE body by hand (`event:` / `data:` lines, blank-line separated). */
export function parseSse(text: string): SseMessage[] {
  const messages: SseMessage[] = [];
  for (const block of text.split("\n\n")) {
    if (!block.trim()) continue;
    let event: string | undefined;
    const dataLines: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice("event: ".length);
      if (line.startsWith("data: ")) dataLines.push(line.slice("data: ".length));
    }
    const data = dataLines.join("\n");
    messages.push({ event, data, json: data === "[DONE]" ? undefined : JSON.parse(data) });
  }
  return messages;
}

/** A fetch response whose JSON body is loosely typed, for terse assertions. */
export interface JsonResponse extends Response {
  json(): Promise<any>;
}

/** `fetch` with a loosely typed `json()`. */
export function request(url: string, init?: RequestInit): Promise<JsonResponse> {
  return fetch(url, init) as Promise<JsonResponse>;
}

/** POSTs JSON and returns the response. */
export function postJson(url: string, body: unknown, init: RequestInit = {}): Promise<JsonResponse> {
  return request(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), ...init });
}

/** POSTs a streaming request and returns the parsed SSE events. */
export async function postSse(url: string, body: unknown): Promise<{ response: JsonResponse; events: SseMessage[] }> {
  const response = await postJson(url, body);
  const text = await response.text();
  return { response, events: parseSse(text) };
}

/** Starts a server for one test and stops it after the test. */
export function useServer(): (options?: ModelServerOptions) => Promise<{ server: ModelServer; url: string }> {
  const started: ModelServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.stop()));
  });
  return async (options) => {
    const server = new ModelServer(options);
    started.push(server);
    const { url } = await server.start();
    return { server, url };
  };
}
