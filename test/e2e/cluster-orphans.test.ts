/**
 * A watching node resumes orphaned sessions elsewhere: node A dies (`kill -9`) with sessions
 * mid-turn that no client anywhere is attached to (A's own clients died with it). Without any
 * request for them, one surviving node takes each over (the lease decides which), reports the turn
 * interrupted and finishes it; idle sessions of A are not loaded (their lease is released on A's
 * behalf, untouched otherwise). Real runtime processes over TCP, real PostgreSQL, the tables
 * checked directly.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startWorld, type TestWorld } from "../helpers/harness.js";
import { startPostgres } from "../helpers/postgres.js";
import { startTcpRuntime, type RawTcpClient, type TcpRuntime } from "../helpers/tcp.js";

const started = await startPostgres();
if (started.skipped) console.warn(`cluster orphan tests skipped: ${started.skipped}`);

let world: TestWorld | undefined;
const nodes: TcpRuntime[] = [];
const raws: RawTcpClient[] = [];
let db: pg.Pool | undefined;

afterAll(async () => {
  for (const raw of raws.splice(0)) raw.close();
  for (const node of nodes.splice(0)) await node.stop("SIGTERM");
  await db?.end();
  await world?.dispose();
  await started.server?.stop();
});

type EventRow = { session_id: string; seq: string; type: string; event_id: string; body: { data: Record<string, unknown> } };

async function rpc(raw: RawTcpClient, method: string, params: unknown): Promise<Record<string, unknown>> {
  const response = await raw.request(method, params);
  if (response.error) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
  return response.result as Record<string, unknown>;
}

describe.skipIf(!started.server)("cluster: unattended sessions of a dead node", () => {
  it("kill -9 of the node running sessions nobody watches: another node finishes each in-flight turn once; idle sessions stay unloaded", { timeout: 90_000 }, async () => {
    const url = await started.server!.createDatabase("orphans");
    db = new pg.Pool({ connectionString: url, max: 2 });
    world = await startWorld(["cluster-failover"], { TANDEM_STORE_URL: url, TANDEM_LEASE_TTL_MS: "1500" });
    for (const nodeId of ["node-a", "node-b", "node-c"]) {
      nodes.push(await startTcpRuntime(world.env, { args: ["--node-id", nodeId, "--log-level", "warning"] }));
    }
    const onA = await nodes[0]!.connect();
    raws.push(onA);
    const create = async (): Promise<string> => (await rpc(onA, "session.create", { requestPermission: false })).sessionId as string;
    const busy: string[] = [];
    for (let index = 0; index < 6; index++) {
      const sessionId = await create();
      // Nobody will be there to approve the bash steps: the session approves them itself.
      await rpc(onA, "session.permissions.setApproveAll", { sessionId, enabled: true });
      busy.push(sessionId);
    }
    const idle = [await create(), await create()];
    for (const sessionId of busy) await rpc(onA, "session.send", { sessionId, prompt: "work through the steps" });

    const completedSteps = async (): Promise<Map<string, number>> => {
      const { rows } = await db!.query<{ session_id: string; count: string }>("SELECT session_id, count(*) FROM events WHERE type = 'tool.execution_complete' GROUP BY session_id");
      return new Map(rows.map((row) => [row.session_id, Number(row.count)]));
    };
    const startDeadline = Date.now() + 30_000;
    while ((await completedSteps()).size < busy.length) {
      if (Date.now() > startDeadline) throw new Error("the sessions did not all start their tool loops");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const idleBefore = await db.query<{ session_id: string; epoch: string; n: string }>(
      "SELECT l.session_id, l.epoch, (SELECT count(*) FROM events e WHERE e.session_id = l.session_id) AS n FROM session_leases l WHERE l.session_id = ANY($1) ORDER BY l.session_id",
      [idle],
    );
    // A's only client goes with A: from now on no client anywhere is attached to these sessions.
    onA.close();
    await nodes[0]!.stop("SIGKILL");
    const beforeKill = await completedSteps();
    expect(busy.some((sessionId) => (beforeKill.get(sessionId) ?? 0) < 5)).toBe(true);

    const finished = async (): Promise<Set<string>> => {
      const { rows } = await db!.query<{ session_id: string }>(
        "SELECT DISTINCT session_id FROM events WHERE type = 'assistant.message' AND body->'data'->>'content' = 'All steps done.'",
      );
      return new Set(rows.map((row) => row.session_id));
    };
    const finishDeadline = Date.now() + 45_000;
    while ((await finished()).size < busy.length) {
      if (Date.now() > finishDeadline) {
        const done = await finished();
        throw new Error(`${busy.length - done.size} unattended session(s) did not finish\nnode-b:\n${nodes[1]!.stderr.slice(-2000)}\nnode-c:\n${nodes[2]!.stderr.slice(-2000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const { rows } = await db.query<EventRow>("SELECT session_id, seq, type, event_id, body FROM events WHERE session_id = ANY($1) ORDER BY session_id, seq", [busy]);
    for (const sessionId of busy) {
      const events = rows.filter((row) => row.session_id === sessionId);
      // Exactly one writer after A: no gap, no duplicate, one interruption report by B or C.
      expect(events.map((row) => Number(row.seq))).toEqual(events.map((_, index) => index + 1));
      expect(new Set(events.map((row) => row.event_id)).size).toBe(events.length);
      const calls = events.filter((row) => row.type === "assistant.message").flatMap((row) => ((row.body.data.toolRequests as Array<{ toolCallId: string }> | undefined) ?? []).map((request) => request.toolCallId));
      const results = events.filter((row) => row.type === "tool.execution_complete").map((row) => row.body.data.toolCallId as string);
      expect([...results].sort()).toEqual([...calls].sort());
      const interrupted = events.filter((row) => row.type === "session.turn_interrupted");
      if ((beforeKill.get(sessionId) ?? 0) >= 5) continue;
      expect(interrupted).toHaveLength(1);
      expect(interrupted[0]!.body.data).toMatchObject({ reason: "node_lost", previousNodeId: "node-a", continued: true });
      expect(["node-b", "node-c"]).toContain(interrupted[0]!.body.data.nodeId);
      expect(events.filter((row) => row.type === "assistant.message" && row.body.data.content === "All steps done.")).toHaveLength(1);
      // The failover's notice is its own event, not a user message nobody typed.
      expect(events.filter((row) => row.type === "user.message").map((row) => row.body.data.content)).toEqual(["work through the steps"]);
      const notices = events.filter((row) => row.type === "session.warning" && row.body.data.warningType === "failover");
      expect(notices).toHaveLength(1);
      expect(notices[0]!.body.data.message).toContain("took the session over");
    }

    // Idle sessions: not loaded by anyone (their lease still names A, same epoch, released; no new event).
    const released = async (): Promise<boolean> => {
      const { rows: leases } = await db!.query<{ n: string }>("SELECT count(*) AS n FROM session_leases WHERE session_id = ANY($1) AND expires_at = '-infinity'", [idle]);
      return Number(leases[0]!.n) === idle.length;
    };
    const idleDeadline = Date.now() + 10_000;
    while (!(await released())) {
      if (Date.now() > idleDeadline) throw new Error("the idle sessions' leases were not released");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const idleAfter = await db.query<{ session_id: string; epoch: string; n: string; node_id: string }>(
      "SELECT l.session_id, l.epoch, l.node_id, (SELECT count(*) FROM events e WHERE e.session_id = l.session_id) AS n FROM session_leases l WHERE l.session_id = ANY($1) ORDER BY l.session_id",
      [idle],
    );
    expect(idleAfter.rows.map(({ session_id, epoch, n }) => ({ session_id, epoch, n }))).toEqual(idleBefore.rows);
    expect(idleAfter.rows.every((row) => row.node_id === "node-a")).toBe(true);

    // The finished sessions closed again on their new node: nobody holds their leases any more.
    const leaseDeadline = Date.now() + 10_000;
    for (;;) {
      const { rows: live } = await db.query("SELECT 1 FROM session_leases WHERE session_id = ANY($1) AND expires_at > clock_timestamp()", [busy]);
      if (live.length === 0) break;
      if (Date.now() > leaseDeadline) throw new Error(`${live.length} finished unattended session(s) stayed open`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});
