import type { Queryable } from "./sql.js";

/** What {@link NodeRegistry} is built with. */
export interface NodeRegistryOptions {
  db: Queryable;
  nodeId: string;
  /** A node whose last heartbeat is older than this is taken for dead. */
  ttlMs: number;
  /** How often this node beats (default a third of the TTL). */
  beatEveryMs?: number;
  onError?(error: unknown): void;
}

/**
 * The nodes of the cluster (`cluster_nodes`): each beats on a timer while it lives; a node whose
 * heartbeat is older than the TTL is gone (requests to it fail fast instead of waiting).
 */
export class NodeRegistry {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: NodeRegistryOptions) {}

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
    await this.options.db.query(
      `INSERT INTO cluster_nodes (node_id, heartbeat_at) VALUES ($1, clock_timestamp())
       ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = clock_timestamp()`,
      [this.options.nodeId],
    );
  }

  /** Whether a node beat within the TTL. */
  async isAlive(nodeId: string): Promise<boolean> {
    const { rows } = await this.options.db.query(
      "SELECT 1 FROM cluster_nodes WHERE node_id = $1 AND heartbeat_at > clock_timestamp() - $2 * interval '1 millisecond'",
      [nodeId, this.options.ttlMs],
    );
    return rows.length > 0;
  }

  /** The nodes that beat within the TTL. */
  async aliveNodes(): Promise<string[]> {
    const { rows } = await this.options.db.query<{ node_id: string }>(
      "SELECT node_id FROM cluster_nodes WHERE heartbeat_at > clock_timestamp() - $1 * interval '1 millisecond' ORDER BY node_id",
      [this.options.ttlMs],
    );
    return rows.map((row) => row.node_id);
  }
}
