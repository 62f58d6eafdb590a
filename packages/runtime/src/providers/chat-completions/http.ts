import type { Agent, ClientRequest, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, RequestOptions } from "node:http";
import type { Readable, Transform } from "node:stream";
import type { RequestOrigin } from "../types.js";

/** One HTTP request to send. */
export interface HttpRequest {
  method: "GET" | "POST";
  url: URL;
  headers: OutgoingHttpHeaders;
  /** The body (UTF-8); its `Content-Length` is set from it. */
  body?: string;
  /** Who makes the request (handed on when a client performs it). */
  origin?: RequestOrigin;
}

/**
 * Sends a request over the pool's keep-alive connections and resolves with the response head.
 * An abort of `signal` destroys the request at once and rejects with the signal's reason. A
 * request that fails on a reused idle connection before any answer (the server closed it just as
 * it was picked) is sent once more on a fresh one.
 *
 * @example
 * const response = await sendRequest(connections, { method: "GET", url: new URL("http://127.0.0.1:11434/v1/models"), headers: {} }, signal);
 * const text = await response.readText(signal);
 */
export async function sendRequest(connections: TransportSource, request: HttpRequest, signal: AbortSignal): Promise<HttpResponse> {
  const transport = await connections.transportFor(request.url);
  try {
    return await sendOnce(transport, request, signal);
  } catch (error) {
    if (!(error instanceof StaleConnection)) throw error;
    return await sendOnce(transport, request, signal);
  }
}

/** `http.request` or `https.request`. */
export type RequestFunction = (options: RequestOptions, onResponse: (response: IncomingMessage) => void) => ClientRequest;

/** How to reach servers of one protocol: its request function and its keep-alive agent. */
export interface Transport {
  request: RequestFunction;
  agent: Agent;
}

/** Where {@link sendRequest} gets the transport for a URL (the keep-alive `ConnectionPool` of `connections.ts`). */
export interface TransportSource {
  transportFor(url: URL): Transport | Promise<Transport>;
}

/** Where HTTP requests go: the keep-alive `ConnectionPool`, or a client that performs them. */
export interface HttpSender {
  /** Sends a request and resolves with the response head; an abort of `signal` rejects with its reason. */
  send(request: HttpRequest, signal: AbortSignal): Promise<HttpResponse>;
}

/** The head of a response and how to close what carries it. */
export interface ResponseHead {
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  /** Closes the connection (or cancels the relayed request) when the body is not read to its end. */
  close(): void;
}

/**
 * A response being received: status, headers, and its body (decompressed when the server used
 * `Content-Encoding: gzip`, `deflate` or `br`), read once with {@link readText} or
 * {@link readChunks}. A fully read response returns its connection to the pool; {@link destroy}
 * closes one that is not.
 */
export class HttpResponse {
  readonly status: number;
  readonly statusMessage: string;
  readonly headers: IncomingHttpHeaders;
  private ended = false;
  private decoded: Readable | undefined;

  constructor(
    private readonly head: ResponseHead,
    private readonly response: Readable,
  ) {
    this.status = head.status;
    this.statusMessage = head.statusMessage;
    this.headers = head.headers;
    // Failures are reported by the read in progress; these keep late ones from going unhandled.
    response.on("error", ignore);
  }

  /** The whole body as text. */
  async readText(signal: AbortSignal): Promise<string> {
    const chunks: Buffer[] = [];
    await this.readChunks(signal, (chunk) => chunks.push(chunk));
    return Buffer.concat(chunks).toString("utf8");
  }

  /**
   * Hands each body chunk to `onChunk` as it arrives and resolves at the end of the body. Rejects
   * with the signal's reason on abort, with what `onChunk` threw, or with a connection error
   * (code `ECONNRESET`) when the body stops short; the connection is closed in each case.
   */
  async readChunks(signal: AbortSignal, onChunk: (chunk: Buffer) => void): Promise<void> {
    const body = await this.decodedBody();
    return await new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (failure: { error: unknown } | undefined): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener("abort", onAbort);
        body.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
        if (!failure) {
          this.ended = true;
          resolve();
          return;
        }
        this.destroy();
        reject(failure.error);
      };
      const onAbort = (): void => settle({ error: signal.reason });
      const onData = (chunk: Buffer): void => {
        try {
          onChunk(chunk);
        } catch (error) {
          settle({ error });
        }
      };
      const onEnd = (): void => settle(undefined);
      const onError = (error: unknown): void => settle({ error: error ?? closedEarly() });
      const onClose = (): void => settle({ error: closedEarly() });
      if (signal.aborted) return onAbort();
      if (body.errored) return onError(body.errored);
      if (body.destroyed) return onClose();
      signal.addEventListener("abort", onAbort, { once: true });
      body.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
    });
  }

  /** Closes the connection unless the body was read to its end (then it is back in the pool). */
  destroy(): void {
    if (this.ended) return;
    this.response.destroy();
    this.head.close();
  }

  private async decodedBody(): Promise<Readable> {
    if (this.decoded) return this.decoded;
    const encoding = headerText(this.headers["content-encoding"]).trim().toLowerCase();
    if (encoding === "" || encoding === "identity") return (this.decoded = this.response);
    const zlib = await import("node:zlib");
    const decoder = createDecoder(zlib, encoding);
    if (!decoder) return (this.decoded = this.response);
    decoder.on("error", ignore);
    this.response.on("error", (error) => decoder.destroy(error));
    this.response.on("aborted", () => decoder.destroy(closedEarly()));
    this.response.pipe(decoder);
    return (this.decoded = decoder);
  }
}

/** A request failed on a reused keep-alive connection before any answer came. */
class StaleConnection extends Error {}

function sendOnce(transport: Transport, request: HttpRequest, signal: AbortSignal): Promise<HttpResponse> {
  return new Promise<HttpResponse>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const { url } = request;
    let answered = false;
    const clientRequest = transport.request(
      {
        method: request.method,
        protocol: url.protocol,
        hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        headers: request.headers,
        agent: transport.agent,
      },
      (response) => {
        answered = true;
        signal.removeEventListener("abort", onAbort);
        const head = { status: response.statusCode ?? 0, statusMessage: response.statusMessage ?? "", headers: response.headers, close: () => clientRequest.destroy() };
        resolve(new HttpResponse(head, response));
      },
    );
    const onAbort = (): void => {
      clientRequest.destroy();
      reject(signal.reason);
    };
    // Stays for the request's lifetime: a socket error after the answer is reported by the body.
    clientRequest.on("error", (error: NodeJS.ErrnoException) => {
      if (answered || signal.aborted) return;
      signal.removeEventListener("abort", onAbort);
      const stale = clientRequest.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE");
      reject(stale ? new StaleConnection(error.message, { cause: error }) : error);
    });
    signal.addEventListener("abort", onAbort, { once: true });
    // As bytes: node:http would measure a text body (flattening the concatenated string) and then
    // copy it again behind the request head; the bytes are made once, outside the JavaScript heap.
    clientRequest.end(request.body === undefined ? undefined : Buffer.from(request.body, "utf8"));
  });
}

type Zlib = typeof import("node:zlib");

function createDecoder(zlib: Zlib, encoding: string): Transform | undefined {
  // Flush what each chunk decodes at once (a compressed event stream), and accept a body that
  // ends without the final block, as browsers and undici do.
  const flush = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  switch (encoding) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip(flush);
    case "deflate":
      return zlib.createInflate(flush);
    case "br":
      return zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      return undefined;
  }
}

function closedEarly(): Error {
  return Object.assign(new Error("the connection closed before the response was complete"), { code: "ECONNRESET" });
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(", ") : (value ?? "");
}

function ignore(): void {}
