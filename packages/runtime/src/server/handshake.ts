// The handshake reads one tiny message itself (with the edge's header parser) before any JSON-RPC
// machinery (or the runtime) is given the socket, so an unauthenticated client reaches nothing.
import type { Socket } from "node:net";
import { ErrorCodes } from "@tandem/protocol/errors";
import type { Logger } from "../log.js";
import type { Guess } from "./admission/guess-throttle.js";
import { tokenMatches } from "./connection-token.js";
import { MAX_HEADER_BYTES, parseFrameHeader } from "./frame-header.js";

/** Bytes a client may send before it has authenticated. A `connect` request is far smaller. */
const MAX_HANDSHAKE_BYTES = 64 * 1024;
/** How long a client has to authenticate after connecting, unless the options say otherwise. */
const HANDSHAKE_TIMEOUT_MS = 5_000;

/** What the handshake needs to know. */
export interface HandshakeOptions {
  /** The token `connect` must carry. */
  token: string;
  /** The `connect` result for a client that authenticated. */
  connectResult: () => unknown;
  logger: Logger;
  /** How long the client has to authenticate (default 5 s). */
  timeoutMs?: number;
  /** Lets one token guess through, or says how long the client's user must wait (see `GuessThrottle`). */
  beginGuess?: () => Guess | { retryAfterMs: number };
  /** Reports a refusal (default: a warning in `logger`). */
  onRefused?: (reason: string) => void;
}

type Frame = { kind: "incomplete" } | { kind: "invalid"; reason: string } | { kind: "message"; body: string; bytes: number; rest: Buffer };

/**
 * Holds a new TCP connection until its first request, `connect {token}`, carries the right token.
 * Then it answers that request and calls `admit` with the socket (paused, with any bytes after the
 * `connect` request put back), which hands it to the JSON-RPC connection. Any other first request,
 * a wrong or missing token, a malformed frame, too many bytes or a timeout gets a JSON-RPC error
 * (-32008 Unauthenticated, or a parse error) and the connection is closed. Notifications sent
 * before `connect` are dropped. At most 64 KiB are held, and 64 KiB of messages examined, before
 * authentication (a client that sends more is cut off), and the socket is not read while a message
 * is being examined, so a client cannot make it buffer more.
 */
export function authenticateSocket(socket: Socket, options: HandshakeOptions, admit: (socket: Socket) => void): void {
  const { logger } = options;
  const peer = `${socket.remoteAddress ?? "?"}:${socket.remotePort ?? "?"}`;
  const timeoutMs = options.timeoutMs ?? HANDSHAKE_TIMEOUT_MS;
  const onRefused = options.onRefused ?? ((reason: string) => logger.warn(`refused TCP client ${peer}: ${reason}`));
  let buffered: Buffer = Buffer.alloc(0);
  let busy = false;
  let finished = false;
  /** Bytes of the messages examined so far (notifications before `connect` are dropped, but counted). */
  let examinedBytes = 0;

  const finish = (): void => {
    finished = true;
    clearTimeout(timer);
    socket.off("data", onData);
    socket.off("error", onError);
    socket.off("close", onClose);
  };
  const refuse = (reason: string, reply?: string): void => {
    if (finished) return;
    finish();
    onRefused(reason);
    socket.on("error", () => undefined);
    if (reply === undefined) socket.destroy();
    else socket.end(reply, () => socket.destroy());
  };
  const onError = (error: Error): void => refuse(`socket error: ${error.message}`);
  const onData = (chunk: Buffer): void => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    if (buffered.length > MAX_HANDSHAKE_BYTES) {
      refuse(`sent more than ${MAX_HANDSHAKE_BYTES} bytes without authenticating`);
      return;
    }
    void pump();
  };
  const timer = setTimeout(() => refuse(`did not authenticate within ${timeoutMs / 1000} s`), timeoutMs);

  const pump = async (): Promise<void> => {
    if (busy || finished) return;
    busy = true;
    try {
      for (;;) {
        const frame = takeFrame(buffered);
        if (frame.kind === "incomplete") return;
        if (frame.kind === "invalid") {
          refuse(frame.reason, errorFrame(null, ErrorCodes.ParseError, `Parse error: ${frame.reason}`));
          return;
        }
        buffered = frame.rest;
        examinedBytes += frame.bytes;
        if (examinedBytes > MAX_HANDSHAKE_BYTES) {
          refuse(`sent more than ${MAX_HANDSHAKE_BYTES} bytes of messages without authenticating`);
          return;
        }
        // Nothing more is read while the message is examined (the token check is asynchronous).
        socket.pause();
        const outcome = await examine(frame.body, options);
        if (finished) return;
        if (outcome.kind === "ignore") {
          socket.resume();
          continue;
        }
        if (outcome.kind === "refuse") {
          refuse(outcome.reason, outcome.reply);
          return;
        }
        finish();
        socket.write(outcome.reply);
        if (buffered.length > 0) socket.unshift(buffered);
        logger.debug(`TCP client ${peer} authenticated`);
        admit(socket);
        socket.resume();
        return;
      }
    } finally {
      busy = false;
    }
  };
  const onClose = (): void => {
    if (!finished) finish();
  };

  socket.on("data", onData);
  socket.on("error", onError);
  socket.on("close", onClose);
}

type Outcome = { kind: "ignore" } | { kind: "refuse"; reason: string; reply: string } | { kind: "admit"; reply: string };

/** Decides what one message sent before authentication gets. */
async function examine(body: string, options: HandshakeOptions): Promise<Outcome> {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch (error) {
    const reason = (error as Error).message;
    return { kind: "refuse", reason: `unparsable message: ${reason}`, reply: errorFrame(null, ErrorCodes.ParseError, `Parse error: ${reason}`) };
  }
  if (!message || typeof message !== "object" || Array.isArray(message)) {
    return { kind: "refuse", reason: "not a JSON-RPC message", reply: errorFrame(null, ErrorCodes.InvalidRequest, "Invalid request: expected a JSON-RPC message object") };
  }
  const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
  const requestId = typeof id === "string" || typeof id === "number" ? id : null;
  if (id === undefined) return { kind: "ignore" };
  if (method !== "connect") {
    const reply = errorFrame(
      requestId,
      ErrorCodes.Unauthenticated,
      `AUTHENTICATION_FAILED: not authenticated: the first request on this connection must be \`connect\` with the runtime's connection token (got ${JSON.stringify(method)})`,
    );
    return { kind: "refuse", reason: `sent ${JSON.stringify(method)} before connect`, reply };
  }
  const token = params && typeof params === "object" ? (params as { token?: unknown }).token : undefined;
  if (token === undefined) {
    const reply = errorFrame(requestId, ErrorCodes.Unauthenticated, "AUTHENTICATION_FAILED: not authenticated: this runtime requires a connection token; send it as `connect` { token }");
    return { kind: "refuse", reason: "connect without a token", reply };
  }
  const guess = options.beginGuess?.();
  if (guess && "retryAfterMs" in guess) {
    const reply = errorFrame(requestId, ErrorCodes.Unauthenticated, `AUTHENTICATION_FAILED: not authenticated: too many wrong connection tokens from this OS user or address; retry in ${guess.retryAfterMs} ms`);
    return { kind: "refuse", reason: `too many wrong connection tokens (retry in ${guess.retryAfterMs} ms)`, reply };
  }
  const matches = await tokenMatches(options.token, token);
  if (!matches) {
    guess?.failed();
    return { kind: "refuse", reason: "wrong connection token", reply: errorFrame(requestId, ErrorCodes.Unauthenticated, "AUTHENTICATION_FAILED: not authenticated: invalid connection token") };
  }
  guess?.settled();
  return { kind: "admit", reply: frameJson(JSON.stringify({ jsonrpc: "2.0", id: requestId, result: options.connectResult() })) };
}

/** Takes one Content-Length frame off the front of `buffer` (headers as the JSON-RPC edge reads them). */
function takeFrame(buffer: Buffer): Frame {
  const headerEnd = buffer.indexOf("\r\n\r\n");
  if (headerEnd === -1) return buffer.length > MAX_HEADER_BYTES ? { kind: "invalid", reason: "header too long" } : { kind: "incomplete" };
  const parsed = parseFrameHeader(buffer.subarray(0, headerEnd).toString("latin1"), MAX_HANDSHAKE_BYTES, "the limit before authentication");
  if (!parsed.ok) return { kind: "invalid", reason: parsed.reason };
  const bodyStart = headerEnd + 4;
  const { length } = parsed.header;
  if (buffer.length < bodyStart + length) return { kind: "incomplete" };
  return { kind: "message", body: buffer.subarray(bodyStart, bodyStart + length).toString("utf8"), bytes: bodyStart + length, rest: buffer.subarray(bodyStart + length) };
}

function errorFrame(id: string | number | null, code: number, message: string): string {
  return frameJson(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }));
}

function frameJson(json: string): string {
  return `Content-Length: ${Buffer.byteLength(json, "utf8")}\r\n\r\n${json}`;
}
