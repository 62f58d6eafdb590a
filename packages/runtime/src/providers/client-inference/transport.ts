import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../../errors.js";
import type { RequestOrigin } from "../types.js";

/** The client that performs model HTTP requests, as the transport needs it. */
export interface InferenceClient {
  readonly id: number;
  readonly isOpen: boolean;
  sendRequest<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R>;
  onClose(listener: () => void): void;
}

/** One model-layer HTTP request handed to the client. */
export interface InferenceRequest {
  method: string;
  url: string;
  headers: Readonly<Record<string, string>>;
  body?: string | Uint8Array;
  /** The session the request is made for, when there is one. */
  sessionId?: string;
  /** Who makes the request (agent trajectory, interaction type), when it is a model call. */
  origin?: RequestOrigin;
}

/** The response head the client answered with, and its body as it arrives. */
export interface InferenceResponse {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: ReadableStream<Uint8Array>;
}

/** A response head frame (`llmInference.httpResponseStart`). */
export interface ResponseStartFrame {
  requestId: string;
  status: number;
  statusText?: string;
  headers: Record<string, string[] | undefined>;
}

/** A response body frame (`llmInference.httpResponseChunk`). */
export interface ResponseChunkFrame {
  requestId: string;
  data: string;
  binary?: boolean;
  end?: boolean;
  error?: { message: string; code?: string };
}

/** Headers a response relayed by the client no longer describes: its body arrives decoded and unframed. */
const relayedHeadersDropped = new Set(["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"]);

/** Request headers the client's HTTP stack sets itself. */
const requestHeadersDropped = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive", "accept-encoding"]);

/**
 * The runtime's model HTTP requests performed by a client that called `llmInference.setProvider`
 * (one client for the whole process). Each request is handed over as `llmInference.httpRequestStart`
 * (method, URL, headers, session id) followed by its body in one `llmInference.httpRequestChunk`
 * with `end`; the client answers with `llmInference.httpResponseStart` (status and headers) and
 * `llmInference.httpResponseChunk` frames until `end` or an `error`. The body is taken as decoded,
 * as `fetch` hands it over. An abort of the caller's signal sends a `cancel` chunk and fails the
 * request at once; a client that goes away fails every request in flight.
 *
 * @example
 * transport.setProvider(client);
 * const response = await transport.send({ method: "POST", url, headers, body, sessionId }, signal);
 */
export class ClientInferenceTransport {
  private provider: InferenceClient | undefined;
  private readonly pending = new Map<string, PendingExchange>();

  /** Whether a connected client performs the model requests. */
  get active(): boolean {
    return this.provider?.isOpen === true;
  }

  /**
   * Makes `client` the one that performs model requests until it goes away. Fails with
   * `InvalidRequest` when another connected client already is.
   */
  setProvider(client: InferenceClient): void {
    const current = this.provider;
    if (current?.isOpen && current.id !== client.id) {
      throw new TandemError(ErrorCodes.InvalidRequest, "Another client is already the LLM inference provider: only one client per runtime performs its model requests.");
    }
    if (current?.id === client.id) return;
    this.provider = client;
    client.onClose(() => {
      if (this.provider !== client) return;
      this.provider = undefined;
      for (const exchange of [...this.pending.values()]) exchange.fail(new Error("The client performing model requests (llmInference.setProvider) disconnected."));
    });
  }

  /** Hands one request to the client; resolves with the response head once the client sends it. */
  async send(request: InferenceRequest, signal: AbortSignal): Promise<InferenceResponse> {
    const client = this.provider;
    if (!client?.isOpen) throw new TandemError(ErrorCodes.NotConfigured, "No connected client performs model requests (llmInference.setProvider).");
    signal.throwIfAborted();
    const requestId = globalThis.crypto.randomUUID();
    const exchange = new PendingExchange(() => this.pending.delete(requestId));
    this.pending.set(requestId, exchange);
    const onAbort = (): void => {
      if (exchange.settled) return;
      exchange.fail(signal.reason);
      const reason = signal.reason instanceof Error ? signal.reason.message : "aborted";
      client.sendRequest("llmInference.httpRequestChunk", { requestId, data: "", cancel: true, end: true, cancelReason: reason }).catch(() => undefined);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    exchange.onSettled(() => signal.removeEventListener("abort", onAbort));
    try {
      await client.sendRequest("llmInference.httpRequestStart", {
        requestId,
        ...(request.sessionId ? { sessionId: request.sessionId } : {}),
        ...(request.origin ?? {}),
        method: request.method,
        url: request.url,
        headers: headerLists(request.headers),
        transport: "http",
      });
      await client.sendRequest("llmInference.httpRequestChunk", { requestId, ...bodyFrame(request.body), end: true });
    } catch (error) {
      exchange.fail(signal.aborted ? signal.reason : new Error(`The client performing model requests did not take the request: ${error instanceof Error ? error.message : String(error)}`));
    }
    return exchange.head;
  }

  /** Accepts a response head; false when no request in flight has that id. */
  responseStart(frame: ResponseStartFrame): boolean {
    const exchange = this.pending.get(frame.requestId);
    if (!exchange) return false;
    const headers: Array<[string, string]> = [];
    for (const [name, values] of Object.entries(frame.headers)) {
      if (relayedHeadersDropped.has(name.toLowerCase())) continue;
      for (const value of values ?? []) headers.push([name, value]);
    }
    return exchange.start(frame.status, frame.statusText ?? "", headers);
  }

  /** Accepts a response body range, its end or its failure; false when no request in flight has that id. */
  responseChunk(frame: ResponseChunkFrame): boolean {
    const exchange = this.pending.get(frame.requestId);
    if (!exchange) return false;
    if (frame.data.length > 0) exchange.push(frame.binary ? Buffer.from(frame.data, "base64") : Buffer.from(frame.data, "utf8"));
    if (frame.error) {
      exchange.fail(new Error(`The client's request handler failed: ${frame.error.message}${frame.error.code ? ` (${frame.error.code})` : ""}`));
      return true;
    }
    if (frame.end) exchange.end();
    return true;
  }
}

/** One request in flight: its head, once answered, and its body stream. */
class PendingExchange {
  readonly head: Promise<InferenceResponse>;
  settled = false;
  private resolveHead!: (response: InferenceResponse) => void;
  private rejectHead!: (error: unknown) => void;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly body: ReadableStream<Uint8Array>;
  private started = false;
  private readonly settledListeners: Array<() => void> = [];

  constructor(private readonly forget: () => void) {
    this.head = new Promise<InferenceResponse>((resolve, reject) => {
      this.resolveHead = resolve;
      this.rejectHead = reject;
    });
    this.head.catch(() => undefined);
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => this.settle(),
    });
  }

  onSettled(listener: () => void): void {
    this.settledListeners.push(listener);
  }

  start(status: number, statusText: string, headers: Array<[string, string]>): boolean {
    if (this.started || this.settled) return false;
    this.started = true;
    this.resolveHead({ status, statusText, headers, body: this.body });
    return true;
  }

  push(chunk: Uint8Array): void {
    if (this.settled) return;
    this.controller.enqueue(chunk);
  }

  end(): void {
    if (this.settled) return;
    if (!this.started) this.start(200, "", []);
    this.controller.close();
    this.settle();
  }

  fail(error: unknown): void {
    if (this.settled) return;
    this.rejectHead(error);
    this.controller.error(error);
    this.settle();
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.forget();
    for (const listener of this.settledListeners.splice(0)) listener();
  }
}

function headerLists(headers: Readonly<Record<string, string>>): Record<string, string[]> {
  const lists: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (requestHeadersDropped.has(name.toLowerCase())) continue;
    (lists[name] ??= []).push(value);
  }
  return lists;
}

function bodyFrame(body: string | Uint8Array | undefined): { data: string; binary?: boolean } {
  if (body === undefined) return { data: "" };
  if (typeof body === "string") return { data: body };
  return { data: Buffer.from(body).toString("base64"), binary: true };
}
