import { AbstractMessageReader, Disposable, Emitter, ErrorCodes, type DataCallback, type Event, type MessageReader } from "vscode-jsonrpc";
import { MAX_HEADER_BYTES, parseFrameHeader } from "./frame-header.js";
import { nestsDeeperThan, shallowCopy } from "./json-depth.js";
import { tooDeepVerdict, validateMessage, type ErrorReply, type Verdict } from "./message-validation.js";

/** Default for the largest message a client may send: room for very large prompts and attachments. */
export const DEFAULT_MAX_MESSAGE_BYTES = 100 * 1024 * 1024;

/**
 * How deep `params` (or a response's `result`) may nest. The deepest legitimate values are JSON
 * schemas of custom tools: `session.create` puts a tool's `parameters` 5 levels down and each nested
 * property costs 2 more, so 100 leaves room for ~45 nested properties, far beyond real schemas.
 * Everything behind the edge that recurses (zod, JSON.stringify of events, schema conversion for
 * providers) stays thousands of stack frames away from overflowing.
 */
export const MAX_PARAMS_DEPTH = 100;

/** Limits of one connection's reader. */
export interface MessageReaderLimits {
  maxMessageBytes: number;
  maxParamsDepth: number;
}

/** A message refused at the edge: answered with `reply` when there is one, logged either way. */
export interface RejectedMessage {
  reason: string;
  reply?: ErrorReply;
}

/**
 * Reads Content-Length framed JSON-RPC messages from a byte stream (a replacement for
 * vscode-jsonrpc's StreamMessageReader that defends itself).
 *
 * - A header whose length is over `maxMessageBytes` is refused before its body is buffered.
 * - Broken framing (no/duplicate/non-numeric/zero/oversized Content-Length, header garbage, a header
 *   block over 8 KiB) cannot be recovered from: `onBrokenFraming` fires, everything buffered is
 *   dropped, the stream is destroyed and the reader closes.
 * - A body that is not JSON, has an unsupported charset, breaks JSON-RPC 2.0 or nests deeper than
 *   `maxParamsDepth` is refused through `onRejected` (with the error to answer, if any); the
 *   connection stays usable.
 */
export class FramedMessageReader extends AbstractMessageReader implements MessageReader {
  private readonly rejectedEmitter = new Emitter<RejectedMessage>();
  private readonly brokenEmitter = new Emitter<string>();
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Body length of the frame being read; -1 while reading a header. */
  private bodyLength = -1;
  private bodyCharset: string | undefined;
  private callback: DataCallback | undefined;
  private stopped = false;
  private closeFired = false;

  private readonly limits: MessageReaderLimits;

  /** `limits` default to {@link DEFAULT_MAX_MESSAGE_BYTES} and {@link MAX_PARAMS_DEPTH}. */
  constructor(
    private readonly readable: NodeJS.ReadableStream,
    limits: Partial<MessageReaderLimits> = {},
  ) {
    super();
    this.limits = { maxMessageBytes: limits.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES, maxParamsDepth: limits.maxParamsDepth ?? MAX_PARAMS_DEPTH };
  }

  /** Fires for each message refused at the edge (the connection answers `reply` if set). */
  get onRejected(): Event<RejectedMessage> {
    return this.rejectedEmitter.event;
  }

  /** Fires once, with the reason, when the framing breaks; the reader closes right after. */
  get onBrokenFraming(): Event<string> {
    return this.brokenEmitter.event;
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    this.readable.on("data", this.onData);
    this.readable.on("error", this.onStreamError);
    this.readable.on("close", this.onStreamClose);
    return Disposable.create(() => this.detach());
  }

  override dispose(): void {
    this.detach();
    this.rejectedEmitter.dispose();
    this.brokenEmitter.dispose();
    super.dispose();
  }

  private readonly onStreamError = (error: Error): void => this.fireError(error);

  private readonly onStreamClose = (): void => {
    this.stop();
    if (this.closeFired) return;
    this.closeFired = true;
    this.fireClose();
  };

  private readonly onData = (data: Buffer | string): void => {
    if (this.stopped) return;
    const chunk = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.bodyLength === -1 && !this.readHeader()) return;
      if (this.buffered < this.bodyLength) return;
      const body = this.take(this.bodyLength);
      const charset = this.bodyCharset;
      this.bodyLength = -1;
      this.bodyCharset = undefined;
      this.handleBody(body, charset);
      if (this.stopped) return;
    }
  };

  /** Reads the next header block if it is all here; false while waiting or once framing broke. */
  private readHeader(): boolean {
    if (this.buffered === 0) return false;
    const head = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : this.joinChunks();
    const end = head.indexOf("\r\n\r\n", 0, "latin1");
    if (end === -1 || end > MAX_HEADER_BYTES) {
      if (end === -1 && this.buffered <= MAX_HEADER_BYTES + 3) return false;
      this.breakFraming(`no end of header within ${MAX_HEADER_BYTES} bytes`);
      return false;
    }
    const parsed = parseFrameHeader(head.toString("latin1", 0, end), this.limits.maxMessageBytes);
    if (!parsed.ok) {
      this.breakFraming(parsed.reason);
      return false;
    }
    this.take(end + 4);
    this.bodyLength = parsed.header.length;
    this.bodyCharset = parsed.header.unsupportedCharset;
    return true;
  }

  private handleBody(body: Buffer, unsupportedCharset: string | undefined): void {
    if (unsupportedCharset !== undefined) {
      const message = `Parse error: unsupported charset "${unsupportedCharset}"; messages must be UTF-8`;
      this.reject({ reason: message, reply: { id: null, code: ErrorCodes.ParseError, message } });
      return;
    }
    let verdict: Verdict;
    try {
      const tooDeep = nestsDeeperThan(body, this.limits.maxParamsDepth + 1);
      verdict = tooDeep
        ? tooDeepVerdict(JSON.parse(shallowCopy(body)), this.limits.maxParamsDepth)
        : validateMessage(JSON.parse(body.toString("utf8")));
    } catch (error) {
      const message = `Parse error: ${(error as Error).message}`;
      this.reject({ reason: message, reply: { id: null, code: ErrorCodes.ParseError, message } });
      return;
    }
    if (verdict.kind === "deliver") {
      try {
        this.callback?.(verdict.message);
      } catch (error) {
        this.fireError(error);
      }
      return;
    }
    this.reject(verdict.kind === "reply" ? { reason: verdict.reason, reply: verdict.reply } : { reason: verdict.reason });
  }

  private reject(rejected: RejectedMessage): void {
    this.rejectedEmitter.fire(rejected);
  }

  /** Drops everything held, reports why, and closes the stream: the framing cannot be trusted. */
  private breakFraming(reason: string): void {
    this.stop();
    this.brokenEmitter.fire(reason);
    const destroyable = this.readable as { destroy?: () => void };
    if (typeof destroyable.destroy === "function") destroyable.destroy();
    this.onStreamClose();
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.chunks = [];
    this.buffered = 0;
    this.readable.removeListener("data", this.onData);
  }

  private detach(): void {
    this.stop();
    this.readable.removeListener("error", this.onStreamError);
    this.readable.removeListener("close", this.onStreamClose);
  }

  private joinChunks(): Buffer {
    const joined = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [joined];
    return joined;
  }

  /** Removes and returns the first `count` buffered bytes (a view when they sit in one chunk). */
  private take(count: number): Buffer {
    this.buffered -= count;
    const first = this.chunks[0] as Buffer;
    if (first.length > count) {
      this.chunks[0] = first.subarray(count);
      return first.subarray(0, count);
    }
    if (first.length === count) {
      this.chunks.shift();
      return first;
    }
    const taken = Buffer.allocUnsafe(count);
    let filled = 0;
    while (filled < count) {
      const chunk = this.chunks[0] as Buffer;
      const wanted = count - filled;
      if (chunk.length > wanted) {
        chunk.copy(taken, filled, 0, wanted);
        this.chunks[0] = chunk.subarray(wanted);
        filled = count;
      } else {
        chunk.copy(taken, filled);
        this.chunks.shift();
        filled += chunk.length;
      }
    }
    return taken;
  }
}

/**
 * The largest message size from `TANDEM_MAX_MESSAGE_BYTES` (a positive integer, in bytes), else
 * {@link DEFAULT_MAX_MESSAGE_BYTES}. Throws on a value that is not one.
 */
export function maxMessageBytesFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.TANDEM_MAX_MESSAGE_BYTES?.trim();
  if (raw === undefined || raw === "") return DEFAULT_MAX_MESSAGE_BYTES;
  const value = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new Error(`TANDEM_MAX_MESSAGE_BYTES must be a positive whole number of bytes, got ${JSON.stringify(raw)}`);
  }
  return value;
}
