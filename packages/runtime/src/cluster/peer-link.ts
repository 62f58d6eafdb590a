import type { Socket } from "node:net";
import { encodeFrame, FrameReader, FrameTooLarge } from "./peer-frames.js";
import type { PeerIdentity } from "./peer-handshake.js";
import { isRoute, type Route } from "./peer-sequence.js";

/** The frames of an authenticated link: a message one way, cumulative acknowledgements the other. */
type LinkFrame = { t: "m"; route: Route; message: unknown } | { t: "ack"; seq: number };

/** How much a link may have sent and not yet seen acknowledged before messages go another way. */
export interface LinkWindow {
  messages: number;
  bytes: number;
}

/**
 * One authenticated TCP connection between two nodes. The side that connected sends messages on it
 * (`send`) and gets cumulative acknowledgements back; the side that accepted reads them
 * (`onMessage`) and acknowledges (`acknowledge`). What was sent and not acknowledged when the link
 * closes is handed to `onClose`, to be posted through the database.
 */
export class PeerLink<M> {
  private readonly unacked: Array<{ route: Route; message: M; bytes: number }> = [];
  private unackedBytes = 0;
  private closed = false;
  private ackTimer: NodeJS.Immediate | undefined;
  /** Messages written to the socket. */
  sent = 0;
  /** Messages read from the socket. */
  received = 0;

  constructor(
    readonly peer: PeerIdentity,
    private readonly socket: Socket,
    private readonly reader: FrameReader,
    private readonly handlers: {
      onMessage?(route: Route, message: M): void;
      /** The link closed; `unacked` were sent and never acknowledged, in order. */
      onClose(reason: string, unacked: Array<{ route: Route; message: M }>): void;
    },
    private readonly limits: { maxFrameBytes: number; window: LinkWindow },
  ) {
    reader.limit = limits.maxFrameBytes;
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000);
    socket.on("data", (chunk: Buffer) => this.read(chunk));
    socket.on("close", () => this.close("the connection closed"));
    socket.on("error", (error) => this.close(`the connection failed: ${error.message}`));
  }

  /** Starts reading (with the frames that came along with the handshake). */
  begin(rest: unknown[]): void {
    for (const frame of rest) this.take(frame);
    this.socket.resume();
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Messages sent and not yet acknowledged. */
  get pending(): number {
    return this.unacked.length;
  }

  /**
   * Sends a message; false (nothing sent) when the link is closed, its window is full (a peer
   * that stopped reading: the rest goes through the database) or the message is over the frame limit.
   */
  send(route: Route, message: M): boolean {
    if (this.closed) return false;
    const { window } = this.limits;
    if (this.unacked.length >= window.messages || this.unackedBytes >= window.bytes) return false;
    const frame = encodeFrame({ t: "m", route, message });
    if (frame.length - 4 > this.limits.maxFrameBytes) return false;
    this.unacked.push({ route, message, bytes: frame.length });
    this.unackedBytes += frame.length;
    this.socket.write(frame);
    this.sent++;
    return true;
  }

  /** Acknowledges everything up to `seq` (batched: one frame per turn of the event loop). */
  acknowledge(seq: () => number): void {
    if (this.closed || this.ackTimer) return;
    this.ackTimer = setImmediate(() => {
      this.ackTimer = undefined;
      if (!this.closed) this.socket.write(encodeFrame({ t: "ack", seq: seq() }));
    });
  }

  /** Closes the link (its unacknowledged messages go to `onClose`). */
  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearImmediate(this.ackTimer);
    this.socket.destroy();
    const unacked = this.unacked.splice(0).map(({ route, message }) => ({ route, message }));
    this.unackedBytes = 0;
    this.handlers.onClose(reason, unacked);
  }

  private read(chunk: Buffer): void {
    if (this.closed) return;
    let frames: unknown[];
    try {
      frames = this.reader.push(chunk);
    } catch (error) {
      const reason = error instanceof FrameTooLarge ? error.message : `unreadable frame: ${error instanceof Error ? error.message : String(error)}`;
      this.close(reason);
      return;
    }
    for (const frame of frames) {
      if (this.closed) return;
      this.take(frame);
    }
  }

  private take(value: unknown): void {
    const frame = value as Partial<LinkFrame> | null;
    if (frame?.t === "ack" && Number.isSafeInteger(frame.seq)) {
      this.acknowledged(frame.seq as number);
      return;
    }
    if (frame?.t === "m" && this.handlers.onMessage && isRoute(frame.route) && frame.route.inc === this.peer.inc) {
      this.received++;
      this.handlers.onMessage(frame.route, frame.message as M);
      return;
    }
    this.close(`node ${this.peer.nodeId} sent a frame this link does not take (${typeof frame?.t === "string" ? frame.t : typeof value})`);
  }

  private acknowledged(seq: number): void {
    // Sends may leave in a slightly different order than their numbers (each waited for the link).
    const kept = this.unacked.filter((entry) => entry.route.seq > seq);
    if (kept.length === this.unacked.length) return;
    this.unacked.splice(0, this.unacked.length, ...kept);
    this.unackedBytes = kept.reduce((total, entry) => total + entry.bytes, 0);
  }
}
