/**
 * When a node counts as alive. A heartbeat (`cluster_nodes.heartbeat_at`) younger than the TTL is
 * the rule; but heartbeats cannot be written while the database is unreachable, so after an outage
 * every heartbeat looks old though the nodes lived through it. Heartbeat age is therefore judged
 * only while the database is reachable ({@link ReachabilityGrace}): a node whose heartbeat failed
 * (the database stopped, restarted, crashed — which also empties the unlogged `cluster_nodes` — or
 * the network path broke) judges nobody dead until it has reached the database again for one TTL,
 * in which every living node beats again (nodes beat every TTL/3, so any outage longer than that
 * fails a beat of every node). After that, liveness is judged from fresh heartbeats again. The SQL
 * test of a fresh heartbeat is `nodeAliveSql` (`store/postgres/lease-sql.ts`).
 */

/**
 * A node's own view of the database's reachability: after a failed heartbeat, it judges no other
 * node dead until its heartbeats have succeeded again for one TTL (the others beat again meanwhile).
 *
 * @example
 * const grace = new ReachabilityGrace(ttlMs);
 * try { await beat(); grace.reached(); } catch { grace.failed(); }
 * if (grace.judging) await takeOverDeadNodes();
 */
export class ReachabilityGrace {
  /** Since when the database answered without a failure in between (undefined while it does not). */
  private reachableSince: number | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.reachableSince = now() - ttlMs;
  }

  /** A heartbeat (or another query) succeeded. */
  reached(): void {
    this.reachableSince ??= this.now();
  }

  /** A heartbeat failed: the database is unreachable. */
  failed(): void {
    this.reachableSince = undefined;
  }

  /** Whether this node may judge others dead now (it has reached the database for a TTL). */
  get judging(): boolean {
    return this.reachableSince !== undefined && this.now() - this.reachableSince >= this.ttlMs;
  }
}
