/**
 * When a node counts as alive. A heartbeat (`cluster_nodes.heartbeat_at`) younger than the TTL is
 * the rule; but heartbeats cannot be written while the database is unreachable, so after an outage
 * every heartbeat looks old though the nodes lived through it. Two graces keep an outage from
 * making nodes declare each other dead (and take over sessions whose owners are alive):
 *
 * - the database's: for one TTL after PostgreSQL started (`pg_postmaster_start_time()`, after a
 *   restart or a crash) every node counts as alive, so each has time to beat again;
 * - each node's own ({@link ReachabilityGrace}): a node that could not reach the database judges
 *   nobody dead until it has reached it again for one TTL (an outage of the network path).
 *
 * After both, liveness is judged from fresh heartbeats again.
 */

/**
 * SQL that is true while node `nodeColumn` counts as alive (`ttlParam` is the TTL in
 * milliseconds, as a placeholder such as `$2`).
 */
export function nodeAliveSql(nodeColumn: string, ttlParam: string): string {
  return `(EXISTS (SELECT 1 FROM cluster_nodes AS beat WHERE beat.node_id = ${nodeColumn} AND beat.heartbeat_at > clock_timestamp() - ${ttlParam} * interval '1 millisecond')
     OR pg_postmaster_start_time() > clock_timestamp() - ${ttlParam} * interval '1 millisecond')`;
}

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
