import type { Pool } from "pg";
import { ErrorCodes, errorMessage, TandemError } from "../../errors.js";
import type { Logger } from "../../log.js";
import { endOfLog } from "../event-log-pages.js";
import { BatchedAppends } from "../batched-appends.js";
import { persistenceFailed, type PersistenceOperation } from "../persistence-error.js";
import type { AppendFence, LogPage, LogPosition, LogRange, LogScan, SessionEventLog } from "../types.js";
import { batchFields } from "./event-fields.js";
import { sequenceConflictState } from "./migrations.js";
import { leaseLostState } from "./cluster-schema.js";
import { leaseLost } from "./lease-sql.js";

/** Rows read per query when scanning or paging. */
const readChunkRows = 2000;

/**
 * Another writer appended to the session's log since this writer last saw it (or the session was
 * deleted): the batch was not written, so the log never forks. A `PersistenceFailed` error with
 * `data.reason: "sequence-conflict"`.
 */
export class EventSequenceConflict extends TandemError {
  constructor(
    readonly sessionId: string,
    readonly expectedSeq: number,
    readonly foundSeq: number | undefined,
    message: string,
  ) {
    super(ErrorCodes.PersistenceFailed, message, { reason: "sequence-conflict", sessionId, expectedSeq, ...(foundSeq !== undefined ? { foundSeq } : {}) });
    this.name = "EventSequenceConflict";
  }
}

/**
 * A session's event log in PostgreSQL: `events(session_id, seq, event_id, type, body json)`.
 * Positions are sequence numbers (an entry occupies `[seq - 1, seq)`). Appends are batched (one
 * batch per turn of the event loop, or 500 events) and each batch is one call of `tandem_append_events`, one transaction that checks
 * the log still ends where this writer last saw it: a duplicate or a gap is impossible, and a
 * conflicting writer gets an {@link EventSequenceConflict}. Failures behave as the file log's:
 * the batch stays in memory, in order, the observers hear of it once, and the next explicit
 * `flush` retries.
 *
 * @example
 * const log = new PgEventLog(pool, "s1", "postgres://db/tandem", logger);
 * log.append(JSON.stringify(event));
 * await log.flush();
 */
export class PgEventLog extends BatchedAppends implements SessionEventLog {
  /** Another node may hold the session once a write fails: only committed events are shown. */
  readonly showsHeldEvents = false;
  /** The last sequence number this writer knows the log ends at (undefined until read or written). */
  private lastSeq: number | undefined;

  constructor(
    private readonly pool: Pool,
    readonly sessionId: string,
    /** The database, for messages (no password). */
    private readonly database: string,
    logger: Logger,
    /** Cluster: appends run only while this node holds the session's lease. */
    private readonly fence?: AppendFence,
  ) {
    super(logger);
  }

  get location(): string {
    return `${this.database} session ${this.sessionId} events`;
  }

  position(): Promise<{ endOffset: number | undefined; pending: readonly string[] }> {
    return this.settled().then(() => ({ endOffset: this.lastSeq, pending: [...this.pending] }));
  }

  async scan(start: number, onLine: (line: string, range: LogRange) => boolean | void): Promise<LogScan> {
    let end = start;
    let bytesRead = 0;
    for (;;) {
      const rows = await this.rows("SELECT seq, body::text AS body FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", [this.sessionId, end, readChunkRows]);
      for (const row of rows) {
        const seq = Number(row.seq);
        bytesRead += row.body.length;
        if (onLine(row.body, [seq - 1, seq]) === false) return { end: seq, bytesRead, tornBytes: 0 };
        end = seq;
      }
      if (rows.length < readChunkRows) break;
    }
    // A reader that saw the whole log is where this writer continues (a later writer conflicts).
    if (this.lastSeq === undefined && this.pending.length === 0) this.lastSeq = end;
    return { end, bytesRead, tornBytes: 0 };
  }

  async entryAt(range: LogRange): Promise<string | undefined> {
    const [start, end] = range;
    if (end !== start + 1 || start < 0) return undefined;
    const rows = await this.rows("SELECT seq, body::text AS body FROM events WHERE session_id = $1 AND seq = $2", [this.sessionId, end]);
    return rows[0]?.body;
  }

  /** The log has no unreadable entries, so `excluded` is empty here. */
  async arrayBytes(end: number, _excluded: readonly LogRange[], pending: readonly string[], prefix: string, suffix: string): Promise<Buffer> {
    const rows = await this.query<{ body: string | null }>("SELECT string_agg(body::text, ',' ORDER BY seq) AS body FROM events WHERE session_id = $1 AND seq <= $2", [this.sessionId, end]);
    const stored = rows[0]?.body ?? "";
    const parts = stored === "" ? [...pending] : [stored, ...pending];
    return Buffer.from(`${prefix}${parts.join(",")}${suffix}`);
  }

  async readPage(position: LogPosition, max: number, accept: (line: string) => boolean): Promise<LogPage> {
    const last = await this.lastStoredSeq();
    const offset = position.offset === endOfLog ? last : position.offset;
    const expired = !Number.isSafeInteger(offset) || offset < 0 || offset > last;
    if (position.direction === "forward") return this.forwardPage(expired ? 0 : offset, last, max, accept, expired);
    return this.backwardPage(expired ? last : offset, max, accept, expired);
  }

  async tail(): Promise<LogPosition> {
    return { offset: await this.lastStoredSeq(), direction: "forward" };
  }

  private async forwardPage(start: number, last: number, max: number, accept: (line: string) => boolean, expired: boolean): Promise<LogPage> {
    const lines: string[] = [];
    let next = start;
    // Bounded like the file log's byte budget: a filter that matches nothing still returns promptly.
    const rows = await this.rows("SELECT seq, body::text AS body FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", [this.sessionId, start, readChunkRows]);
    for (const row of rows) {
      if (lines.length >= max) break;
      if (accept(row.body)) lines.push(row.body);
      next = Number(row.seq);
    }
    return { lines, next: { offset: next, direction: "forward" }, hasMore: next < last, expired };
  }

  private async backwardPage(end: number, max: number, accept: (line: string) => boolean, expired: boolean): Promise<LogPage> {
    const newestFirst: string[] = [];
    let next = end;
    const rows = await this.rows("SELECT seq, body::text AS body FROM events WHERE session_id = $1 AND seq <= $2 ORDER BY seq DESC LIMIT $3", [this.sessionId, end, readChunkRows]);
    for (const row of rows) {
      if (newestFirst.length >= max) break;
      if (accept(row.body)) newestFirst.push(row.body);
      next = Number(row.seq) - 1;
    }
    return { lines: newestFirst.reverse(), next: { offset: next, direction: "backward" }, hasMore: next > 0, expired };
  }

  private async lastStoredSeq(): Promise<number> {
    const rows = await this.query<{ last_seq: string }>("SELECT last_seq FROM sessions WHERE id = $1", [this.sessionId]);
    return Number(rows[0]?.last_seq ?? 0);
  }

  private rows(sql: string, values: unknown[]): Promise<Array<{ seq: string; body: string }>> {
    return this.query<{ seq: string; body: string }>(sql, values);
  }

  /** A read; a database error becomes `PersistenceFailed` naming the log. */
  private async query<T extends Record<string, unknown>>(sql: string, values: unknown[]): Promise<T[]> {
    try {
      return (await this.pool.query<T>(sql, values)).rows;
    } catch (error) {
      throw persistenceFailed(this.location, error, "read");
    }
  }

  protected async prepare(): Promise<void> {
    if (this.lastSeq === undefined) this.lastSeq = await this.lastStoredSeq();
  }

  protected async writeBatch(batch: string[]): Promise<void> {
    const result = await this.appendBatch(this.lastSeq ?? 0, batch);
    this.lastSeq = Number(result.rows[0]?.last);
  }

  protected describeFailure(error: unknown, operation: PersistenceOperation): TandemError {
    return this.describe(error, operation);
  }

  /** A write the lease refused: once the node has the session back (or learns it has not), retry or stop. */
  protected override failed(failure: TandemError): void {
    if (!this.fence?.refused || !(failure.code === ErrorCodes.LeaseLost || failure instanceof EventSequenceConflict)) return;
    void this.fence.refused(this.sessionId).then(
      (ours) => {
        if (ours) void this.flush();
      },
      () => undefined,
    );
  }

  private async appendBatch(expected: number, batch: string[]): Promise<{ rows: Array<{ last: string }> }> {
    const { ids, types } = batchFields(batch);
    if (!this.fence) {
      return this.pool.query<{ last: string }>("SELECT tandem_append_events($1, $2, $3::json[], $4::text[], $5::text[]) AS last", [this.sessionId, expected, batch, ids, types]);
    }
    const lease = this.fence.leaseOf(this.sessionId);
    if (!lease) throw leaseLost(this.sessionId, this.fence.nodeId, "this node holds no lease on it");
    return this.pool.query<{ last: string }>("SELECT tandem_append_events_fenced($1, $2, $3::json[], $4::text[], $5::text[], $6, $7) AS last", [
      this.sessionId,
      expected,
      batch,
      ids,
      types,
      lease.nodeId,
      lease.epoch,
    ]);
  }

  private describe(error: unknown, operation: PersistenceOperation): TandemError {
    if (error instanceof TandemError) return error;
    const state = (error as { code?: unknown }).code;
    if (state === leaseLostState && this.fence) return leaseLost(this.sessionId, this.fence.nodeId);
    if (state === sequenceConflictState) {
      const detail = Number((error as { detail?: unknown }).detail);
      return new EventSequenceConflict(this.sessionId, this.lastSeq ?? 0, Number.isSafeInteger(detail) ? detail : undefined, `Could not append to ${this.location}: ${errorMessage(error)} (another writer appended to this session)`);
    }
    return persistenceFailed(this.location, error, operation);
  }
}
