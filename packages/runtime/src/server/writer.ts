import { AbstractMessageWriter, type Message, type MessageWriter } from "vscode-jsonrpc";

/**
 * Params or a result that are already JSON text. Session events are serialised once (for the
 * events file) and that same text is spliced into wire messages.
 */
export class PreSerializedJson {
  /** JSON text, or its UTF-8 bytes (a result read from a file goes to the wire without being decoded). */
  constructor(readonly json: string | Buffer) {}
}

/** A message's JSON as text, or as bytes between two texts (a pre-serialised body given as bytes). */
export type EncodedMessage = string | readonly [head: string, body: Buffer, tail: string];

/** Serialises a JSON-RPC message, splicing in pre-serialised params or results. */
export function encodeMessage(message: Message): string {
  const encoded = encodeMessageParts(message);
  return typeof encoded === "string" ? encoded : `${encoded[0]}${encoded[1].toString("utf8")}${encoded[2]}`;
}

/** Like {@link encodeMessage}, but a pre-serialised body given as bytes stays bytes. */
export function encodeMessageParts(message: Message): EncodedMessage {
  const candidate = message as { id?: unknown; method?: string; params?: unknown; result?: unknown };
  if (candidate.params instanceof PreSerializedJson && typeof candidate.method === "string") {
    return splice(`{"jsonrpc":"2.0","method":${JSON.stringify(candidate.method)},"params":`, candidate.params.json);
  }
  if (candidate.result instanceof PreSerializedJson) {
    return splice(`{"jsonrpc":"2.0","id":${JSON.stringify(candidate.id ?? null)},"result":`, candidate.result.json);
  }
  return JSON.stringify(message);
}

function splice(head: string, json: string | Buffer): EncodedMessage {
  return typeof json === "string" ? `${head}${json}}` : [head, json, "}"];
}

/** How much one client may have outstanding (bytes queued here plus bytes the stream still holds). */
export interface OutboundLimits {
  /** Above this, progress frames (see {@link FramedMessageWriter.writeJson}) are dropped for the client. */
  dropProgressBytes: number;
  /** Above this, the client is given up: the writer stops and reports an overflow. */
  disconnectBytes: number;
  /**
   * How long a client may stay above `disconnectBytes` without reading anything while a frame
   * queued when it was caught up is outside the budget (see {@link FramedMessageWriter}).
   */
  stallMs: number;
}

/**
 * 4 MiB: far more than a client that keeps reading ever has outstanding, so only a stalled or slow
 * one loses progress frames. 128 MiB: a stalled client costs at most this much memory, while a
 * client that reads still gets one huge message (a 100 MB prompt echoed back) and what follows it.
 */
export const defaultOutboundLimits: OutboundLimits = { dropProgressBytes: 4 * 1024 * 1024, disconnectBytes: 128 * 1024 * 1024, stallMs: 10_000 };

/**
 * The limits from `TANDEM_CLIENT_DROP_PROGRESS_BYTES` / `TANDEM_CLIENT_DISCONNECT_BYTES` /
 * `TANDEM_CLIENT_STALL_MS` (positive numbers), else the defaults.
 *
 * @example
 * outboundLimitsFromEnv({ TANDEM_CLIENT_DISCONNECT_BYTES: "1048576" }).disconnectBytes; // 1048576
 */
export function outboundLimitsFromEnv(env: NodeJS.ProcessEnv): OutboundLimits {
  const positive = (value: string | undefined, fallback: number) => {
    const number = Number(value);
    return value !== undefined && Number.isFinite(number) && number > 0 ? number : fallback;
  };
  return {
    dropProgressBytes: positive(env.TANDEM_CLIENT_DROP_PROGRESS_BYTES, defaultOutboundLimits.dropProgressBytes),
    disconnectBytes: positive(env.TANDEM_CLIENT_DISCONNECT_BYTES, defaultOutboundLimits.disconnectBytes),
    stallMs: positive(env.TANDEM_CLIENT_STALL_MS, defaultOutboundLimits.stallMs),
  };
}

/** At most this much goes to the stream in one write: never hand the kernel hundreds of MB at once (that failed with ENOBUFS). */
const MAX_BATCH_BYTES = 1024 * 1024;

/** What the writer tells its owner about a client that does not keep up. */
export interface WriterPressureHandlers {
  /** Progress frames start being dropped (called once per episode, until the client catches up). */
  onDroppingProgress?(unwrittenBytes: number): void;
  /** The client is past `disconnectBytes`: nothing more is written; the owner should close it. */
  onOverflow?(unwrittenBytes: number): void;
}

/**
 * A Content-Length framed writer with an outbound budget per client.
 *
 * - Frames written in the same event-loop turn go out in one stream write (a stream of deltas costs
 *   one syscall per turn, not one per message), at most 1 MiB per write (a larger frame goes alone).
 * - Back-pressure: while the stream is backed up (`write` returned false) frames wait in this
 *   writer's queue and go out on `drain`; the promise `write` returns waits for that drain.
 * - Budget: "unwritten" is this queue plus the stream's `writableLength`. Above
 *   `dropProgressBytes`, frames marked `progress` (streamed tool output, progress notes — never
 *   message deltas, responses or requests) are dropped for this client only, so a slow client gets
 *   every message but not every progress update. Above `disconnectBytes` (checked before queueing
 *   a frame) the writer drops everything, clears its queue and calls `onOverflow`: the owner
 *   disconnects the client rather than buffer without limit (a TCP client: its socket is closed
 *   and the runtime serves the others; the stdio client: the runtime shuts down as when stdin
 *   closes, since it has no other).
 * - A frame queued while the client is caught up (its backlog at or below `dropProgressBytes`) is
 *   outside the budget, whatever its size, as long as the client reads: until it catches up again,
 *   `disconnectBytes` counts only what waits besides that frame, and a backlog above
 *   `disconnectBytes` is given `stallMs` to shrink, renewed each time the stream drains. So one
 *   huge event (a 100 MB prompt echoed back, a model message near the provider's response limit)
 *   and the frames that follow it reach a client that reads, while a client that stops reading is
 *   given up after `stallMs`, or at once when `disconnectBytes` more wait.
 * - Limits come from {@link outboundLimitsFromEnv}; the defaults are {@link defaultOutboundLimits}.
 * - A stream error (EPIPE, ECONNRESET, ENOBUFS) or close stops the writer and is reported through
 *   `onError` / `onClose`; it never throws to the caller.
 */
export class FramedMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;
  /** Frames not yet written, from `queueHead` on (an index, so taking a frame is O(1)). */
  private queued: Array<{ data: string | Buffer; bytes: number }> = [];
  private queueHead = 0;
  private queuedBytes = 0;
  private flushScheduled = false;
  private drained: Promise<void> | undefined;
  private resolveDrained: (() => void) | undefined;
  private stopped = false;
  private droppingProgress = false;
  /** The frame last queued while the client was caught up: outside the disconnect budget. */
  private freeFrameBytes = 0;
  /** Runs while the backlog is above `disconnectBytes` (a frame outside the budget let it): gives the client up unless it reads. */
  private stallTimer: NodeJS.Timeout | undefined;
  /** Progress frames dropped because the client was behind. */
  droppedProgressFrames = 0;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly limits: OutboundLimits = defaultOutboundLimits,
    private readonly pressure: WriterPressureHandlers = {},
  ) {
    super();
    stream.on("error", (error: Error) => {
      this.stop();
      this.fireError(error, undefined, ++this.errorCount);
    });
    stream.on("close", () => {
      this.stop();
      this.fireClose();
    });
  }

  /** Bytes not yet handed to the operating system: queued here plus held by the stream. */
  get unwrittenBytes(): number {
    return this.queuedBytes + ((this.stream as { writableLength?: number }).writableLength ?? 0);
  }

  /** Called after each message written through `write` (a response or request) is queued. */
  afterQueued: ((message: Message) => void) | undefined;

  write(message: Message): Promise<void> {
    const encoded = encodeMessageParts(message);
    if (typeof encoded === "string") this.writeJson(encoded);
    else this.writeParts(encoded);
    this.afterQueued?.(message);
    return this.drained ?? Promise.resolve();
  }

  /** Queues one message given as text, bytes, text (the bytes are never decoded). */
  private writeParts([head, body, tail]: readonly [string, Buffer, string]): void {
    const jsonBytes = Buffer.byteLength(head, "utf8") + body.length + Buffer.byteLength(tail, "utf8");
    if (!this.admit("message", jsonBytes)) return;
    const header = `Content-Length: ${jsonBytes}\r\n\r\n`;
    this.enqueue(header + head, header.length + Buffer.byteLength(head, "utf8"));
    this.enqueue(body, body.length);
    this.enqueue(tail, Buffer.byteLength(tail, "utf8"));
  }

  /**
   * Queues one message that is already JSON text (a complete JSON-RPC message). A `progress`
   * frame is dropped when the client is behind. Returns whether the frame was queued.
   */
  writeJson(json: string, kind: "message" | "progress" = "message"): boolean {
    const jsonBytes = Buffer.byteLength(json, "utf8");
    if (!this.admit(kind, jsonBytes)) return false;
    const header = `Content-Length: ${jsonBytes}\r\n\r\n`;
    this.enqueue(header + json, header.length + jsonBytes);
    return true;
  }

  /** Whether a frame of this kind and size may be queued now (see the class comment: budget and overflow). */
  private admit(kind: "message" | "progress", frameBytes: number): boolean {
    if (this.stopped) return false;
    const unwritten = this.unwrittenBytes;
    const caughtUp = unwritten <= this.limits.dropProgressBytes;
    if (caughtUp) this.freeFrameBytes = 0;
    if (unwritten - this.freeFrameBytes > this.limits.disconnectBytes) {
      this.overflow(unwritten);
      return false;
    }
    if (unwritten > this.limits.disconnectBytes) this.stallTimer ??= this.startStallTimer();
    if (kind === "progress" && unwritten > this.limits.dropProgressBytes) {
      this.droppedProgressFrames++;
      if (!this.droppingProgress) {
        this.droppingProgress = true;
        this.pressure.onDroppingProgress?.(unwritten);
      }
      return false;
    }
    if (kind === "progress") this.droppingProgress = false;
    if (caughtUp) this.freeFrameBytes = frameBytes;
    return true;
  }

  private enqueue(data: string | Buffer, bytes: number): void {
    this.queued.push({ data, bytes });
    this.queuedBytes += bytes;
    if (!this.flushScheduled && !this.drained) {
      this.flushScheduled = true;
      setImmediate(this.flushNow);
    }
  }

  private readonly flushNow = (): void => this.flush();

  /** Writes queued frames (batched, at most 1 MiB per write) until the stream backs up. */
  flush(): void {
    this.flushScheduled = false;
    while (this.queueHead < this.queued.length && !this.drained && !this.stopped) {
      const batch = this.takeBatch();
      try {
        if (!(typeof batch === "string" ? this.stream.write(batch, "utf8") : this.stream.write(batch))) this.waitForDrain();
      } catch (error) {
        this.stop();
        this.fireError(error as Error, undefined, ++this.errorCount);
      }
    }
  }

  end(): void {
    this.flush();
    this.stream.end();
  }

  /** The next write: text frames batched, or one byte chunk alone. */
  private takeBatch(): string | Buffer {
    const frames: string[] = [];
    let bytes = 0;
    while (this.queueHead < this.queued.length) {
      const frame = this.queued[this.queueHead];
      if (!frame || (frames.length > 0 && bytes + frame.bytes > MAX_BATCH_BYTES)) break;
      if (typeof frame.data !== "string") {
        if (frames.length > 0) break;
        this.queueHead++;
        this.release(frame.bytes);
        return frame.data;
      }
      frames.push(frame.data);
      bytes += frame.bytes;
      this.queueHead++;
    }
    this.release(bytes);
    return frames.length === 1 ? (frames[0] ?? "") : frames.join("");
  }

  /** Accounts for `bytes` taken off the queue, and compacts the queue. */
  private release(bytes: number): void {
    this.queuedBytes -= bytes;
    if (this.queueHead === this.queued.length) {
      this.queued = [];
      this.queueHead = 0;
    } else if (this.queueHead > 1024 && this.queueHead * 2 > this.queued.length) {
      this.queued = this.queued.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  private waitForDrain(): void {
    if (this.drained) return;
    this.drained = new Promise((resolve) => (this.resolveDrained = resolve));
    this.stream.once("drain", this.onDrain);
  }

  private overflow(unwritten: number): void {
    this.stop();
    this.pressure.onOverflow?.(unwritten);
  }

  private startStallTimer(): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.stallTimer = undefined;
      const unwritten = this.unwrittenBytes;
      if (!this.stopped && unwritten > this.limits.disconnectBytes) this.overflow(unwritten);
    }, this.limits.stallMs);
    timer.unref();
    return timer;
  }

  private readonly onDrain = (): void => {
    // The client read: its stall clock starts over.
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    const resolve = this.resolveDrained;
    this.drained = undefined;
    this.resolveDrained = undefined;
    resolve?.();
    this.flush();
    if (!this.stopped && this.unwrittenBytes > this.limits.disconnectBytes) this.stallTimer = this.startStallTimer();
  };

  /** Stops writing for good: the queue is released and waiters are let go. */
  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queued = [];
    this.queueHead = 0;
    this.queuedBytes = 0;
    this.stream.removeListener("drain", this.onDrain);
    this.onDrain();
  }
}
