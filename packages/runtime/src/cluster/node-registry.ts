import { nodeAliveSql } from "../store/postgres/lease-sql.js";
import { ReachabilityGrace } from "./liveness.js";
import type { Queryable } from "../store/postgres/queryable.js";

/** What {@link NodeRegistry} is built with. */
export interface NodeRegistryOptions {
  db: Queryable;
  nodeId: string;
  /** A node whose last heartbeat is older than this is taken for dead. */
  ttlMs: number;
  /** How often this node beats (default a third of the TTL). */
  beatEveryMs?: number;
  /** Where clients reach this node (`--advertise-url`), stored with each heartbeat. */
  advertiseUrl?: string;
  /** This process's peer link identity (none: it takes no links and is not sequenced to), stored with each heartbeat. */
  peer?: PeerRegistration;
  onError?(error: unknown): void;
  /** A heartbeat succeeded after one failed: the database is reachable again. */
  onReconnect?(): void;
}

/** What a node stores for its peer links: its incarnation, its secret and (once listening) where peers reach it. */
export interface PeerRegistration {
  inc: string;
  secret: Buffer;
  address(): string | undefined;
}

/**
 * The nodes of the cluster (`cluster_nodes`): each beats on a timer while it lives; a node whose
 * heartbeat is older than the TTL is gone (requests to it fail fast instead of waiting).
 */
export class NodeRegistry {
  private timer: NodeJS.Timeout | undefined;
  /** The last heartbeat failed. */
  private unreachable = false;
  /** This node's view of the database's reachability (see `liveness.ts`). */
  readonly grace: ReachabilityGrace;

  constructor(private readonly options: NodeRegistryOptions) {
    this.grace = new ReachabilityGrace(options.ttlMs);
  }

  /** Whether this node may judge other nodes dead now (not within a TTL of reaching the database again). */
  get judging(): boolean {
    return this.grace.judging;
  }

  /** Registers this node and starts beating. */
  async start(): Promise<void> {
    await this.beat();
    const every = this.options.beatEveryMs ?? Math.max(50, Math.floor(this.options.ttlMs / 3));
    this.timer = setInterval(() => void this.beat().catch((error: unknown) => this.options.onError?.(error)), every);
    this.timer.unref();
  }

  /** Stops beating and removes this node's row (a clean exit). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.options.db.query("DELETE FROM cluster_nodes WHERE node_id = $1", [this.options.nodeId]);
  }

  /** One heartbeat. */
  async beat(): Promise<void> {
    try {
      const { peer } = this.options;
      await this.options.db.query(
        `INSERT INTO cluster_nodes (node_id, heartbeat_at, advertise_url, peer_address, incarnation, peer_secret) VALUES ($1, clock_timestamp(), $2, $3, $4, $5)
         ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = clock_timestamp(), advertise_url = EXCLUDED.advertise_url,
           peer_address = EXCLUDED.peer_address, incarnation = EXCLUDED.incarnation, peer_secret = EXCLUDED.peer_secret`,
        [this.options.nodeId, this.options.advertiseUrl ?? null, peer?.address() ?? null, peer?.inc ?? null, peer ? peer.secret.toString("hex") : null],
      );
    } catch (error) {
      this.unreachable = true;
      this.grace.failed();
      throw error;
    }
    this.grace.reached();
    if (!this.unreachable) return;
    this.unreachable = false;
    this.options.onReconnect?.();
  }

  /** Whether a node counts as alive: it beat within the TTL, or liveness is not judged yet after an outage (see `liveness.ts`). */
  async isAlive(nodeId: string): Promise<boolean> {
    if (!this.grace.judging) return true;
    const { rows } = await this.options.db.query(`SELECT ${nodeAliveSql("$1", "$2")} AS alive`, [nodeId, this.options.ttlMs]);
    return rows[0]?.alive === true;
  }

  /** Where clients reach a live node (its `--advertise-url`); undefined when it advertises none or is not alive. */
  async urlOf(nodeId: string): Promise<string | undefined> {
    const { rows } = await this.options.db.query<{ advertise_url: string | null }>(
      `SELECT advertise_url FROM cluster_nodes WHERE node_id = $1 AND ${nodeAliveSql("$1", "$2")}`,
      [nodeId, this.options.ttlMs],
    );
    return rows[0]?.advertise_url ?? undefined;
  }

  /**
   * A live node's peer link entry: its address (none: it takes no links), incarnation and secret;
   * undefined when it is unknown, not alive, or registered no incarnation.
   */
  async peerOf(nodeId: string): Promise<{ address?: string; inc: string; secret: Buffer } | undefined> {
    const { rows } = await this.options.db.query<{ peer_address: string | null; incarnation: string | null; peer_secret: string | null }>(
      `SELECT peer_address, incarnation, peer_secret FROM cluster_nodes WHERE node_id = $1 AND (NOT $3::boolean OR ${nodeAliveSql("$1", "$2")})`,
      [nodeId, this.options.ttlMs, this.grace.judging],
    );
    const row = rows[0];
    if (!row?.incarnation || !row.peer_secret) return undefined;
    return { ...(row.peer_address ? { address: row.peer_address } : {}), inc: row.incarnation, secret: Buffer.from(row.peer_secret, "hex") };
  }

  /** The nodes that count as alive (every registered one while liveness is not judged). */
  async aliveNodes(): Promise<string[]> {
    const judging = this.grace.judging;
    const { rows } = await this.options.db.query<{ node_id: string }>(
      `SELECT node_id FROM cluster_nodes AS node WHERE NOT $2::boolean OR ${nodeAliveSql("node.node_id", "$1")} ORDER BY node_id`,
      [this.options.ttlMs, judging],
    );
    return rows.map((row) => row.node_id);
  }
}
