import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { ErrorCodes } from "../../src/errors.js";
import { Logger } from "../../src/log.js";
import { SessionLeases } from "../../src/cluster/leases.js";
import { openPostgresStore } from "../../src/store/postgres/open.js";
import { startPostgres } from "../../../../test/helpers/postgres.js";

const started = await startPostgres();
if (started.skipped) console.warn(`fenced store tests skipped: ${started.skipped}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const event = (id: string) => JSON.stringify({ id, type: "session.info", timestamp: new Date().toISOString(), parentId: null, data: { infoType: "test", message: id } });

describe.skipIf(!started.server)("the PostgreSQL store's appends carry the node's lease (real PostgreSQL)", () => {
  const home = mkdtempSync(join(tmpdir(), "tandem-fenced-"));
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await started.server?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("a node whose lease expired and was taken over cannot append to the session's log any more; the new owner can", async () => {
    const url = await started.server!.createDatabase("fenced");
    const logger = new Logger("none", () => undefined);
    const storeA = await openPostgresStore({ url, home, logger });
    const storeB = await openPostgresStore({ url, home, logger });
    closers.push(() => storeA.close(), () => storeB.close());
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    closers.push(() => pool.end());
    const leasesA = new SessionLeases({ db: pool, nodeId: "node-a", ttlMs: 300 });
    const leasesB = new SessionLeases({ db: pool, nodeId: "node-b", ttlMs: 60_000 });
    storeA.useLeases(leasesA);
    storeB.useLeases(leasesB);

    await leasesA.acquire("s1");
    await storeA.createSessionDir("s1");
    const logA = storeA.openEventLog("s1");
    logA.append(event("a1"));
    await logA.flush();
    expect(logA.failure).toBeUndefined();

    await sleep(400); // node-a paused past its lease
    expect((await leasesB.acquire("s1")).takenOverFrom).toBe("node-a");
    logA.append(event("a2-stale"));
    await logA.flush();
    expect(logA.failure?.code).toBe(ErrorCodes.LeaseLost);

    const logB = storeB.openEventLog("s1");
    await logB.scan(0, () => undefined);
    logB.append(event("b1"));
    await logB.flush();
    expect(logB.failure).toBeUndefined();
    const { rows } = await pool.query<{ event_id: string }>("SELECT event_id FROM events WHERE session_id = 's1' ORDER BY seq");
    expect(rows.map((row) => row.event_id)).toEqual(["a1", "b1"]);
  });
});
