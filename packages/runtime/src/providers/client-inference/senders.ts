import type { IncomingHttpHeaders } from "node:http";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { HttpResponse, type HttpRequest, type HttpSender } from "../chat-completions/http.js";
import type { RequestOrigin } from "../types.js";
import type { ClientInferenceTransport, InferenceResponse } from "./transport.js";

/**
 * An {@link HttpSender} (what the chat-completions client sends through) for one session: while a
 * client performs the model requests (`llmInference.setProvider`) they go to it, else to `network`.
 *
 * @example
 * const client = new ChatCompletionsClient(settings, timeouts, new ClientHttpSender(transport, connections, sessionId));
 */
export class ClientHttpSender implements HttpSender {
  constructor(
    private readonly transport: ClientInferenceTransport,
    private readonly network: HttpSender,
    private readonly sessionId?: string,
  ) {}

  async send(request: HttpRequest, signal: AbortSignal): Promise<HttpResponse> {
    if (!this.transport.active) return this.network.send(request, signal);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value === undefined) continue;
      headers[name] = Array.isArray(value) ? value.join(", ") : String(value);
    }
    const response = await this.transport.send(
      {
        method: request.method,
        url: request.url.href,
        headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        ...(this.sessionId ? { sessionId: this.sessionId } : {}),
        ...(request.origin ? { origin: request.origin } : {}),
      },
      signal,
    );
    const body = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
    return new HttpResponse({ status: response.status, statusMessage: response.statusText, headers: nodeHeaders(response), close: () => body.destroy() }, body);
  }
}

/**
 * A `fetch` (what the AI SDK provider packages call) for one session: while a client performs the
 * model requests (`llmInference.setProvider`) they go to it, else to `network`.
 *
 * @example
 * const fetchImpl = clientFetch(transport, { sessionId, origin: request.origin });
 */
export function clientFetch(transport: ClientInferenceTransport, context: { sessionId?: string; origin?: RequestOrigin } = {}, network: typeof fetch = fetch): typeof fetch {
  const { sessionId, origin } = context;
  return async (input, init) => {
    if (!transport.active) return network(input, init);
    const request = new Request(input, init);
    const signal = init?.signal ?? request.signal;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const hasBody = request.method !== "GET" && request.method !== "HEAD";
    const body = hasBody ? bodyOf(new Uint8Array(await request.arrayBuffer())) : undefined;
    const response = await transport.send(
      { method: request.method, url: request.url, headers, ...(body !== undefined ? { body } : {}), ...(sessionId ? { sessionId } : {}), ...(origin ? { origin } : {}) },
      signal,
    );
    const nullBody = response.status === 204 || response.status === 304;
    if (nullBody) void response.body.cancel();
    return new Response(nullBody ? null : response.body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function nodeHeaders(response: InferenceResponse): IncomingHttpHeaders {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) {
    const key = name.toLowerCase();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }
  return headers;
}

/** A body as text when it is UTF-8 (JSON, the usual case), else as bytes; none when empty. */
function bodyOf(bytes: Uint8Array): string | Uint8Array | undefined {
  if (bytes.byteLength === 0) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return bytes;
  }
}
