/**
 * Order across transports: every message a node sends another carries a {@link Route} (its sender's
 * process incarnation, the target's incarnation it was meant for, and a sequence number per sender
 * incarnation and target), whichever transport carries it (a peer link or the database mailbox).
 * The receiver hands each sender's messages on in sequence order ({@link InboundOrder}): early ones
 * wait for the gap to fill, duplicates (a message re-posted through the database after its link
 * closed, though it had arrived) are dropped, and a new incarnation of a sender starts afresh.
 */

/** A message's place in its sender's stream to one target. */
export interface Route {
  /** The sending process's incarnation (a node id restarted is a new incarnation). */
  inc: string;
  /** The incarnation of the target the sender meant it for. */
  to: string;
  /** 1, 2, 3… per (`inc`, target node), without gaps. */
  seq: number;
}

/** Whether a value is a {@link Route} (it crossed a process boundary: it is checked before use). */
export function isRoute(value: unknown): value is Route {
  if (typeof value !== "object" || value === null) return false;
  const route = value as Partial<Route>;
  return typeof route.inc === "string" && typeof route.to === "string" && Number.isSafeInteger(route.seq) && (route.seq ?? 0) > 0;
}

/**
 * The sending side: the next sequence number to each target. A target that restarted (a new
 * incarnation) starts a fresh sequence at 1.
 *
 * @example
 * const routes = new OutboundSequences(myIncarnation);
 * const route = routes.next("node-b", incarnationOfB); // { inc, to, seq: 1 }
 */
export class OutboundSequences {
  private readonly streams = new Map<string, { to: string; next: number }>();

  constructor(readonly incarnation: string) {}

  next(target: string, targetIncarnation: string): Route {
    let stream = this.streams.get(target);
    if (!stream || stream.to !== targetIncarnation) {
      stream = { to: targetIncarnation, next: 1 };
      this.streams.set(target, stream);
    }
    return { inc: this.incarnation, to: targetIncarnation, seq: stream.next++ };
  }
}

/** What {@link InboundOrder.accept} did with a message. */
export type Acceptance = "handled" | "held" | "late" | "duplicate" | "stale" | "unsequenced";

/** What {@link InboundOrder} is built with. */
export interface InboundOrderOptions<M> {
  /** This process's incarnation: a message meant for another one (this node id's previous process) is not sequenced. */
  incarnation: string;
  /** Hands one message on, in order. */
  deliver(from: string, message: M): void;
  /**
   * How long a gap may stay open before the messages after it are handed on anyway (default 30 s):
   * the sender died before it could fill it. A message of the gap that still comes is handed on
   * then, late rather than lost.
   */
  gapMs?: number;
  /** A gap was given up on. */
  onGapSkipped?(from: string, firstMissing: number, lastMissing: number): void;
}

/** The incarnations of a sender that were replaced, remembered to drop their late messages. */
const retiredKept = 16;
/** The places of skipped gaps remembered per sender (a message for one of them is handed on late). */
const skippedKept = 4096;

interface SenderStream<M> {
  inc: string;
  /** The next sequence number to hand on. */
  expected: number;
  held: Map<number, M>;
  gapTimer: NodeJS.Timeout | undefined;
  /** Places of gaps given up on, oldest first: their messages have not come. */
  skipped: Set<number>;
}

/**
 * The receiving side: hands each sender's messages on in sequence order, once each.
 *
 * @example
 * const order = new InboundOrder({ incarnation, deliver: (from, message) => bus.receive(from, message) });
 * order.accept("node-a", { inc: "…", to: incarnation, seq: 2 }, message); // "held" until seq 1 arrives
 */
export class InboundOrder<M> {
  private readonly streams = new Map<string, SenderStream<M>>();
  private readonly retired = new Map<string, string[]>();

  constructor(private readonly options: InboundOrderOptions<M>) {}

  /** Takes one message from `from` (`route` undefined: an unsequenced one, handed on at once). */
  accept(from: string, route: Route | undefined, message: M): Acceptance {
    if (!route || route.to !== this.options.incarnation) {
      this.options.deliver(from, message);
      return "unsequenced";
    }
    const stream = this.streamOf(from, route.inc);
    if (!stream) return "stale";
    if (route.seq < stream.expected && stream.skipped.delete(route.seq)) {
      this.options.deliver(from, message);
      return "late";
    }
    if (route.seq < stream.expected || stream.held.has(route.seq)) return "duplicate";
    if (route.seq > stream.expected) {
      stream.held.set(route.seq, message);
      this.watchGap(from, stream);
      return "held";
    }
    this.options.deliver(from, message);
    stream.expected++;
    this.drain(from, stream);
    return "handled";
  }

  /** The highest sequence number of `from`'s incarnation `inc` handed on, all before it too (0: none). */
  handledUpTo(from: string, inc: string): number {
    const stream = this.streams.get(from);
    return stream?.inc === inc ? stream.expected - 1 : 0;
  }

  /** Messages waiting for a gap to fill, over all senders. */
  get heldCount(): number {
    let count = 0;
    for (const stream of this.streams.values()) count += stream.held.size;
    return count;
  }

  /** Stops the gap timers. */
  stop(): void {
    for (const stream of this.streams.values()) clearTimeout(stream.gapTimer);
  }

  /** The stream of a sender's incarnation; a new incarnation replaces the old one; undefined for a replaced one. */
  private streamOf(from: string, inc: string): SenderStream<M> | undefined {
    const known = this.streams.get(from);
    if (known?.inc === inc) return known;
    const retired = this.retired.get(from) ?? [];
    if (retired.includes(inc)) return undefined;
    if (known) {
      clearTimeout(known.gapTimer);
      retired.push(known.inc);
      if (retired.length > retiredKept) retired.shift();
      this.retired.set(from, retired);
    }
    const stream: SenderStream<M> = { inc, expected: 1, held: new Map(), gapTimer: undefined, skipped: new Set() };
    this.streams.set(from, stream);
    return stream;
  }

  private drain(from: string, stream: SenderStream<M>): void {
    for (let next = stream.held.get(stream.expected); next !== undefined; next = stream.held.get(stream.expected)) {
      stream.held.delete(stream.expected);
      this.options.deliver(from, next);
      stream.expected++;
    }
    clearTimeout(stream.gapTimer);
    stream.gapTimer = undefined;
    if (stream.held.size > 0) this.watchGap(from, stream);
  }

  /** A gap still open after `gapMs` is skipped: the messages after it are handed on. */
  private watchGap(from: string, stream: SenderStream<M>): void {
    if (stream.gapTimer) return;
    stream.gapTimer = setTimeout(() => {
      stream.gapTimer = undefined;
      if (this.streams.get(from) !== stream || stream.held.size === 0) return;
      const firstHeld = Math.min(...stream.held.keys());
      this.options.onGapSkipped?.(from, stream.expected, firstHeld - 1);
      for (let seq = stream.expected; seq < firstHeld; seq++) stream.skipped.add(seq);
      for (const seq of stream.skipped) {
        if (stream.skipped.size <= skippedKept) break;
        stream.skipped.delete(seq);
      }
      stream.expected = firstHeld;
      this.drain(from, stream);
    }, this.options.gapMs ?? 30_000);
    stream.gapTimer.unref();
  }
}
