/**
 * The PostgreSQL store's own guarantees, against a real server: migrations applied once (and a
 * newer schema refused), two writers racing on one session's log (exactly one wins, the other gets
 * an `EventSequenceConflict` and nothing of its batch is stored), paging by sequence numbers, and
 * a resume point read back through the store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresServer } from "../../../../test/helpers/postgres.js";
import { ErrorCodes } from "../../src/errors.js";
import { Logger } from "../../src/log.js";
import { migrations } from "../../src/store/postgres/migrations.js";
import { connectPostgres, openPostgresStore } from "../../src/store/postgres/open.js";
import { EventSequenceConflict } from "../../src/store/postgres/pg-event-log.js";
import type { PgSessionStore } from "../../src/store/postgres/pg-store.js";

const started = await startPostgres();
if (started.skipped) console.warn(`PostgreSQL store tests skipped: ${started.skipped}`);

const logger = new Logger("none", () => undefined);
const event = (index: number) => JSON.stringify({ type: "session.info", data: { infoType: "test", message: `event ${index} — ünïcödé \u0000` }, id: `e${index}`, timestamp: "2026-01-01T00:00:00.000Z", parentId: index > 1 ? `e${index - 1}` : null });

describe.skipIf(!started.server)("PostgreSQL store", () => {
  let server: PostgresServer;
  let url: string;
  const stores: PgSessionStore[] = [];
  const open = async () => {
    const store = await openPostgresStore({ url, home: "/tmp/tandem-pg-unit-home", logger });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    server = started.server!;
    url = await server.createDatabase("store_unit");
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await server.stop();
  });

  it("applies the migrations once (concurrent starts included) and refuses a database newer than the runtime", async () => {
    await Promise.all([open(), open(), open()]);
    const { pool } = await connectPostgres({ url, logger });
    try {
      expect((await pool.query("SELECT version, name FROM schema_migrations ORDER BY version")).rows).toEqual(migrations.map(({ version, name }) => ({ version, name })));
      await pool.query("INSERT INTO schema_migrations (version, name) VALUES (999, 'from the future')");
      await expect(connectPostgres({ url, logger })).rejects.toThrow(/schema \(version 999\) is newer than this runtime knows/);
      await pool.query("DELETE FROM schema_migrations WHERE version = 999");
    } finally {
      await pool.end();
    }
  });

  it("two writers racing on one session's log: exactly one batch is stored, the other writer gets EventSequenceConflict", async () => {
    const [storeA, storeB] = [await open(), await open()];
    await storeA.createSessionDir("race");
    const first = storeA.openEventLog("race");
    first.append(event(1));
    await first.flush();
    expect(first.failure).toBeUndefined();
    // Both writers have read the log to its end (seq 1), as a resume does.
    const writerA = storeA.openEventLog("race");
    const writerB = storeB.openEventLog("race");
    await writerA.scan(0, () => undefined);
    await writerB.scan(0, () => undefined);
    for (let index = 2; index <= 50; index++) {
      writerA.append(event(index));
      writerB.append(event(index + 1000));
    }
    await Promise.all([writerA.flush(), writerB.flush()]);
    const failures = [writerA.failure, writerB.failure].filter((failure) => failure !== undefined);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(EventSequenceConflict);
    expect(failures[0]).toMatchObject({ code: ErrorCodes.PersistenceFailed, data: { reason: "sequence-conflict", expectedSeq: 1, foundSeq: 50 } });
    const winner = writerA.failure ? 1000 : 0;
    const lines: string[] = [];
    const scan = await storeA.openEventLog("race").scan(0, (line) => {
      lines.push(line);
    });
    expect(scan.end).toBe(50);
    expect(lines).toEqual([event(1), ...Array.from({ length: 49 }, (_, index) => event(index + 2 + winner))]);
    // The loser holds its batch and keeps failing: it never forks the log.
    const loser = writerA.failure ? writerA : writerB;
    expect(loser.heldLines).toBe(49);
    await loser.flush();
    expect(loser.failure).toBeInstanceOf(EventSequenceConflict);
  });

  it("pages forward and backward by sequence numbers; an unknown position is expired; arrayBytes splices the stored text", async () => {
    const store = await open();
    await store.createSessionDir("pages");
    const log = store.openEventLog("pages");
    for (let index = 1; index <= 10; index++) log.append(event(index));
    await log.flush();
    const forward = await log.readPage({ offset: 0, direction: "forward" }, 4, () => true);
    expect(forward).toMatchObject({ lines: [1, 2, 3, 4].map(event), next: { offset: 4 }, hasMore: true, expired: false });
    const rest = await log.readPage(forward.next, 100, (line) => line.includes("event 9"));
    expect(rest).toMatchObject({ lines: [event(9)], next: { offset: 10 }, hasMore: false });
    const backward = await log.readPage({ offset: Number.MAX_SAFE_INTEGER, direction: "backward" }, 3, () => true);
    expect(backward).toMatchObject({ lines: [8, 9, 10].map(event), next: { offset: 7 }, hasMore: true });
    expect(await log.readPage({ offset: 99, direction: "forward" }, 2, () => true)).toMatchObject({ lines: [1, 2].map(event), expired: true });
    expect(await log.tail()).toEqual({ offset: 10, direction: "forward" });
    expect(await log.entryAt([4, 5])).toBe(event(5));
    expect(await log.entryAt([4, 6])).toBeUndefined();
    const bytes = await log.arrayBytes(3, [], [event(11)], "[", "]");
    expect(JSON.parse(bytes.toString("utf8"))).toEqual([1, 2, 3, 11].map((index) => JSON.parse(event(index))));
  });
});
