/**
 * What a cluster keeps doing when its parts fail one at a time: a node paused past its lease
 * (SIGSTOP) steps down instead of wedging the session; a request pending on a client whose node
 * dies is asked again of a client attached later, and a turn whose clients' node died goes on;
 * a database outage longer than the lease TTL does not make nodes take over sessions whose owners
 * are alive. Real runtime processes over TCP, raw JSON-RPC clients, a real PostgreSQL (stopped and
 * started), the tables checked directly.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startWorld, type TestWorld } from "../helpers/harness.js";
import { startPostgres } from "../helpers/postgres.js";
import { queryDatabase } from "../helpers/stores.js";
import { startTcpRuntime, type RawTcpClient, type TcpRuntime } from "../helpers/tcp.js";

const started = await startPostgres();
if (started.skipped) console.warn(`cluster resilience tests skipped: ${started.skipped}`);

const leaseTtlMs = 1500;
let databaseCounter = 0;
let url = "";
let world: TestWorld | undefined;
const nodes: TcpRuntime[] = [];
const raws: RawTcpClient[] = [];

afterEach(async () => {
  for (const raw of raws.splice(0)) raw.close();
  for (const node of nodes.splice(0)) {
    node.child.kill("SIGCONT");
    await node.stop("SIGTERM");
  }
  await world?.dispose();
  world = undefined;
});
afterAll(async () => {
  await started.server?.stop();
});

type EventRow = { seq: string; type: string; body: { data: Record<string, unknown> } };

function query<T extends Record<string, unknown>>(sql: string, values: unknown[] = []): Promise<T[]> {
  return queryDatabase<T>(url, sql, values);
}

/** A fresh database and model server, and one node per id on them. */
async function cluster(scripts: string[], nodeIds: string[]): Promise<TcpRuntime[]> {
  url = await started.server!.createDatabase(`resilience_${process.pid}_${++databaseCounter}`);
  world = await startWorld(scripts, { TANDEM_STORE_URL: url, TANDEM_LEASE_TTL_MS: String(leaseTtlMs) });
  for (const nodeId of nodeIds) {
    nodes.push(await startTcpRuntime(world.env, { args: ["--node-id", nodeId, "--sdk-protocol-version", "2", "--log-level", "warning"] }));
  }
  return [...nodes];
}

async function connect(node: TcpRuntime): Promise<RawTcpClient> {
  const raw = await node.connect();
  raws.push(raw);
  return raw;
}

async function rpc(raw: RawTcpClient, method: string, params: unknown): Promise<Record<string, unknown>> {
  const response = await raw.request(method, params);
  if (response.error) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
  return response.result as Record<string, unknown>;
}

async function until<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${nodes.map((node, index) => `node ${index}:\n${node.stderr.slice(-2500)}`).join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function storedEvents(sessionId: string): Promise<EventRow[]> {
  return query<EventRow>("SELECT seq, type, body FROM events WHERE session_id = $1 ORDER BY seq", [sessionId]);
}

async function answered(sessionId: string, content: string): Promise<boolean> {
  const rows = await query("SELECT 1 FROM events WHERE session_id = $1 AND type = 'assistant.message' AND body->'data'->>'content' = $2", [sessionId, content]);
  return rows.length > 0;
}

async function lease(sessionId: string): Promise<{ node_id: string; epoch: string; live: boolean } | undefined> {
  const [row] = await query<{ node_id: string; epoch: string; live: boolean }>("SELECT node_id, epoch, expires_at > clock_timestamp() AS live FROM session_leases WHERE session_id = $1", [sessionId]);
  return row;
}

function expectGapless(events: EventRow[]): void {
  expect(events.map((row) => Number(row.seq))).toEqual(events.map((_, index) => index + 1));
}

describe.skipIf(!started.server)("cluster resilience", () => {
  it("a node paused past its lease while another node ran and released the session steps down on waking: its client's next send is stored, nothing wedges", { timeout: 90_000 }, async () => {
    const [nodeA, nodeB] = await cluster(["cluster-zombie"], ["node-a", "node-b"]);
    const onA = await connect(nodeA!);
    const sessionId = (await rpc(onA, "session.create", { requestPermission: false })).sessionId as string;
    await rpc(onA, "session.send", { sessionId, prompt: "zombie one" });
    await until(() => answered(sessionId, "First answer, on the first node."), "the first answer");

    // A stops past its lease; B takes the session over, answers, and releases it.
    nodeA!.child.kill("SIGSTOP");
    await until(async () => (await query("SELECT 1 FROM cluster_nodes WHERE node_id = 'node-a' AND heartbeat_at < clock_timestamp() - $1 * interval '1 millisecond'", [leaseTtlMs * 1.5])).length > 0, "node-a's heartbeat to go stale");
    const onB = await connect(nodeB!);
    await rpc(onB, "session.resume", { sessionId, requestPermission: false });
    await rpc(onB, "session.send", { sessionId, prompt: "zombie two" });
    await until(() => answered(sessionId, "Second answer, on the node that took over."), "the second answer, on node-b");
    await rpc(onB, "session.destroy", { sessionId });
    await until(async () => (await lease(sessionId))?.live === false, "node-b to release the lease");
    const epochOfB = Number((await lease(sessionId))!.epoch);

    // A wakes up holding a stale lease and a stale view of the log; its client sends at once.
    nodeA!.child.kill("SIGCONT");
    await rpc(onA, "session.send", { sessionId, prompt: "zombie three" });
    await until(() => answered(sessionId, "Third answer, with the whole history in view."), "the third answer, after node-a woke up");
    const events = await storedEvents(sessionId);
    expectGapless(events);
    expect(events.filter((row) => row.type === "user.message").map((row) => row.body.data.content)).toEqual(["zombie one", "zombie two", "zombie three"]);
    // A took the session again under a new epoch (it read the log afresh), and reports nothing stuck.
    const after = await lease(sessionId);
    expect(after?.node_id).toBe("node-a");
    expect(Number(after?.epoch)).toBeGreaterThan(epochOfB);
    const health = await rpc(onA, "cluster.health", {});
    expect(health).toMatchObject({ ok: true, stuckSessions: [] });
  });

  it("the node of a session's only clients dies: a pending permission is asked again of a client attached later, and a busy turn goes on unattended (no abort)", { timeout: 120_000 }, async () => {
    const [nodeA, nodeB, nodeC] = await cluster(["cluster-reask", "cluster-failover"], ["node-a", "node-b", "node-c"]);
    const onA = await connect(nodeA!);
    const guarded = (await rpc(onA, "session.create", { requestPermission: false })).sessionId as string;
    const looping = (await rpc(onA, "session.create", { requestPermission: false })).sessionId as string;
    // The looping session approves its own steps; the guarded one asks its client.
    await rpc(onA, "session.permissions.setApproveAll", { sessionId: looping, enabled: true });
    const onB = await connect(nodeB!);
    await rpc(onB, "session.resume", { sessionId: guarded, requestPermission: true });
    await rpc(onB, "session.resume", { sessionId: looping, requestPermission: false });
    // From now on B's client is the only one attached to either session.
    onA.close();
    await rpc(onB, "session.send", { sessionId: guarded, prompt: "run the guarded once command" });
    await rpc(onB, "session.send", { sessionId: looping, prompt: "work through the steps" });
    // B's client never answers this one: its node dies first.
    await onB.waitFor((message) => message.method === "permission.request", 30_000);
    await until(async () => (await query("SELECT 1 FROM events WHERE session_id = $1 AND type = 'tool.execution_complete'", [looping])).length > 0, "the looping session's first step");
    // Killed with its client still connected: the client does not leave, its node dies.
    await nodeB!.stop("SIGKILL");

    // A client of node C attaches to the guarded session later and is asked the same request.
    const onC = await connect(nodeC!);
    await rpc(onC, "session.resume", { sessionId: guarded, requestPermission: true });
    const asked = await onC.waitFor((message) => message.method === "permission.request", 60_000);
    expect(JSON.stringify(asked.params)).toContain("echo reasked-ran");
    onC.writeFrame(JSON.stringify({ jsonrpc: "2.0", id: asked.id, result: { result: { kind: "approved" } } }));
    await until(() => answered(guarded, "The guarded command ran after asking again."), "the guarded turn to finish on node-a");
    await until(() => answered(looping, "All steps done."), "the looping turn to finish unattended on node-a");

    for (const sessionId of [guarded, looping]) {
      const events = await storedEvents(sessionId);
      expectGapless(events);
      // No turn ended as if a user had aborted it, and no takeover happened (node-a lived on).
      expect(events.filter((row) => row.type === "abort")).toEqual([]);
      expect(events.filter((row) => row.type === "session.turn_interrupted")).toEqual([]);
      const calls = events.filter((row) => row.type === "assistant.message").flatMap((row) => ((row.body.data.toolRequests as Array<{ toolCallId: string }> | undefined) ?? []).map((request) => request.toolCallId));
      const results = events.filter((row) => row.type === "tool.execution_complete").map((row) => row.body.data.toolCallId as string);
      expect([...results].sort()).toEqual([...calls].sort());
    }
    const guardedResults = (await storedEvents(guarded)).filter((row) => row.type === "tool.execution_complete");
    expect(guardedResults.map((row) => row.body.data.success)).toEqual([true]);
    // The unattended turn's session closes once idle: nobody holds the looping session's lease.
    await until(async () => (await lease(looping))?.live === false, "the unattended session to close");
  });

  it("kill -9 right after sends were acknowledged: every acknowledged message is stored", { timeout: 60_000 }, async () => {
    const [nodeA] = await cluster(["cluster-zombie"], ["node-a", "node-b"]);
    const onA = await connect(nodeA!);
    const sessionIds: string[] = [];
    for (let index = 0; index < 20; index++) sessionIds.push((await rpc(onA, "session.create", { requestPermission: false })).sessionId as string);
    const ids = onA.send(...sessionIds.map((sessionId) => ({ method: "session.send", params: { sessionId, prompt: "zombie one" } })));
    // Killed the moment the first acknowledgement arrives.
    await onA.waitFor((message) => ids.includes(message.id as number) && message.method === undefined);
    nodeA!.child.kill("SIGKILL");
    await nodeA!.stop("SIGKILL");
    const acknowledged = sessionIds.filter((_, index) => onA.received.some((message) => message.id === ids[index] && message.method === undefined && !message.error));
    expect(acknowledged.length).toBeGreaterThan(0);
    const stored = await query<{ session_id: string }>("SELECT session_id FROM events WHERE type = 'user.message' AND session_id = ANY($1)", [sessionIds]);
    const storedIds = new Set(stored.map((row) => row.session_id));
    expect(acknowledged.filter((sessionId) => !storedIds.has(sessionId))).toEqual([]);
  });

  it("PostgreSQL stopped for three lease TTLs: afterwards the owner still runs its session (same node, same epoch) and a client of another node is answered by it", { timeout: 90_000 }, async () => {
    const [nodeA, nodeB] = await cluster(["cluster-outage"], ["node-a", "node-b"]);
    const onA = await connect(nodeA!);
    const sessionId = (await rpc(onA, "session.create", { requestPermission: false })).sessionId as string;
    const onB = await connect(nodeB!);
    await rpc(onB, "session.resume", { sessionId, requestPermission: false });
    await rpc(onB, "session.send", { sessionId, prompt: "outage: before" });
    await until(() => answered(sessionId, "Before the outage."), "the answer before the outage");
    const before = await lease(sessionId);
    expect(before?.node_id).toBe("node-a");

    await started.server!.halt();
    // The outage itself is what is tested: three lease TTLs without a database.
    await new Promise((resolve) => setTimeout(resolve, leaseTtlMs * 3));
    await started.server!.restart();
    // Long enough after the outage for any node to have judged the others (twice the grace).
    await until(async () => (await query("SELECT 1 FROM cluster_nodes WHERE heartbeat_at > clock_timestamp() - interval '1 second'")).length === 2 || undefined, "both nodes to beat again");
    await new Promise((resolve) => setTimeout(resolve, leaseTtlMs * 2));

    const sent = await onB.request("session.send", { sessionId, prompt: "after the outage" });
    expect(sent.error).toBeUndefined();
    await until(() => answered(sessionId, "After the outage, same owner."), "the answer after the outage");
    const after = await lease(sessionId);
    expect(after).toMatchObject({ node_id: "node-a", epoch: before!.epoch, live: true });
    const events = await storedEvents(sessionId);
    expectGapless(events);
    expect(events.filter((row) => row.type === "session.turn_interrupted" || row.type === "abort")).toEqual([]);
  });
});
