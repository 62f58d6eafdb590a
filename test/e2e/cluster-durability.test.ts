/**
 * The durability contract of a PostgreSQL-backed node: a client sees an event only once the
 * database holds it, a `session.send` is answered only once its `user.message` is committed, and a
 * send retried with the same idempotency key runs once. The database's commit is held back with a
 * row lock on the session (what a slow or busy database looks like to the node), the node is
 * killed with SIGKILL, and the events table is read directly. Real runtime processes over TCP, a
 * real PostgreSQL, raw JSON-RPC clients.
 */
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startWorld, type TestWorld } from "../helpers/harness.js";
import { startPostgres } from "../helpers/postgres.js";
import type { WireMessage } from "../helpers/raw-client.js";
import { queryDatabase } from "../helpers/stores.js";
import { startTcpRuntime, type RawTcpClient, type TcpRuntime } from "../helpers/tcp.js";

const started = await startPostgres();
if (started.skipped) console.warn(`cluster durability tests skipped: ${started.skipped}`);

let databaseCounter = 0;
let world: TestWorld | undefined;
let url = "";
const nodes: TcpRuntime[] = [];
const clients: RawTcpClient[] = [];
const lockHolders: pg.Client[] = [];

afterEach(async () => {
  for (const holder of lockHolders.splice(0)) await holder.end().catch(() => undefined);
  for (const client of clients.splice(0)) client.socket.destroy();
  for (const node of nodes.splice(0)) await node.stop("SIGKILL");
  await world?.dispose();
  world = undefined;
});
afterAll(async () => {
  await started.server?.stop();
});

type StreamedEvent = { id: string; type: string; ephemeral?: boolean; data: Record<string, unknown> };

async function cluster(scripts: string[], nodeIds: string[]): Promise<TcpRuntime[]> {
  url = await started.server!.createDatabase(`durability_${process.pid}_${++databaseCounter}`);
  world = await startWorld(scripts, { TANDEM_STORE_URL: url, TANDEM_LEASE_TTL_MS: "1500" });
  const startedNodes: TcpRuntime[] = [];
  for (const nodeId of nodeIds) {
    const node = await startTcpRuntime(world.env, { args: ["--node-id", nodeId, "--log-level", "warning"] });
    nodes.push(node);
    startedNodes.push(node);
  }
  return startedNodes;
}

async function connectTo(node: TcpRuntime): Promise<RawTcpClient> {
  const client = await node.connect();
  clients.push(client);
  return client;
}

function query<T extends Record<string, unknown>>(sql: string, values: unknown[] = []): Promise<T[]> {
  return queryDatabase<T>(url, sql, values);
}

/** The session events a raw client received for `sessionId`, in order. */
function eventsSeen(client: RawTcpClient, sessionId: string): StreamedEvent[] {
  return client.received
    .filter((message) => message.method === "session.event" && (message.params as { sessionId: string }).sessionId === sessionId)
    .map((message) => (message.params as { event: StreamedEvent }).event);
}

function isIdle(sessionId: string): (message: WireMessage) => boolean {
  return (message) => message.method === "session.event" && (message.params as { sessionId: string; event: { type: string } }).sessionId === sessionId && (message.params as { event: { type: string } }).event.type === "session.idle";
}

/** Holds the session's row lock in an open transaction: the node's appends wait until it is released. */
async function holdAppends(sessionId: string): Promise<{ release: () => Promise<void> }> {
  const holder = new pg.Client({ connectionString: url });
  lockHolders.push(holder);
  await holder.connect();
  await holder.query("BEGIN");
  await holder.query("SELECT last_seq FROM sessions WHERE id = $1 FOR UPDATE", [sessionId]);
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      await holder.query("ROLLBACK");
    },
  };
}

/** Resolves once a connection of the database waits for a lock (a node's append stuck behind {@link holdAppends}). */
async function appendWaitingForLock(): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const rows = await query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
    if (rows.length > 0) return;
    if (Date.now() > deadline) throw new Error("no append waited for the session's lock");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Ends the database connections that wait for a lock (what the dead node left behind). */
async function endLockWaiters(): Promise<void> {
  await query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
}

async function storedEventIds(sessionId: string): Promise<string[]> {
  const rows = await query<{ event_id: string }>("SELECT event_id FROM events WHERE session_id = $1 ORDER BY seq", [sessionId]);
  return rows.map((row) => row.event_id);
}

describe.skipIf(!started.server)("cluster durability", () => {
  it("a client sees no event the database does not hold, even when its node is killed while the commit waits", { timeout: 90_000 }, async () => {
    const [node] = await cluster(["many-replies"], ["node-a"]);
    const client = await connectTo(node!);
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    await client.request("session.send", { sessionId, prompt: "first" });
    await client.waitFor(isIdle(sessionId), 30_000);

    const lock = await holdAppends(sessionId);
    const before = eventsSeen(client, sessionId).length;
    client.send({ method: "session.send", params: { sessionId, prompt: "second" } });
    // The turn runs (the model answers) while its events cannot be committed.
    await appendWaitingForLock();
    await node!.stop("SIGKILL");
    await client.closed;
    await endLockWaiters();
    await lock.release();

    const stored = new Set(await storedEventIds(sessionId));
    const seenPersisted = eventsSeen(client, sessionId).filter((event) => event.ephemeral !== true);
    const seenNotStored = seenPersisted.filter((event) => !stored.has(event.id)).map((event) => event.type);
    expect(seenNotStored).toEqual([]);
    // The first turn was seen in full; nothing of the second (never committed) was.
    expect(seenPersisted.length).toBeGreaterThan(0);
    expect(eventsSeen(client, sessionId).slice(before).filter((event) => event.ephemeral !== true)).toEqual([]);
  });

  it("a send answered just before its node is killed is in the database after another node takes the session over", { timeout: 90_000 }, async () => {
    const [nodeA, nodeB] = await cluster(["many-replies"], ["node-a", "node-b"]);
    const onA = await connectTo(nodeA!);
    const { sessionId } = (await onA.request("session.create", {})).result as { sessionId: string };
    await onA.request("session.send", { sessionId, prompt: "first" });
    await onA.waitFor(isIdle(sessionId), 30_000);

    // The commit waits for the lock; the lock is released as soon as an append waits for it, and the
    // node is killed the moment the send is answered.
    const lock = await holdAppends(sessionId);
    const [sendId] = onA.send({ method: "session.send", params: { sessionId, prompt: "acknowledged before the kill" } });
    void appendWaitingForLock().then(() => lock.release());
    const answer = await onA.response(sendId as number, 30_000);
    await nodeA!.stop("SIGKILL");
    await endLockWaiters();
    await lock.release();
    const { messageId } = answer.result as { messageId: string };
    expect(typeof messageId).toBe("string");

    // node-b takes the session over once node-a's lease expires, and its history has the message.
    const onB = await connectTo(nodeB!);
    const deadline = Date.now() + 30_000;
    let resumed = await onB.request("session.resume", { sessionId });
    while (resumed.error && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      resumed = await onB.request("session.resume", { sessionId });
    }
    expect(resumed.error).toBeUndefined();
    const rows = await query<{ message_id: string; content: string }>(
      "SELECT body->'data'->>'messageId' AS message_id, body->'data'->>'content' AS content FROM events WHERE session_id = $1 AND type = 'user.message' ORDER BY seq",
      [sessionId],
    );
    expect(rows.filter((row) => row.message_id === messageId).map((row) => row.content)).toEqual(["acknowledged before the kill"]);
  });

  it("a send accepted by a node that has lost the session's lease is refused, not acknowledged and lost", { timeout: 90_000 }, async () => {
    const [node] = await cluster(["many-replies"], ["node-a"]);
    const client = await connectTo(node!);
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    await client.request("session.send", { sessionId, prompt: "first" });
    await client.waitFor(isIdle(sessionId), 30_000);
    // Another node took the session over (a new epoch) while node-a still believes it holds it.
    await query("UPDATE session_leases SET node_id = 'node-z', epoch = epoch + 1, expires_at = clock_timestamp() + interval '1 hour' WHERE session_id = $1", [sessionId]);
    // node-a finds the lease gone before it runs the send, steps down, and cannot hand the send to
    // node-z (no heartbeat): the send is refused with LeaseLost naming the owner, never left hanging.
    const [sendId] = client.send({ method: "session.send", params: { sessionId, prompt: "into the void" } });
    const answer = await client.response(sendId as number, 30_000);
    expect(answer.result).toBeUndefined();
    expect(answer.error?.code).toBe(-32012);
    expect(answer.error?.data).toMatchObject({ sessionId, ownerNode: "node-z", method: "session.send" });
    const stored = await query<{ content: string }>("SELECT body->'data'->>'content' AS content FROM events WHERE session_id = $1 AND type = 'user.message'", [sessionId]);
    expect(stored.map((row) => row.content)).toEqual(["first"]);
  });

  it("a send retried with the same idempotency key runs once and gets the original answer, also on another node", { timeout: 90_000 }, async () => {
    const [nodeA, nodeB] = await cluster(["many-replies"], ["node-a", "node-b"]);
    const onA = await connectTo(nodeA!);
    const { sessionId } = (await onA.request("session.create", {})).result as { sessionId: string };
    const send = { sessionId, prompt: "only once", idempotencyKey: "4d1c8f2e-key-1" };
    // Two copies at once (a retry racing the original) and one after the turn.
    const [firstId, raceId] = onA.send({ method: "session.send", params: send }, { method: "session.send", params: send });
    const first = (await onA.response(firstId as number)).result as { messageId: string };
    const race = (await onA.response(raceId as number)).result as { messageId: string };
    await onA.waitFor(isIdle(sessionId), 30_000);
    const again = (await onA.request("session.send", send)).result as { messageId: string };
    expect(race.messageId).toBe(first.messageId);
    expect(again.messageId).toBe(first.messageId);

    // Through another node, and after the session moved there (the key is read back from the database).
    const onB = await connectTo(nodeB!);
    await onB.request("session.resume", { sessionId });
    const viaB = (await onB.request("session.send", send)).result as { messageId: string };
    expect(viaB.messageId).toBe(first.messageId);
    await nodeA!.stop("SIGKILL");
    const deadline = Date.now() + 30_000;
    let afterTakeover = await onB.request("session.send", send);
    while (afterTakeover.error && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      afterTakeover = await onB.request("session.send", send);
    }
    expect((afterTakeover.result as { messageId: string }).messageId).toBe(first.messageId);

    const rows = await query<{ content: string }>("SELECT body->'data'->>'content' AS content FROM events WHERE session_id = $1 AND type = 'user.message'", [sessionId]);
    expect(rows.map((row) => row.content)).toEqual(["only once"]);
    expect(world!.model.requests.length).toBe(1);

    const tooLong = await onB.request("session.send", { sessionId, prompt: "x", idempotencyKey: "k".repeat(201) });
    expect(tooLong.error?.code).toBe(-32602);
  });
});
