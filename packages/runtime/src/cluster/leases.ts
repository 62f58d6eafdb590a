import {
  acquireLeaseSql,
  expireNodeLeasesSql,
  leaseFenceSql,
  leaseHolderSql,
  leaseKeeperSql,
  leaseLost,
  reclaimLeaseSql,
  releaseLeaseSql,
  renewLeasesSql,
} from "../store/postgres/lease-sql.js";
import type { Queryable } from "../store/postgres/queryable.js";

/** A lease this node holds: the session runs its loop here, and appends carry `epoch`. */
export interface Lease {
  readonly sessionId: string;
  readonly nodeId: string;
  /** The fencing token: it grows each time the session changes hands; a stale holder's appends are refused. */
  readonly epoch: number;
}

/** The outcome of {@link SessionLeases.acquire}: the lease, or who holds it now. */
export type AcquireResult =
  | { lease: Lease; heldBy?: undefined; /** The node that held the lease before and died (it expired; it was not released). */ takenOverFrom?: string }
  | { lease?: undefined; heldBy: { nodeId: string; expiresAt: Date }; takenOverFrom?: undefined };

/** What {@link SessionLeases} is built with. */
export interface SessionLeasesOptions {
  db: Queryable;
  nodeId: string;
  /** How long a lease lasts without renewal. */
  ttlMs: number;
  /** How often held leases are renewed (default a third of the TTL). */
  renewEveryMs?: number;
  /** Called when a held lease was lost (another node took the session since, or an append was refused). */
  onLost?(sessionId: string): void;
  /** Whether this node may judge other nodes dead now (default always; see `liveness.ts`). */
  judging?(): boolean;
  /** Called when a renewal round failed (the database is unreachable). */
  onRenewError?(error: unknown): void;
}

/**
 * Checks, inside the caller's transaction, that `lease` is still current; throws `LeaseLost`
 * otherwise. The store's append calls this before inserting events.
 */
export async function assertLeaseCurrent(transaction: Queryable, lease: Lease): Promise<void> {
  const { rows } = await transaction.query(leaseFenceSql, [lease.sessionId, lease.nodeId, lease.epoch]);
  if (rows.length === 0) throw leaseLost(lease.sessionId, lease.nodeId);
}

/**
 * Session ownership in the database (`session_leases`): a node acquires a session's lease before
 * it runs the session, renews what it holds on a timer while it lives, releases on close, and takes
 * over leases that expired (their node died or was partitioned). Each change of hands increments
 * the lease's epoch; appends check theirs (see {@link assertLeaseCurrent}), so a node that lost a
 * lease can never append to that session again.
 *
 * @example
 * const leases = new SessionLeases({ db: pool, nodeId: "node-a", ttlMs: 5000 });
 * leases.start();
 * const result = await leases.acquire(sessionId);
 * if (result.heldBy) forwardTo(result.heldBy.nodeId);
 */
export class SessionLeases {
  private readonly held = new Map<string, Lease>();
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;

  constructor(private readonly options: SessionLeasesOptions) {}

  /** This node's id. */
  get nodeId(): string {
    return this.options.nodeId;
  }

  /** The number of leases this node holds. */
  get count(): number {
    return this.held.size;
  }

  /** The lease held for a session, if this node holds it. */
  leaseOf(sessionId: string): Lease | undefined {
    return this.held.get(sessionId);
  }

  /** Starts renewing held leases. */
  start(): void {
    if (this.timer) return;
    const every = this.options.renewEveryMs ?? Math.max(50, Math.floor(this.options.ttlMs / 3));
    this.timer = setInterval(() => void this.renewNow(), every);
    this.timer.unref();
  }

  /** Stops renewing (the leases then expire unless released). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Acquires a session's lease: free, expired or already ours → ours (a new epoch unless we held
   * it still); held by a live lease of another node → who holds it.
   */
  async acquire(sessionId: string): Promise<AcquireResult> {
    const { db, nodeId, ttlMs } = this.options;
    const judging = this.options.judging?.() ?? true;
    const { rows } = await db.query<{ epoch: string; expired_node: string | null }>(acquireLeaseSql, [sessionId, nodeId, ttlMs, judging]);
    const row = rows[0];
    if (row) {
      const lease: Lease = { sessionId, nodeId, epoch: Number(row.epoch) };
      // An expired lease of this node id that this process does not hold was a previous process's.
      const diedHolder = row.expired_node !== null && (row.expired_node !== nodeId || !this.held.has(sessionId)) ? row.expired_node : undefined;
      this.held.set(sessionId, lease);
      return diedHolder !== undefined ? { lease, takenOverFrom: diedHolder } : { lease };
    }
    this.held.delete(sessionId);
    // Live, or expired under a node that counts as alive: that node holds it.
    const { rows: held } = await db.query<{ node_id: string; expires_at: Date }>(leaseKeeperSql, [sessionId]);
    const holder = held[0];
    // Released between the two statements: try once more.
    if (!holder) return this.acquire(sessionId);
    return { heldBy: { nodeId: holder.node_id, expiresAt: new Date(holder.expires_at) } };
  }

  /** Who holds a live lease on the session (undefined when nobody does). */
  async holder(sessionId: string): Promise<{ nodeId: string; expiresAt: Date } | undefined> {
    const { rows } = await this.options.db.query<{ node_id: string; expires_at: Date }>(leaseHolderSql, [sessionId]);
    const row = rows[0];
    return row ? { nodeId: row.node_id, expiresAt: new Date(row.expires_at) } : undefined;
  }

  /**
   * At start: leases still held under this node id belong to a previous process with the same id
   * (it died, or is wrongly still running): they are expired now, so taking them back is a
   * takeover (new epoch, fenced) instead of a silent reuse.
   */
  async expirePreviousIncarnation(): Promise<number> {
    const { rowCount } = await this.options.db.query(expireNodeLeasesSql, [this.options.nodeId]);
    return rowCount ?? 0;
  }

  /** Gives a lease up (the row stays, expired, so the epoch keeps growing). */
  async release(sessionId: string): Promise<void> {
    const lease = this.held.get(sessionId);
    if (!lease) return;
    this.held.delete(sessionId);
    await this.options.db.query(releaseLeaseSql, [sessionId, lease.nodeId, lease.epoch]);
  }

  /** Forgets a lease without touching the database (it was lost). */
  forget(sessionId: string): void {
    this.held.delete(sessionId);
  }

  /** Renews every held lease now; leases that could not be renewed are reported lost. */
  renewNow(): Promise<void> {
    this.renewing ??= this.renew().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private async renew(): Promise<void> {
    const { db, nodeId, ttlMs } = this.options;
    const leases = [...this.held.values()];
    if (leases.length === 0) return;
    let renewed: Set<string>;
    try {
      const { rows } = await db.query<{ session_id: string }>(renewLeasesSql, [nodeId, ttlMs, leases.map((lease) => lease.sessionId), leases.map((lease) => lease.epoch)]);
      renewed = new Set(rows.map((row) => row.session_id));
    } catch (error) {
      // The database is unreachable: nothing can be appended meanwhile (appends go to it), so the
      // leases are judged once it answers again (reclaimed if untouched, else lost).
      this.options.onRenewError?.(error);
      return;
    }
    for (const lease of leases) {
      if (renewed.has(lease.sessionId) || this.held.get(lease.sessionId) !== lease) continue;
      const reclaimed = await this.reclaim(lease);
      if (reclaimed === undefined || this.held.get(lease.sessionId) !== lease) continue;
      if (reclaimed) continue;
      this.lost(lease.sessionId);
    }
  }

  /**
   * Renews one held lease now (reclaiming it if it expired untouched): true while this node
   * still owns the session; false after it lost it (`onLost` was called). Run before a send is
   * acknowledged, so a node that was paused past its lease never accepts one it cannot store.
   */
  async confirm(sessionId: string): Promise<boolean> {
    const lease = this.held.get(sessionId);
    if (!lease) return false;
    const { db, nodeId, ttlMs } = this.options;
    const { rows } = await db.query(renewLeasesSql, [nodeId, ttlMs, [sessionId], [lease.epoch]]);
    if (rows.length > 0) return true;
    const { rows: reclaimed } = await db.query(reclaimLeaseSql, [sessionId, nodeId, lease.epoch, ttlMs]);
    if (reclaimed.length > 0) return true;
    if (this.held.get(sessionId) === lease) this.lost(sessionId);
    return false;
  }

  /**
   * An append under the session's lease was refused: true when the lease is ours again (it had
   * expired untouched and was reclaimed); false when another node took it (this node steps down,
   * `onLost`) or the database could not say (nothing changes; the append is retried later).
   */
  async refused(sessionId: string): Promise<boolean> {
    return this.confirm(sessionId).catch(() => false);
  }

  /**
   * This node no longer holds the session's lease (an append under it was refused, or it could
   * not be renewed nor reclaimed): it is forgotten and `onLost` tells the node to step down.
   */
  lost(sessionId: string): void {
    if (!this.held.delete(sessionId)) return;
    this.options.onLost?.(sessionId);
  }

  /**
   * A lease that expired before its renewal (a slow database, a long pause, an outage) is taken
   * again under the same epoch when no other node took the session meanwhile (see `reclaimLeaseSql`);
   * false when one did; undefined when the database could not say (tried again next round).
   */
  private async reclaim(lease: Lease): Promise<boolean | undefined> {
    try {
      const { rows } = await this.options.db.query(reclaimLeaseSql, [lease.sessionId, lease.nodeId, lease.epoch, this.options.ttlMs]);
      return rows.length > 0;
    } catch {
      return undefined;
    }
  }
}
