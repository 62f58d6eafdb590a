import { createHash, randomUUID } from "node:crypto";
import { ErrorCodes, errorMessage, TandemError } from "../errors.js";
import type { Queryable } from "../store/postgres/queryable.js";
import type { Route } from "./peer-sequence.js";

/** A connection that receives `LISTEN` notifications (a dedicated `pg.Client`). */
export interface ListenConnection extends Queryable {
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  end(): Promise<void>;
}

/** One message between nodes, as stored in `node_messages.body`. */
export type BusMessage =
  | { kind: "request"; id: string; method: string; params: unknown }
  | { kind: "response"; id: string; result?: unknown; error?: { code: number; message: string; data?: Record<string, unknown> } }
  | { kind: "notify"; method: string; params: unknown };

/**
 * A bus message with its place in the sender's sequence to its target (see `peer-sequence.ts`), as
 * the mailbox stores it; `skip` fills the place of a message whose post failed (its sender was told).
 */
export type RoutedBusMessage = (BusMessage | { kind: "skip" }) & { route?: Route };

/** What a {@link PeerTransport} calls back into its bus. */
export interface PeerTransportHooks {
  /** Hands a message from another node to the bus, in the sender's order. */
  deliver(from: string, message: BusMessage): void;
  /** Stores a message in `target`'s database mailbox (and wakes it). */
  postToDatabase(target: string, body: RoutedBusMessage): Promise<void>;
}

/**
 * Direct links between nodes (`peer-links.ts`): messages to another node go over them when they
 * can, else through `postToDatabase`; messages read from the mailbox pass through `fromDatabase`
 * so those of both ways are handed on in order.
 */
export interface PeerTransport {
  start(hooks: PeerTransportHooks): void;
  post(target: string, message: BusMessage): Promise<void>;
  fromDatabase(from: string, body: RoutedBusMessage): void;
  readonly counts: { peerSent: number; peerReceived: number };
  stop(): Promise<void>;
}

/** Handles a request or a one-way message from another node. */
export type BusHandler = (method: string, params: unknown, fromNode: string) => Promise<unknown> | unknown;

/** What {@link NodeBus} is built with. */
export interface NodeBusOptions {
  db: Queryable;
  nodeId: string;
  /** Opens the connection that `LISTEN`s (called again after it failed). */
  listen(): Promise<ListenConnection>;
  /** Whether a node is alive (its heartbeat is recent). */
  isAlive(nodeId: string): Promise<boolean>;
  /** The safety net for missed notifications: how often the mailbox is read anyway (default 1 s). */
  pollMs?: number;
  /** How often the targets of waiting requests are checked for life (default 1 s). */
  livenessCheckMs?: number;
  /**
   * A request to a node that sent us a message within this long goes out without asking the
   * database whether it is alive first (default 0: always ask). A third of the heartbeat TTL at
   * most: such a node beat at most a TTL ago.
   */
  heardRecentlyMs?: number;
  /** How long a request waits for its answer by default (default 30 s). */
  requestTimeoutMs?: number;
  onError?(message: string, error: unknown): void;
  /** Direct links to the other nodes (none: every message goes through the database). */
  peers?: PeerTransport;
}

/** The `LISTEN` channel of a node: a valid identifier whatever the node id is. */
export function channelOf(nodeId: string): string {
  return `tandem_node_${createHash("sha256").update(nodeId).digest("hex").slice(0, 40)}`;
}

/** The channel every node listens on for messages meant for all of them (see {@link NodeBus.broadcast}). */
export const broadcastChannel = "tandem_cluster_broadcast";

/** The largest broadcast carried inside its notification (PostgreSQL's payload limit is 8000 bytes). */
const broadcastPayloadLimit = 7000;

/** The typed error of a request whose target node is gone or did not answer in time. */
export function nodeUnreachable(nodeId: string, reason: "gone" | "timeout", method: string): TandemError {
  const detail = reason === "gone" ? "is not alive (no recent heartbeat)" : "did not answer in time";
  return new TandemError(ErrorCodes.NodeUnreachable, `Node ${nodeId} ${detail}; ${method} was not answered`, { nodeId, reason, method });
}

type Waiter = { resolve(value: unknown): void; reject(error: Error): void; target: string; method: string };

/**
 * How many bus messages a node stored for other nodes and read from its mailbox since it started
 * (`sent`, `received`: the database's), and sent and read over peer links (`peerSent`, `peerReceived`).
 */
export interface BusCounts {
  sent: number;
  received: number;
  peerSent: number;
  peerReceived: number;
}

/**
 * Node-to-node messages over PostgreSQL: each message is a row of `node_messages` (so bodies of any
 * size work) and a `NOTIFY` on the target node's channel carries only its id. A node reads (and
 * deletes) its mailbox when notified and every `pollMs` anyway, so a notification missed while
 * the listening connection was down is picked up by the next read. Requests get their response
 * the same way; a request fails with `NodeUnreachable` when the target is gone or times out.
 *
 * @example
 * bus.handle(async (method, params) => runtime.dispatch(method, params, …));
 * await bus.start();
 * const answer = await bus.request("node-a", "session.send", { sessionId, prompt });
 */
export class NodeBus {
  private readonly waiting = new Map<string, Waiter>();
  private handler: BusHandler | undefined;
  private connection: ListenConnection | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private liveTimer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private readAgain = false;
  private stopped = false;
  private readonly counted = { sent: 0, received: 0 };
  /** When each node last sent us a message (`performance.now()`). */
  private readonly heardAt = new Map<string, number>();

  constructor(private readonly options: NodeBusOptions) {}

  /** Messages sent and received so far (reported by the health check, read by the cluster benchmark). */
  get counts(): BusCounts {
    return { ...this.counted, ...(this.options.peers?.counts ?? { peerSent: 0, peerReceived: 0 }) };
  }

  /** Sets what answers requests and one-way messages from other nodes. */
  handle(handler: BusHandler): void {
    this.handler = handler;
  }

  /** Starts listening and reading the mailbox. */
  async start(): Promise<void> {
    this.options.peers?.start({
      deliver: (from, message) => {
        this.heardAt.set(from, performance.now());
        this.receive(from, message);
      },
      postToDatabase: (target, body) => this.postToDatabase(target, body),
    });
    await this.connect();
    const pollMs = this.options.pollMs ?? 1000;
    this.pollTimer = setInterval(() => this.readSoon(), pollMs);
    this.pollTimer.unref();
    // Requests to a node that died while we waited fail without waiting for their timeout.
    this.liveTimer = setInterval(() => void this.failRequestsToDeadNodes(), this.options.livenessCheckMs ?? 1000);
    this.liveTimer.unref();
    this.readSoon();
  }

  /** Stops listening; waiting requests fail. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearInterval(this.liveTimer);
    for (const [id, waiter] of this.waiting) {
      this.waiting.delete(id);
      waiter.reject(new TandemError(ErrorCodes.ShuttingDown, `This node is stopping; ${waiter.method} to ${waiter.target} was not answered`));
    }
    // Before the listening connection ends: what the links did not get acknowledged is posted through the database.
    await this.options.peers?.stop();
    await this.connection?.end().catch(() => undefined);
    await this.reading;
  }

  /** Sends a request to another node and waits for its answer (its error, rethrown as a `TandemError`). */
  async request<R = unknown>(target: string, method: string, params: unknown, options: { timeoutMs?: number; signal?: AbortSignal; onPosted?: () => void } = {}): Promise<R> {
    if (!this.heardRecently(target) && !(await this.options.isAlive(target))) throw nodeUnreachable(target, "gone", method);
    const id = randomUUID();
    const answer = new Promise<unknown>((resolve, reject) => this.waiting.set(id, { resolve, reject, target, method }));
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs ?? 30_000;
    const timer = setTimeout(() => this.settle(id, undefined, nodeUnreachable(target, "timeout", method)), timeoutMs);
    const onAbort = (): void => this.settle(id, undefined, options.signal?.reason instanceof Error ? options.signal.reason : new Error("aborted"));
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await this.post(target, { kind: "request", id, method, params });
      options.onPosted?.();
      return (await answer) as R;
    } catch (error) {
      this.waiting.delete(id);
      throw error;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Sends a one-way message (no answer). */
  async notify(target: string, method: string, params: unknown): Promise<void> {
    await this.post(target, { kind: "notify", method, params });
  }

  /**
   * Sends a one-way message to every other live node: one `NOTIFY` on the shared channel carrying
   * the message itself (no mailbox row, no list of nodes to read first). Best effort: a node whose
   * listening connection is down meanwhile misses it. False when the message is too large for a
   * notification (the caller sends it to each node with {@link notify} instead).
   */
  async broadcast(method: string, params: unknown): Promise<boolean> {
    const payload = JSON.stringify({ from: this.options.nodeId, method, params });
    if (Buffer.byteLength(payload) > broadcastPayloadLimit) return false;
    await this.options.db.query("SELECT pg_notify($1, $2)", [broadcastChannel, payload]);
    this.counted.sent++;
    return true;
  }

  private heardRecently(nodeId: string): boolean {
    const heardAt = this.heardAt.get(nodeId);
    return heardAt !== undefined && performance.now() - heardAt < (this.options.heardRecentlyMs ?? 0);
  }

  /** Sends a message to `target`: over a peer link when there is one, else through the database. */
  private async post(target: string, message: BusMessage): Promise<void> {
    if (this.options.peers) return this.options.peers.post(target, message);
    await this.postToDatabase(target, message);
  }

  /** Stores a message for `target` and wakes it. */
  private async postToDatabase(target: string, message: RoutedBusMessage): Promise<void> {
    await this.options.db.query(
      `WITH stored AS (INSERT INTO node_messages (target_node, source_node, body) VALUES ($1, $2, $3) RETURNING id)
       SELECT pg_notify($4, id::text) FROM stored`,
      [target, this.options.nodeId, JSON.stringify(message), channelOf(target)],
    );
    this.counted.sent++;
  }

  private async connect(): Promise<void> {
    const connection = await this.options.listen();
    this.connection = connection;
    connection.on("notification", (notification) => {
      if (notification.channel === broadcastChannel) this.receiveBroadcast(notification.payload);
      else this.readSoon();
    });
    const lost = (error?: Error): void => {
      if (this.connection !== connection) return;
      this.connection = undefined;
      if (error) this.options.onError?.("the bus's listening connection failed; reconnecting", error);
      void this.reconnect();
    };
    connection.on("error", lost);
    connection.on("end", () => lost());
    await connection.query(`LISTEN ${channelOf(this.options.nodeId)}`);
    await connection.query(`LISTEN ${broadcastChannel}`);
  }

  private async reconnect(): Promise<void> {
    for (let delayMs = 100; !this.stopped; delayMs = Math.min(delayMs * 2, 5000)) {
      await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
      if (this.stopped) return;
      try {
        await this.connect();
        // What was posted while we were not listening.
        this.readSoon();
        return;
      } catch (error) {
        this.options.onError?.("could not reconnect the bus's listening connection", error);
      }
    }
  }

  /** Reads the mailbox now, or once more after the read in progress. */
  private readSoon(): void {
    if (this.stopped) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readMailbox().finally(() => {
      this.reading = undefined;
      if (this.readAgain) {
        this.readAgain = false;
        this.readSoon();
      }
    });
  }

  private async readMailbox(): Promise<void> {
    let rows: { id: string; source_node: string; body: RoutedBusMessage }[];
    try {
      ({ rows } = await this.options.db.query<{ id: string; source_node: string; body: RoutedBusMessage }>(
        // Read-and-delete, not "id > last seen": ids are taken at insert but rows commit in any order.
        "DELETE FROM node_messages WHERE target_node = $1 RETURNING id, source_node, body",
        [this.options.nodeId],
      ));
    } catch (error) {
      this.options.onError?.("could not read the node mailbox", error);
      return;
    }
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    this.counted.received += rows.length;
    const now = performance.now();
    for (const row of rows) this.heardAt.set(row.source_node, now);
    const { peers } = this.options;
    for (const row of rows) {
      if (peers) peers.fromDatabase(row.source_node, row.body);
      else if (row.body.kind !== "skip") this.receive(row.source_node, row.body);
    }
  }

  private receiveBroadcast(payload: string | undefined): void {
    let message: { from?: unknown; method?: unknown; params?: unknown };
    try {
      message = JSON.parse(payload ?? "") as typeof message;
    } catch (error) {
      this.options.onError?.("a broadcast on the bus was not JSON", error);
      return;
    }
    if (typeof message.from !== "string" || typeof message.method !== "string" || message.from === this.options.nodeId) return;
    this.counted.received++;
    this.heardAt.set(message.from, performance.now());
    this.receive(message.from, { kind: "notify", method: message.method, params: message.params });
  }

  private receive(from: string, message: BusMessage): void {
    if (message.kind === "response") {
      const error = message.error ? new TandemError(message.error.code as never, message.error.message, message.error.data) : undefined;
      this.settle(message.id, message.result, error);
      return;
    }
    const handler = this.handler;
    const run = async (): Promise<unknown> => {
      if (!handler) throw new TandemError(ErrorCodes.NotAvailable, `Node ${this.options.nodeId} does not take cluster requests`);
      return handler(message.method, message.params, from);
    };
    if (message.kind === "notify") {
      void run().catch((error: unknown) => this.options.onError?.(`a ${message.method} message from ${from} failed`, error));
      return;
    }
    void run().then(
      (result) => this.post(from, { kind: "response", id: message.id, result: result ?? null }),
      (error: unknown) => this.post(from, { kind: "response", id: message.id, error: wireError(error) }),
    ).catch((error: unknown) => this.options.onError?.(`could not answer ${message.method} from ${from}`, error));
  }

  private settle(id: string, result: unknown, error: Error | undefined): void {
    const waiter = this.waiting.get(id);
    if (!waiter) return;
    this.waiting.delete(id);
    if (error) waiter.reject(error);
    else waiter.resolve(result);
  }

  private async failRequestsToDeadNodes(): Promise<void> {
    const targets = new Set([...this.waiting.values()].map((waiter) => waiter.target));
    for (const target of targets) {
      const alive = await this.options.isAlive(target).catch(() => true);
      if (alive) continue;
      for (const [id, waiter] of this.waiting) {
        if (waiter.target === target) this.settle(id, undefined, nodeUnreachable(target, "gone", waiter.method));
      }
    }
  }
}

function wireError(error: unknown): { code: number; message: string; data?: Record<string, unknown> } {
  if (error instanceof TandemError) return { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) };
  return { code: ErrorCodes.InternalError, message: errorMessage(error) };
}
