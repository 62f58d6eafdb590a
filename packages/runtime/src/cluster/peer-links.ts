import { connect, createServer, type Server, type Socket } from "node:net";
import type { BusMessage, PeerTransport, PeerTransportHooks, RoutedBusMessage } from "./node-bus.js";
import { maxPeerFrameBytes } from "./peer-frames.js";
import { handshake, PeerRefused, type PeerCredentials } from "./peer-handshake.js";
import { PeerLink, type LinkWindow } from "./peer-link.js";
import { InboundOrder, isRoute, OutboundSequences, type Route } from "./peer-sequence.js";

/** A live node as the database lists it: where peers reach it (none: it takes no links), its incarnation and secret. */
export interface PeerEntry extends PeerCredentials {
  address?: string;
}

/** What {@link PeerLinks} is built with. */
export interface PeerLinksOptions {
  nodeId: string;
  /** This process's incarnation and secret (also in its `cluster_nodes` row). */
  inc: string;
  secret: Buffer;
  /** Where to listen for peers (port 0: a free one); `reachAt`: the host peers connect to when it is not `host` (a wildcard `host`). */
  listen: { host: string; port: number; reachAt?: string };
  /** A live node's entry in `cluster_nodes`; undefined when it is unknown or not alive. */
  lookup(nodeId: string): Promise<PeerEntry | undefined>;
  warn(message: string, error?: unknown): void;
  /** How long a send waits for a link being opened before it goes through the database (default 1 s). */
  connectTimeoutMs?: number;
  /** How long a handshake may take (default 5 s). */
  handshakeTimeoutMs?: number;
  /** The largest frame (default 64 MiB); a larger message goes through the database. */
  maxFrameBytes?: number;
  /** Unacknowledged messages a link may carry (default 1024 messages, 16 MiB); beyond, messages go through the database. */
  window?: LinkWindow;
  /** How long a gap in a sender's sequence may stay open (see `InboundOrder`). */
  gapMs?: number;
}

/** Where a node takes links (none: it takes none) and which incarnation runs there. */
type Destination = { address?: string; inc: string };

/** Incoming connections allowed to be in their handshake at once (more are closed at once: a flood holds no memory). */
const maxPendingHandshakes = 64;

/** Places of failed posts kept per target until they are filled. */
const maxSkippedKept = 1024;

/** How long a node's entry is used before it is read again while no link to it is open. */
const entryFreshMs = 5000;

/** What crosses: a bus message, or the filler of a place in the sequence whose message was never posted. */
type Carried = BusMessage | { kind: "skip" };

type Outgoing = { link: PeerLink<Carried> } | { opening: Promise<PeerLink<Carried> | undefined> };

/**
 * Direct, authenticated TCP links between the nodes of a cluster: a message to another node
 * travels its link (opened on first use; see `peer-handshake.ts` for who may connect) and is
 * acknowledged; without a link — the node takes none, it cannot be reached, it stopped reading —
 * it goes through the database mailbox as before. Every message carries its place in the sender's
 * sequence to that node (`peer-sequence.ts`), whichever way it goes, so the receiver hands them on
 * in order and once each; what a link did not get acknowledged before it closed is posted through
 * the database. Links are authenticated, not encrypted: bind them to a private interface.
 *
 * @example
 * const peers = new PeerLinks({ nodeId, inc, secret, listen: { host: "10.0.0.7", port: 0 }, lookup, warn });
 * const bus = new NodeBus({ …, peers });
 * await bus.start(); // starts the links too
 */
export class PeerLinks implements PeerTransport {
  private server: Server | undefined;
  private readonly outgoing = new Map<string, Outgoing>();
  private readonly incoming = new Map<string, PeerLink<Carried>>();
  private readonly entries = new Map<string, { entry: Promise<Destination | undefined>; at: number }>();
  /** When a failed link may be tried again, and how many failed in a row. */
  private readonly retry = new Map<string, { at: number; failures: number; address: string }>();
  private readonly sequences: OutboundSequences;
  private order: InboundOrder<Carried> | undefined;
  private hooks: PeerTransportHooks | undefined;
  private readonly sockets = new Set<Socket>();
  /** Per target, the places in its sequence whose messages could not be posted (filled with `skip` at the next send). */
  private readonly skipped = new Map<string, Route[]>();
  private readonly reposting = new Set<Promise<void>>();
  private stopped = false;
  /** Incoming connections that have not proved who they are yet. */
  private handshaking = 0;
  private lastCrowdWarning = -Infinity;
  private sentCount = 0;
  private receivedCount = 0;
  /** Where peers reach this node, once listening. */
  address: string | undefined;

  constructor(private readonly options: PeerLinksOptions) {
    this.sequences = new OutboundSequences(options.inc);
  }

  get counts(): { peerSent: number; peerReceived: number } {
    return { peerSent: this.sentCount, peerReceived: this.receivedCount };
  }

  /** Listens for peers; resolves with the bound `host:port`. */
  async listen(): Promise<string> {
    const server = createServer((socket) => void this.accept(socket));
    this.server = server;
    const { host, port } = this.options.listen;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    server.on("error", (error) => this.options.warn("the peer link listener failed", error));
    const bound = server.address();
    const boundPort = typeof bound === "object" && bound ? bound.port : port;
    const reachable = this.options.listen.reachAt ?? host;
    this.address = `${reachable.includes(":") ? `[${reachable}]` : reachable}:${boundPort}`;
    return this.address;
  }

  start(hooks: PeerTransportHooks): void {
    this.hooks = hooks;
    this.order = new InboundOrder<Carried>({
      incarnation: this.options.inc,
      deliver: (from, message) => {
        if (message.kind !== "skip") hooks.deliver(from, message);
      },
      ...(this.options.gapMs !== undefined ? { gapMs: this.options.gapMs } : {}),
      onGapSkipped: (from, first, last) => this.options.warn(`messages ${first}–${last} from node ${from} did not arrive in time; the ones after them are handled (any of them that still comes is handled late)`),
    });
  }

  /** Sends a message to `target`: over its link when one is open (or opens in time), else through the database. */
  async post(target: string, message: BusMessage): Promise<void> {
    const hooks = this.requireHooks();
    const entry = await this.entryOf(target).catch(() => undefined);
    if (!entry) return hooks.postToDatabase(target, message);
    const route = this.sequences.next(target, entry.inc);
    const link = await this.linkTo(target, entry);
    this.fillSkipped(target, link);
    // A link to another incarnation than the message was numbered for: that process is gone.
    if (link?.peer.inc === route.to && link.send(route, message)) {
      this.sentCount++;
      return;
    }
    try {
      await hooks.postToDatabase(target, { ...message, route });
    } catch (error) {
      // The caller learns it failed; the receiver must not wait for its place in the sequence.
      this.rememberSkipped(target, route);
      throw error;
    }
  }

  /** Sends the fillers of places whose posts failed: over the link, else through the database (kept when that fails too). */
  private fillSkipped(target: string, link: PeerLink<Carried> | undefined): void {
    const skipped = this.skipped.get(target);
    if (!skipped) return;
    this.skipped.delete(target);
    for (const route of skipped) {
      if (link?.peer.inc === route.to && link.send(route, { kind: "skip" })) continue;
      void this.requireHooks().postToDatabase(target, { kind: "skip", route }).catch(() => this.rememberSkipped(target, route));
    }
  }

  /** A place to fill at the next send to `target` (the oldest are forgotten past a bound: the receiver's gap timeout covers them). */
  private rememberSkipped(target: string, route: Route): void {
    const skipped = this.skipped.get(target) ?? [];
    skipped.push(route);
    if (skipped.length > maxSkippedKept) skipped.shift();
    this.skipped.set(target, skipped);
  }

  /** A message read from the database mailbox. */
  fromDatabase(from: string, body: RoutedBusMessage): void {
    const { route, ...message } = body;
    this.requireOrder().accept(from, isRoute(route) ? route : undefined, message as Carried);
    // It may have filled a gap: the sender's link learns how far it got.
    if (isRoute(route)) this.acknowledge(from, route.inc);
  }

  /** Closes the link to `nodeId` (its unacknowledged messages go through the database). */
  closeLink(nodeId: string, reason: string): void {
    const outgoing = this.outgoing.get(nodeId);
    if (outgoing && "link" in outgoing) outgoing.link.close(reason);
    this.incoming.get(nodeId)?.close(reason);
  }

  /** Messages sent on the open link to `nodeId` and not yet acknowledged. */
  pendingTo(nodeId: string): number {
    const outgoing = this.outgoing.get(nodeId);
    return outgoing && "link" in outgoing ? outgoing.link.pending : 0;
  }

  /** Stops listening and closes every link; what they had not got acknowledged is posted through the database first. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.order?.stop();
    const server = this.server;
    this.server = undefined;
    for (const outgoing of this.outgoing.values()) if ("link" in outgoing) outgoing.link.close("this node is stopping");
    for (const link of this.incoming.values()) link.close("this node is stopping");
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await Promise.all([...this.reposting]);
  }

  private requireHooks(): PeerTransportHooks {
    if (!this.hooks) throw new Error("peer links used before start()");
    return this.hooks;
  }

  private requireOrder(): InboundOrder<Carried> {
    if (!this.order) throw new Error("peer links used before start()");
    return this.order;
  }

  /** A node's entry, read again when older than {@link entryFreshMs} and no link to it is open. */
  private entryOf(nodeId: string): Promise<Destination | undefined> {
    const cached = this.entries.get(nodeId);
    const outgoing = this.outgoing.get(nodeId);
    const linked = outgoing !== undefined && "link" in outgoing && outgoing.link.isOpen;
    if (cached && (linked || performance.now() - cached.at < entryFreshMs)) return cached.entry;
    const entry = this.options.lookup(nodeId);
    this.entries.set(nodeId, { entry, at: performance.now() });
    entry.catch(() => this.entries.delete(nodeId));
    return entry;
  }

  /** The open link to `target`, or one opened within the connect timeout; undefined otherwise. */
  private async linkTo(target: string, entry: Destination): Promise<PeerLink<Carried> | undefined> {
    if (this.stopped) return undefined;
    const outgoing = this.outgoing.get(target);
    if (outgoing && "link" in outgoing) return outgoing.link.isOpen ? outgoing.link : undefined;
    let opening = outgoing?.opening;
    if (!opening) {
      if (entry.address === undefined) return undefined;
      // A node that failed at this address is tried again later; one that moved (restarted) at once.
      const retry = this.retry.get(target);
      if (retry && retry.address === entry.address && performance.now() < retry.at) return undefined;
      opening = this.open(target, entry.address);
      this.outgoing.set(target, { opening });
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), this.options.connectTimeoutMs ?? 1000)));
    try {
      return await Promise.race([opening, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Connects to `target` at `address` and runs the handshake; undefined (logged) when that fails. */
  private async open(target: string, address: string): Promise<PeerLink<Carried> | undefined> {
    const { host, port } = splitAddress(address);
    const socket = connect({ host, port });
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new PeerRefused(`no connection within ${this.options.handshakeTimeoutMs ?? 5000} ms`)), this.options.handshakeTimeoutMs ?? 5000);
        socket.once("connect", () => {
          clearTimeout(timer);
          resolve();
        });
        socket.once("error", (error) => {
          clearTimeout(timer);
          reject(error);
        });
      });
      const { peer, reader, rest } = await handshake(socket, {
        nodeId: this.options.nodeId,
        inc: this.options.inc,
        secret: this.options.secret,
        expectedPeer: target,
        credentialsOf: (nodeId) => this.options.lookup(nodeId),
        ...(this.options.handshakeTimeoutMs !== undefined ? { timeoutMs: this.options.handshakeTimeoutMs } : {}),
      });
      if (this.stopped) throw new PeerRefused("this node is stopping");
      const link: PeerLink<Carried> = new PeerLink<Carried>(peer, socket, reader, {
        onClose: (reason, unacked) => this.outgoingClosed(target, link, reason, unacked),
      }, this.limits());
      link.begin(rest);
      this.outgoing.set(target, { link });
      this.retry.delete(target);
      // The entry now names the incarnation the link reached (it may have restarted since it was read).
      this.entries.set(target, { entry: Promise.resolve({ address, inc: peer.inc }), at: performance.now() });
      return link;
    } catch (error) {
      socket.destroy();
      this.outgoing.delete(target);
      const failures = (this.retry.get(target)?.failures ?? 0) + 1;
      this.retry.set(target, { at: performance.now() + Math.min(30_000, 250 * 2 ** failures), failures, address });
      this.entries.delete(target);
      if (!this.stopped) this.options.warn(`could not open a peer link to node ${target} at ${address} (messages go through the database): ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  private outgoingClosed(target: string, link: PeerLink<Carried>, reason: string, unacked: Array<{ route: Route; message: Carried }>): void {
    const current = this.outgoing.get(target);
    if (current && "link" in current && current.link === link) this.outgoing.delete(target);
    this.entries.delete(target);
    if (!this.stopped) this.options.warn(`the peer link to node ${target} closed: ${reason}${unacked.length > 0 ? `; ${unacked.length} unacknowledged message(s) go through the database` : ""}`);
    const hooks = this.hooks;
    if (!hooks || unacked.length === 0) return;
    const reposting = (async () => {
      for (const { route, message } of unacked) {
        await hooks.postToDatabase(target, { ...message, route }).catch((error: unknown) => this.options.warn(`could not post message ${route.seq} for node ${target} through the database`, error));
      }
    })();
    this.reposting.add(reposting);
    void reposting.finally(() => this.reposting.delete(reposting));
  }

  /** A peer connected: it proves who it is, then its messages are read. */
  private async accept(socket: Socket): Promise<void> {
    const from = `${socket.remoteAddress ?? "?"}:${socket.remotePort ?? "?"}`;
    if (this.stopped) {
      socket.destroy();
      return;
    }
    if (this.handshaking >= maxPendingHandshakes) {
      socket.destroy();
      if (performance.now() - this.lastCrowdWarning > 1000) {
        this.lastCrowdWarning = performance.now();
        this.options.warn(`refused a peer link from ${from}: ${maxPendingHandshakes} handshakes are already under way`);
      }
      return;
    }
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    socket.on("error", () => undefined);
    this.handshaking++;
    try {
      const { peer, reader, rest } = await handshake(socket, {
        nodeId: this.options.nodeId,
        inc: this.options.inc,
        secret: this.options.secret,
        credentialsOf: (nodeId) => this.options.lookup(nodeId),
        ...(this.options.handshakeTimeoutMs !== undefined ? { timeoutMs: this.options.handshakeTimeoutMs } : {}),
      });
      if (this.stopped) throw new PeerRefused("this node is stopping");
      this.incoming.get(peer.nodeId)?.close("the node connected again");
      const link: PeerLink<Carried> = new PeerLink<Carried>(peer, socket, reader, {
        onMessage: (route, message) => {
          if (message.kind !== "skip") this.receivedCount++;
          this.requireOrder().accept(peer.nodeId, route, message);
          this.acknowledge(peer.nodeId, peer.inc);
        },
        onClose: (reason) => {
          if (this.incoming.get(peer.nodeId) === link) this.incoming.delete(peer.nodeId);
          if (!this.stopped && reason !== "the connection closed") this.options.warn(`the peer link from node ${peer.nodeId} closed: ${reason}`);
        },
      }, this.limits());
      this.incoming.set(peer.nodeId, link);
      link.begin(rest);
    } catch (error) {
      socket.destroy();
      this.options.warn(`refused a peer link from ${from}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.handshaking--;
    }
  }

  /** Tells `from`'s link how far its messages were handed on. */
  private acknowledge(from: string, inc: string): void {
    const link = this.incoming.get(from);
    if (!link || link.peer.inc !== inc) return;
    link.acknowledge(() => this.requireOrder().handledUpTo(from, inc));
  }

  private limits(): { maxFrameBytes: number; window: LinkWindow } {
    return { maxFrameBytes: this.options.maxFrameBytes ?? maxPeerFrameBytes, window: this.options.window ?? { messages: 1024, bytes: 16 * 1024 * 1024 } };
  }
}

/** `host:port` or `[v6]:port` → its parts. */
export function splitAddress(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]*)\]?:(\d+)$/.exec(address);
  if (!match) throw new PeerRefused(`${address} is not host:port`);
  return { host: match[1]!, port: Number(match[2]) };
}
