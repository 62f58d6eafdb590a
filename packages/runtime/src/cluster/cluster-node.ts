import { randomBytes, randomUUID } from "node:crypto";
import type { Pool } from "pg";
import { errorMessage } from "../errors.js";
import { peerListenOf } from "../args.js";
import type { Logger } from "../log.js";
import type { RequestingClient } from "../ports/clients.js";
import { HealthCheck, HealthServer, type HealthReport } from "./health.js";
import { leaseLost } from "../store/postgres/lease-sql.js";
import { SessionLeases, type Lease } from "./leases.js";
import { NodeBus, type ListenConnection } from "./node-bus.js";
import { NodeRegistry } from "./node-registry.js";
import { clusterMethods, RemoteClients, type RemoteClient } from "./remote-client.js";
import { OrphanWatcher } from "./orphan-watcher.js";
import type { PeerLinks } from "./peer-links.js";
import { ClusterRouter, ownedElsewhere, wrapResult } from "./router.js";

/** How a node joins the cluster. */
export interface ClusterConfig {
  /** The PostgreSQL URL (the same database as the session store). */
  url: string;
  nodeId: string;
  /** Lease and heartbeat TTL (`TANDEM_LEASE_TTL_MS`, default 10 s). */
  ttlMs: number;
  /** `--health-port`: serve `GET /healthz` there. */
  healthPort?: number;
  healthHost: string;
  /** `--advertise-url`: where clients reach this node (stored with its heartbeat; sent as the owner hint). */
  advertiseUrl?: string;
  /**
   * `--peer-listen`: where this node listens for direct links from the other nodes (port 0: a free
   * one), or `off` (every node-to-node message goes through the database). Default: off.
   */
  peerListen?: { host: string; port: number; reachAt?: string } | "off";
}

/** What the node needs from this process's runtime. */
export interface ClusterHost {
  isLive(sessionId: string): boolean;
  liveSessionIds(): string[];
  findClient(clientId: number): RequestingClient | undefined;
  runLocal(method: string, params: unknown, client: RequestingClient): Promise<unknown>;
  /** A remote client joined: detach it from its sessions when it closes. */
  adoptRemote(client: RemoteClient): void;
  /**
   * This node lost a session's lease: stop running it here (its writes are refused anyway) and
   * attach its clients again wherever it runs; resolves once done (repeated calls share it).
   */
  lostSession(sessionId: string): Promise<void>;
  /** Sends a notification to every client connected to this node (one another node shared). */
  notifyClientsHere(method: string, params: unknown): void;
  /** The database is reachable again: sessions holding unwritten events try to write them now. */
  retryHeldWrites(): void;
  /** Sessions open here whose last write failed (reported by the health check). */
  stuckSessions(): Array<{ sessionId: string; reason: string }>;
  /** Opens a dead node's session here with nobody attached so its interrupted turn finishes (see `unattended.ts`). */
  resumeUnattended(sessionId: string): Promise<void>;
}

/** What opening a session here found about its lease. */
export interface Claim {
  lease: Lease;
  /** The node that held it before and died (its lease expired, it did not release it). */
  takenOverFrom?: string;
}

/** The default lease TTL. */
export const defaultLeaseTtlMs = 10_000;

/** `TANDEM_LEASE_TTL_MS` (200 ms … 10 min), else {@link defaultLeaseTtlMs}. */
export function leaseTtlFromEnv(env: NodeJS.ProcessEnv): number {
  const value = Number(env.TANDEM_LEASE_TTL_MS);
  return Number.isInteger(value) && value >= 200 && value <= 600_000 ? value : defaultLeaseTtlMs;
}

/**
 * Where a node listens for peer links: `--peer-listen` / `TANDEM_CLUSTER_PEER_LISTEN` (checked like
 * the flag: the runtime refuses to start on anything but host:port or off), else the host of the
 * advertised address (or 127.0.0.1) on a free port. A wildcard host is reached at the advertised
 * host, else at this machine's name.
 *
 * @example
 * peerListenFor(undefined, "10.0.0.7:4321", "box"); // { host: "10.0.0.7", port: 0 }
 */
export function peerListenFor(value: string | undefined, advertiseUrl: string | undefined, machine: string): { host: string; port: number; reachAt?: string } | "off" {
  const advertisedHost = advertiseUrl?.replace(/^(?:tcp|https?):\/\//, "").replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
  if (value === undefined) return { host: advertisedHost ?? "127.0.0.1", port: 0 };
  const parsed = peerListenOf(value);
  if (parsed === undefined) throw new Error("TANDEM_CLUSTER_PEER_LISTEN must be host:port (port 0: a free one) or off");
  if (parsed === "off") return "off";
  const wildcard = parsed.host === "0.0.0.0" || parsed.host === "::";
  return wildcard ? { ...parsed, reachAt: advertisedHost ?? machine } : parsed;
}

/**
 * One node of a cluster of runtimes sharing a PostgreSQL database: its leases, heartbeats, bus,
 * router and health endpoint, started together and stopped together.
 */
export class ClusterNode {
  readonly leases: SessionLeases;
  readonly registry: NodeRegistry;
  readonly bus: NodeBus;
  readonly router: ClusterRouter;
  readonly remoteClients: RemoteClients;
  readonly health: HealthCheck;
  readonly orphans: OrphanWatcher;
  private healthServer: HealthServer | undefined;
  /** The bound health port, once listening. */
  healthPort: number | undefined;
  private readonly listeners: ListenConnection[] = [];
  private originTimer: NodeJS.Timeout | undefined;
  /** Notifications being shared with the other nodes, one after the other (so they keep their order). */
  private sharing: Promise<void> = Promise.resolve();
  /** Lease releases under way (awaited before the pool closes). */
  private readonly releasing = new Set<Promise<void>>();

  private constructor(
    readonly config: ClusterConfig,
    private readonly pool: Pool,
    private readonly pg: typeof import("pg").default,
    private readonly host: ClusterHost,
    private readonly logger: Logger,
    /** Direct links to the other nodes (none with `--peer-listen off`). */
    readonly peers: PeerLinks | undefined,
    peerIdentity: { inc: string; secret: Buffer } | undefined,
  ) {
    const { nodeId, ttlMs } = config;
    this.registry = new NodeRegistry({
      db: pool,
      nodeId,
      ttlMs,
      ...(config.advertiseUrl !== undefined ? { advertiseUrl: config.advertiseUrl } : {}),
      ...(peerIdentity ? { peer: { ...peerIdentity, address: () => peers?.address } } : {}),
      onError: (error) => logger.warn("cluster heartbeat failed", error),
      // What sessions could not write during the outage is written now, not at their next send.
      onReconnect: () => void this.leases.renewNow().finally(() => host.retryHeldWrites()),
    });
    this.leases = new SessionLeases({
      db: pool,
      nodeId,
      ttlMs,
      onLost: (sessionId) => {
        logger.warn(`session ${sessionId}: this node lost its lease; it stops running here`);
        void host.lostSession(sessionId);
      },
      judging: () => this.registry.judging,
      onRenewError: (error) => logger.warn("could not renew session leases", error),
    });
    this.bus = new NodeBus({
      db: pool,
      nodeId,
      isAlive: (target) => this.registry.isAlive(target),
      listen: () => this.openListener(),
      pollMs: 1000,
      heardRecentlyMs: Math.floor(ttlMs / 3),
      onError: (message, error) => logger.warn(message, error),
      ...(peers ? { peers } : {}),
    });
    this.remoteClients = new RemoteClients(this.bus, logger, (client) => host.adoptRemote(client));
    this.router = new ClusterRouter({
      nodeId,
      bus: this.bus,
      leases: this.leases,
      isAlive: (target) => this.registry.isAlive(target),
      host,
      logger,
      ttlMs,
      storedEventsAfter: (sessionId, knownIds) => this.storedEventsAfter(sessionId, knownIds),
      ownerUrl: (ownerNode) => this.registry.urlOf(ownerNode),
    });
    this.orphans = new OrphanWatcher({
      db: pool,
      nodeId,
      ttlMs,
      judging: () => this.registry.judging,
      holds: (sessionId) => this.leases.leaseOf(sessionId) !== undefined || host.isLive(sessionId),
      resume: (sessionId) => host.resumeUnattended(sessionId),
      logger,
    });
    this.health = new HealthCheck({ nodeId, db: pool, sessionsOwned: () => this.leases.count, stuckSessions: () => host.stuckSessions(), busMessages: () => this.bus.counts });
    this.bus.handle((method, params, from) => this.handleBus(method, params, from));
  }

  /** Connects to the database (its tables come with the store's migrations), registers the node and starts its timers. */
  static async start(config: ClusterConfig, host: ClusterHost, logger: Logger): Promise<ClusterNode> {
    const { default: pg } = await import("pg");
    // A hung database fails a cluster query (a renewal, a bus message) instead of stalling it.
    const pool = new pg.Pool({ connectionString: config.url, max: 10, application_name: `tandem-cluster ${config.nodeId}`, connectionTimeoutMillis: 10_000, query_timeout: 10_000 });
    pool.on("error", (error) => logger.warn("cluster database connection failed", error));
    const { peerListen } = config;
    const peerIdentity = peerListen && peerListen !== "off" ? { inc: randomUUID(), secret: randomBytes(32) } : undefined;
    let peers: PeerLinks | undefined;
    if (peerListen && peerListen !== "off" && peerIdentity) {
      const { PeerLinks } = await import("./peer-links.js");
      peers = new PeerLinks({
        nodeId: config.nodeId,
        ...peerIdentity,
        listen: peerListen,
        // Looked up through the registry: only a live node's secret vouches for it.
        lookup: (nodeId) => node.registry.peerOf(nodeId),
        warn: (message, error) => logger.warn(message, error),
      });
    }
    const node: ClusterNode = new ClusterNode(config, pool, pg, host, logger, peers, peerIdentity);
    try {
      // Listening before the first heartbeat, which stores where peers reach this node.
      if (peers) logger.info(`peer links: listening on ${await peers.listen()}`);
      const expired = await node.leases.expirePreviousIncarnation();
      if (expired > 0) logger.warn(`node id ${config.nodeId} still held ${expired} lease(s) from a previous process; they were expired (the sessions are taken over on their next use)`);
      await node.registry.start();
      await node.bus.start();
      node.leases.start();
      node.router.start();
      node.orphans.start();
      node.watchOrigins();
      if (config.healthPort !== undefined) {
        node.healthServer = new HealthServer(node.health);
        node.healthPort = await node.healthServer.listen(config.healthPort, config.healthHost);
      }
    } catch (error) {
      await node.stop().catch(() => undefined);
      throw error;
    }
    logger.info(`cluster node ${config.nodeId} joined (lease TTL ${config.ttlMs} ms${node.healthPort !== undefined ? `, health on port ${node.healthPort}` : ""})`);
    return node;
  }

  get nodeId(): string {
    return this.config.nodeId;
  }

  /** Routes a client's request (here, or to the node running its session). */
  dispatch(method: string, params: unknown, client: RequestingClient): Promise<unknown> {
    return this.router.dispatch(method, params, client);
  }

  /**
   * Takes a session's lease before it opens here; throws `SessionBusy` (with `ownerNode`) when
   * another live node runs it.
   */
  async claim(sessionId: string): Promise<Claim> {
    const result = await this.leases.acquire(sessionId);
    if (!result.lease) throw ownedElsewhere(sessionId, result.heldBy.nodeId);
    return { lease: result.lease, ...(result.takenOverFrom ? { takenOverFrom: result.takenOverFrom } : {}) };
  }

  /** The session closed here: its lease is released so another node can take it at once. */
  release(sessionId: string): void {
    const releasing = this.leases.release(sessionId).catch((error: unknown) => this.logger.warn(`could not release the lease of session ${sessionId}: ${errorMessage(error)}`));
    this.releasing.add(releasing);
    void releasing.finally(() => this.releasing.delete(releasing));
  }

  /** The lease appends of a session must carry (undefined when this node does not hold it). */
  fenceFor(sessionId: string): Lease | undefined {
    return this.leases.leaseOf(sessionId);
  }

  /**
   * Shares a notification meant for every client (`session.lifecycle`) with the other live nodes,
   * which send it to their own clients: each client gets it once, from the node it is connected to.
   * One notification on the shared channel reaches them all (a large one goes to each node's
   * mailbox), also from a node that saw no other at its last heartbeat: one that joined since is
   * told too. Best effort; order kept per receiving node.
   */
  shareNotification(method: string, params: unknown): void {
    this.sharing = this.sharing.then(async () => {
      try {
        if (await this.bus.broadcast(clusterMethods.broadcast, { method, params })) return;
        const others = (await this.registry.aliveNodes()).filter((nodeId) => nodeId !== this.nodeId);
        await Promise.all(others.map((nodeId) => this.bus.notify(nodeId, clusterMethods.broadcast, { method, params })));
      } catch (error) {
        this.logger.warn(`could not share a ${method} notification with the other nodes`, error);
      }
    });
  }

  /** `cluster.health` / `GET /healthz`. */
  healthReport(): Promise<HealthReport> {
    return this.health.report();
  }

  /** Leaves the cluster: releases leases, stops timers and closes connections. */
  async stop(): Promise<void> {
    clearInterval(this.originTimer);
    this.router.stop();
    this.orphans.stop();
    this.leases.stop();
    await this.healthServer?.close();
    await this.sharing;
    await this.bus.stop();
    for (const sessionId of this.host.liveSessionIds()) await this.leases.release(sessionId).catch(() => undefined);
    await Promise.all([...this.releasing]);
    await this.registry.stop().catch(() => undefined);
    for (const listener of this.listeners.splice(0)) await listener.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  /** A session's stored events after the last of `knownIds` the log holds (none when it holds none of them). */
  private async storedEventsAfter(sessionId: string, knownIds: readonly string[]): Promise<Array<{ json: string; type: string; id: string }>> {
    if (knownIds.length === 0) return [];
    const { rows } = await this.pool.query<{ body: string; type: string; event_id: string }>(
      `WITH known AS (SELECT max(seq) AS seq FROM events WHERE session_id = $1 AND event_id = ANY($2::text[]))
       SELECT body::text AS body, type, event_id FROM events, known
        WHERE session_id = $1 AND known.seq IS NOT NULL AND events.seq > known.seq ORDER BY events.seq`,
      [sessionId, [...knownIds]],
    );
    return rows.map((row) => ({ json: row.body, type: row.type, id: row.event_id }));
  }

  /** Clients of a node that died are gone too: they leave the sessions here (their handlers with them). */
  private watchOrigins(): void {
    this.originTimer = setInterval(() => {
      void (async () => {
        for (const origin of this.remoteClients.originNodes()) {
          if (await this.registry.isAlive(origin).catch(() => true)) continue;
          this.logger.info(`node ${origin} is gone: its clients leave this node's sessions`);
          this.remoteClients.closeNode(origin);
        }
      })();
    }, Math.max(100, Math.floor(this.config.ttlMs / 3)));
    this.originTimer.unref();
  }

  private async openListener(): Promise<ListenConnection> {
    const client = new this.pg.Client({ connectionString: this.config.url, application_name: `tandem-bus ${this.config.nodeId}` });
    await client.connect();
    this.listeners.push(client);
    return client;
  }

  private async handleBus(method: string, params: unknown, from: string): Promise<unknown> {
    if (method === clusterMethods.rpc) {
      const request = params as { method: string; params: unknown; clientId: number; isCurrentClient: boolean };
      const client = this.remoteClients.get(from, request.clientId, request.isCurrentClient);
      const sessionId = (request.params as { sessionId?: unknown } | null)?.sessionId;
      if (typeof sessionId !== "string" || !this.host.isLive(sessionId)) return wrapResult(await this.host.runLocal(request.method, request.params, client));
      const outcome = await this.router.runOwned(sessionId, request.method, request.params, client);
      if (!outcome.ran) throw leaseLost(sessionId, this.nodeId, "this node was paused past its lease and stepped down; send again");
      return wrapResult(outcome.result);
    }
    if (method === clusterMethods.broadcast) {
      const notification = params as { method: string; params: unknown };
      this.host.notifyClientsHere(notification.method, notification.params);
      return null;
    }
    if (method === clusterMethods.clientClosed) {
      this.remoteClients.closeClient(from, (params as { clientId: number }).clientId);
      return null;
    }
    return this.router.handleBus(method, params);
  }
}
