import { ErrorCodes, TandemError } from "../errors.js";
import type { Logger } from "../log.js";
import { orphanedLeasesSql, releaseOrphanSql } from "../store/postgres/lease-sql.js";
import type { Queryable } from "../store/postgres/queryable.js";

/** What {@link OrphanWatcher} is built with. */
export interface OrphanWatcherOptions {
  db: Queryable;
  nodeId: string;
  /** The lease and heartbeat TTL: a node that did not beat within it is dead. */
  ttlMs: number;
  /**
   * How long after a lease expired the watcher takes the session (default the TTL): first the
   * session's clients get to come back — their node, or a reconnecting client, opens it with their
   * tools and handlers; the watcher is the last resort for work nobody returns to.
   */
  graceMs?: number;
  /** How often the leases are scanned (default half the TTL, at least 100 ms). */
  everyMs?: number;
  /** Whether this node may judge other nodes dead now (see `liveness.ts`; default always). */
  judging?(): boolean;
  /** Whether this process holds the session's lease (its own expired leases are renewed, not taken). */
  holds(sessionId: string): boolean;
  /** Opens the session here with nobody attached, continuing its turn (throws `SessionBusy` when another node won it). */
  resume(sessionId: string): Promise<void>;
  logger: Logger;
}

/** At most this many orphans are handled per scan (the next scan takes the rest). */
const batchSize = 50;

/** Event types that tell where a session's last turn stands (the rest say nothing about it). */
const turnEventTypes = ["user.message", "assistant.turn_start", "assistant.message", "tool.execution_start", "tool.execution_complete", "session.turn_interrupted", "abort", "session.error"];

/**
 * The last turn-telling event of a session: a turn is in flight unless it is a final answer
 * (an assistant message without tool requests), an abort or an error.
 */
const lastTurnEventSql = `
  SELECT type, CASE WHEN json_typeof(body->'data'->'toolRequests') = 'array' THEN json_array_length(body->'data'->'toolRequests') ELSE 0 END AS tool_requests
    FROM events WHERE session_id = $1 AND type = ANY($2::text[])
   ORDER BY seq DESC LIMIT 1`;

/** One expired lease of a dead node. */
interface Orphan {
  session_id: string;
  node_id: string;
  epoch: string;
}

/**
 * Finishes unattended work after a node died: sessions whose lease expired (a grace period ago,
 * see {@link OrphanWatcherOptions.graceMs}) while a turn was in flight are taken over by one
 * surviving node (every node tries; the lease decides who wins), opened with nobody attached and
 * their turn continued, so the work finishes even when no client will ever ask for them. Idle
 * sessions are never loaded: their lease is released on the dead node's behalf after one look at
 * their last events. With nothing expired a scan is one indexed query returning no row.
 *
 * @example
 * const watcher = new OrphanWatcher({ db: pool, nodeId, ttlMs, holds, resume, logger });
 * watcher.start();
 */
export class OrphanWatcher {
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  /** Orphans whose resume failed, by session and epoch: not tried again until their lease changes. */
  private readonly failed = new Set<string>();

  constructor(private readonly options: OrphanWatcherOptions) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.scanNow(), this.options.everyMs ?? Math.max(100, Math.floor(this.options.ttlMs / 2)));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One scan now (or the scan under way). */
  scanNow(): Promise<void> {
    this.scanning ??= this.scan()
      .catch((error: unknown) => this.options.logger.warn("could not look for sessions of dead nodes", error))
      .finally(() => {
        this.scanning = undefined;
      });
    return this.scanning;
  }

  private async scan(): Promise<void> {
    const { db, nodeId, ttlMs } = this.options;
    if (this.options.judging?.() === false) return;
    const { rows } = await db.query<Orphan & Record<string, unknown>>(orphanedLeasesSql, [nodeId, ttlMs, this.options.graceMs ?? ttlMs, batchSize]);
    const orphans = rows.filter((row) => !this.options.holds(row.session_id) && !this.failed.has(`${row.session_id}@${row.epoch}`));
    await Promise.all(orphans.map((orphan) => this.handle(orphan)));
  }

  private async handle(orphan: Orphan): Promise<void> {
    const { db, logger } = this.options;
    if (!(await this.turnInFlight(orphan.session_id))) {
      await db.query(releaseOrphanSql, [orphan.session_id, orphan.node_id, orphan.epoch]);
      return;
    }
    try {
      await this.options.resume(orphan.session_id);
      logger.info(`session ${orphan.session_id}: node ${orphan.node_id} died mid-turn with nobody attached; this node took it over`);
    } catch (error) {
      // Another node won the lease: it continues the turn.
      if (error instanceof TandemError && error.code === ErrorCodes.SessionBusy) return;
      this.failed.add(`${orphan.session_id}@${orphan.epoch}`);
      logger.warn(`session ${orphan.session_id}: could not take it over from dead node ${orphan.node_id}`, error);
    }
  }

  private async turnInFlight(sessionId: string): Promise<boolean> {
    const { rows } = await this.options.db.query<{ type: string; tool_requests: number }>(lastTurnEventSql, [sessionId, turnEventTypes]);
    const last = rows[0];
    if (!last) return false;
    if (last.type === "abort" || last.type === "session.error") return false;
    if (last.type === "assistant.message") return Number(last.tool_requests) > 0;
    return true;
  }
}
