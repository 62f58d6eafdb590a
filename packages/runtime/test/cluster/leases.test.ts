import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCodes, TandemError } from "../../src/errors.js";
import { assertLeaseCurrent, SessionLeases, type Lease } from "../../src/cluster/leases.js";
import { ensureClusterSchema } from "../../src/store/postgres/cluster-schema.js";
import { startPostgres, type PostgresServer } from "../../../../test/helpers/postgres.js";

const started = await startPostgres();
if (started.skipped) console.warn(`cluster lease tests skipped: ${started.skipped}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An append as the store does it: the fence and the next seq in one transaction. */
async function append(pool: pg.Pool, lease: Lease, payload: string): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await assertLeaseCurrent(client, lease);
    const { rows } = await client.query<{ seq: number }>(
      `INSERT INTO test_events (session_id, seq, node_id, epoch, payload)
       SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4 FROM test_events WHERE session_id = $1
       RETURNING seq`,
      [lease.sessionId, lease.nodeId, lease.epoch, payload],
    );
    await client.query("COMMIT");
    return Number(rows[0]!.seq);
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}

describe.skipIf(!started.server)("session leases (real PostgreSQL, two pools racing)", () => {
  let server: PostgresServer;
  let poolA: pg.Pool;
  let poolB: pg.Pool;
  beforeAll(async () => {
    server = started.server!;
    const url = await server.createDatabase("leases");
    poolA = new pg.Pool({ connectionString: url, max: 4 });
    poolB = new pg.Pool({ connectionString: url, max: 4 });
    await ensureClusterSchema(poolA);
    await poolA.query("CREATE TABLE test_events (session_id text, seq bigint, node_id text, epoch bigint, payload text, PRIMARY KEY (session_id, seq))");
  });
  afterAll(async () => {
    await poolA?.end();
    await poolB?.end();
    await server?.stop();
  });

  it("gives a free session to exactly one of two racing nodes, and tells the other who holds it", async () => {
    for (let round = 0; round < 20; round++) {
      const a = new SessionLeases({ db: poolA, nodeId: "node-a", ttlMs: 5000 });
      const b = new SessionLeases({ db: poolB, nodeId: "node-b", ttlMs: 5000 });
      const [fromA, fromB] = await Promise.all([a.acquire(`race-${round}`), b.acquire(`race-${round}`)]);
      const winners = [fromA, fromB].filter((result) => result.lease);
      expect(winners).toHaveLength(1);
      const loser = fromA.lease ? fromB : fromA;
      expect(loser.heldBy?.nodeId).toBe(fromA.lease ? "node-a" : "node-b");
    }
  });

  it("re-acquiring a live lease keeps its epoch; a takeover after expiry increments it and fences the old owner out", async () => {
    const a = new SessionLeases({ db: poolA, nodeId: "node-a", ttlMs: 300 });
    const b = new SessionLeases({ db: poolB, nodeId: "node-b", ttlMs: 5000 });
    const first = await a.acquire("fenced");
    const again = await a.acquire("fenced");
    expect(again.lease?.epoch).toBe(first.lease?.epoch);
    expect((await b.acquire("fenced")).heldBy?.nodeId).toBe("node-a");
    await append(poolA, first.lease!, "a1");
    await sleep(400); // a "paused" node-a: no renewal, the lease expires
    const taken = await b.acquire("fenced");
    expect(taken.lease?.epoch).toBe(first.lease!.epoch + 1);
    expect(taken.takenOverFrom).toBe("node-a");
    const refused = await append(poolA, first.lease!, "a2").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TandemError);
    expect((refused as TandemError).code).toBe(ErrorCodes.LeaseLost);
    expect(await append(poolB, taken.lease!, "b1")).toBe(2);
    const { rows } = await poolA.query("SELECT payload FROM test_events WHERE session_id = 'fenced' ORDER BY seq");
    expect(rows.map((row) => row.payload)).toEqual(["a1", "b1"]);
  });

  it("a takeover waits for the old owner's append in flight, which then commits before the new epoch", async () => {
    const a = new SessionLeases({ db: poolA, nodeId: "node-a", ttlMs: 300 });
    const b = new SessionLeases({ db: poolB, nodeId: "node-b", ttlMs: 5000 });
    const lease = (await a.acquire("in-flight")).lease!;
    const client = await poolA.connect();
    await client.query("BEGIN");
    await assertLeaseCurrent(client, lease);
    await sleep(400); // expired while the transaction holds the row
    let takenAt = 0;
    const takeover = b.acquire("in-flight").then((result) => {
      takenAt = Date.now();
      return result;
    });
    await sleep(200);
    expect(takenAt).toBe(0); // blocked by the append's row lock
    await client.query("INSERT INTO test_events (session_id, seq, node_id, epoch, payload) VALUES ('in-flight', 1, 'node-a', $1, 'a1')", [lease.epoch]);
    await client.query("COMMIT");
    client.release();
    const taken = await takeover;
    expect(taken.lease?.epoch).toBe(lease.epoch + 1);
    await expect(append(poolA, lease, "a2")).rejects.toMatchObject({ code: ErrorCodes.LeaseLost });
  });

  it("two nodes hammering one session with short leases: the log's epochs never interleave and stale appends are refused", async () => {
    const sessionId = "hammered";
    const refusals = { count: 0 };
    const runNode = async (pool: pg.Pool, nodeId: string): Promise<void> => {
      const leases = new SessionLeases({ db: pool, nodeId, ttlMs: 120 });
      const until = Date.now() + 2500;
      while (Date.now() < until) {
        const result = await leases.acquire(sessionId);
        if (!result.lease) {
          await sleep(20);
          continue;
        }
        // Keep appending past the lease's end, as a node that does not know it was paused.
        for (let index = 0; index < 12; index++) {
          try {
            await append(pool, result.lease, `${nodeId}:${result.lease.epoch}:${index}`);
          } catch (error) {
            if ((error as TandemError).code !== ErrorCodes.LeaseLost) throw error;
            refusals.count++;
            break;
          }
          await sleep(15);
        }
      }
    };
    await Promise.all([runNode(poolA, "node-a"), runNode(poolB, "node-b")]);
    const { rows } = await poolA.query<{ seq: string; node_id: string; epoch: string }>("SELECT seq, node_id, epoch FROM test_events WHERE session_id = $1 ORDER BY seq", [sessionId]);
    expect(rows.length).toBeGreaterThan(20);
    const ownerOfEpoch = new Map<number, string>();
    let lastEpoch = 0;
    rows.forEach((row, index) => {
      expect(Number(row.seq)).toBe(index + 1);
      const epoch = Number(row.epoch);
      expect(epoch).toBeGreaterThanOrEqual(lastEpoch);
      lastEpoch = epoch;
      expect(ownerOfEpoch.get(epoch) ?? row.node_id).toBe(row.node_id);
      ownerOfEpoch.set(epoch, row.node_id);
    });
    expect(new Set(ownerOfEpoch.values()).size).toBe(2);
    expect(refusals.count).toBeGreaterThan(0);
  });

  it("a held lease that expired before its renewal and that nobody took is taken again under the same epoch (nobody else appended)", async () => {
    const lost: string[] = [];
    const a = new SessionLeases({ db: poolA, nodeId: "node-a", ttlMs: 200, onLost: (sessionId) => lost.push(sessionId) });
    const first = (await a.acquire("lapsed")).lease!;
    await sleep(300); // the renewal came too late
    await expect(append(poolA, first, "while expired")).rejects.toMatchObject({ code: ErrorCodes.LeaseLost });
    await a.renewNow();
    expect(lost).toEqual([]);
    expect(a.leaseOf("lapsed")).toEqual(first);
    expect(await append(poolA, first, "reclaimed")).toBeGreaterThan(0);
  });

  it("a held lease that expired while another node took the session and released it is not reclaimed: the node is told it lost it", async () => {
    const lost: string[] = [];
    const a = new SessionLeases({ db: poolA, nodeId: "node-a", ttlMs: 200, onLost: (sessionId) => lost.push(sessionId) });
    const b = new SessionLeases({ db: poolB, nodeId: "node-b", ttlMs: 5000 });
    const first = (await a.acquire("zombie")).lease!;
    await sleep(300); // node-a is paused past its lease
    const taken = await b.acquire("zombie");
    expect(taken.lease?.epoch).toBe(first.epoch + 1);
    await b.release("zombie");
    expect(await a.confirm("zombie")).toBe(false);
    expect(lost).toEqual(["zombie"]);
    expect(a.leaseOf("zombie")).toBeUndefined();
    await expect(append(poolA, first, "stale")).rejects.toMatchObject({ code: ErrorCodes.LeaseLost });
  });

  it("renews held leases on its timer, and reports a lease another node took as lost", async () => {
    const lost: string[] = [];
    const a = new SessionLeases({ db: poolA, nodeId: "node-a", ttlMs: 300, renewEveryMs: 60, onLost: (sessionId) => lost.push(sessionId) });
    const b = new SessionLeases({ db: poolB, nodeId: "node-b", ttlMs: 5000 });
    await a.acquire("renewed");
    a.start();
    await sleep(700);
    expect((await b.acquire("renewed")).heldBy?.nodeId).toBe("node-a");
    a.stop();
    await sleep(400);
    expect((await b.acquire("renewed")).lease).toBeDefined();
    await a.renewNow();
    expect(lost).toEqual(["renewed"]);
    expect(a.count).toBe(0);
  });

  it("release lets another node take the session at once", async () => {
    const a = new SessionLeases({ db: poolA, nodeId: "node-a", ttlMs: 60_000 });
    const b = new SessionLeases({ db: poolB, nodeId: "node-b", ttlMs: 60_000 });
    const first = (await a.acquire("released")).lease!;
    await a.release("released");
    const taken = await b.acquire("released");
    expect(taken.lease?.epoch).toBe(first.epoch + 1);
    expect(taken.takenOverFrom).toBeUndefined();
  });

  it("a restarted process under the same node id expires its predecessor's leases: taking one back is a takeover with a new epoch", async () => {
    const before = new SessionLeases({ db: poolA, nodeId: "node-r", ttlMs: 60_000 });
    const old = (await before.acquire("restarted")).lease!;
    const after = new SessionLeases({ db: poolB, nodeId: "node-r", ttlMs: 60_000 });
    expect(await after.expirePreviousIncarnation()).toBe(1);
    const taken = await after.acquire("restarted");
    expect(taken.lease?.epoch).toBe(old.epoch + 1);
    expect(taken.takenOverFrom).toBe("node-r");
    await expect(append(poolA, old, "stale")).rejects.toMatchObject({ code: ErrorCodes.LeaseLost });
    // Re-acquiring its own live lease is not a takeover.
    expect((await after.acquire("restarted")).takenOverFrom).toBeUndefined();
  });
});
