import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCodes, TandemError } from "../../src/errors.js";
import { NodeBus } from "../../src/cluster/node-bus.js";
import { listenConnections } from "./listen-connections.js";
import { clusterMethods, RemoteClient } from "../../src/cluster/remote-client.js";
import { Logger } from "../../src/log.js";
import { NodeRegistry } from "../../src/cluster/node-registry.js";
import { ensureClusterSchema } from "../../src/store/postgres/cluster-schema.js";
import { startPostgres, type PostgresServer } from "../../../../test/helpers/postgres.js";

const started = await startPostgres();
if (started.skipped) console.warn(`cluster bus tests skipped: ${started.skipped}`);

async function waitUntil(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

type Node = { bus: NodeBus; registry: NodeRegistry; pool: pg.Pool; listeners: pg.Client[] };

describe.skipIf(!started.server)("node bus over LISTEN/NOTIFY (real PostgreSQL)", () => {
  let server: PostgresServer;
  let url: string;
  const nodes: Node[] = [];

  async function startNode(nodeId: string, options: { pollMs?: number; beat?: boolean; heardRecentlyMs?: number } = {}): Promise<Node> {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const listeners: pg.Client[] = [];
    const registry = new NodeRegistry({ db: pool, nodeId, ttlMs: 1000 });
    const bus = new NodeBus({
      db: pool,
      nodeId,
      pollMs: options.pollMs ?? 60_000,
      ...(options.heardRecentlyMs !== undefined ? { heardRecentlyMs: options.heardRecentlyMs } : {}),
      isAlive: (target) => registry.isAlive(target),
      listen: listenConnections(url, listeners),
    });
    if (options.beat !== false) await registry.start();
    await bus.start();
    const node = { bus, registry, pool, listeners };
    nodes.push(node);
    return node;
  }

  beforeAll(async () => {
    server = started.server!;
    url = await server.createDatabase("bus");
    const pool = new pg.Pool({ connectionString: url });
    await ensureClusterSchema(pool);
    await pool.end();
  });
  afterAll(async () => {
    for (const node of nodes) {
      await node.bus.stop();
      await node.registry.stop().catch(() => undefined);
      await node.pool.end();
    }
    await server?.stop();
  });

  it("answers requests between nodes (large bodies too) and returns a handler's error as a typed error", async () => {
    const a = await startNode("bus-a");
    const b = await startNode("bus-b");
    b.bus.handle(async (method, params, from) => {
      if (method === "fail") throw new TandemError(ErrorCodes.SessionNotFound, "no such session", { sessionId: "x" });
      return { method, params, from };
    });
    expect(await a.bus.request("bus-b", "echo", { n: 1 })).toEqual({ method: "echo", params: { n: 1 }, from: "bus-a" });
    const big = "x".repeat(2_000_000);
    const answer = await a.bus.request<{ params: { big: string } }>("bus-b", "echo", { big });
    expect(answer.params.big.length).toBe(big.length);
    const error = await a.bus.request("bus-b", "fail", {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TandemError);
    expect(error).toMatchObject({ code: ErrorCodes.SessionNotFound, message: "no such session", data: { sessionId: "x" } });
    const many = await Promise.all(Array.from({ length: 50 }, (_, index) => a.bus.request<{ params: number }>("bus-b", "echo", index)));
    expect(many.map((reply) => reply.params)).toEqual(Array.from({ length: 50 }, (_, index) => index));
  });

  it("fails fast with NodeUnreachable for a node that is gone, and on timeout for one that does not answer", async () => {
    const a = await startNode("bus-c");
    const gone = await a.bus.request("nobody-here", "echo", {}).catch((caught: unknown) => caught);
    expect(gone).toMatchObject({ code: ErrorCodes.NodeUnreachable, data: { nodeId: "nobody-here", reason: "gone" } });
    const silent = await startNode("bus-d");
    silent.bus.handle(() => new Promise(() => undefined));
    const timedOut = await a.bus.request("bus-d", "echo", {}, { timeoutMs: 300 }).catch((caught: unknown) => caught);
    expect(timedOut).toMatchObject({ code: ErrorCodes.NodeUnreachable, data: { reason: "timeout" } });
  });

  it("a request waiting on a node that dies fails when its heartbeat goes stale, before its timeout", async () => {
    const a = await startNode("bus-e");
    const dying = await startNode("bus-f");
    dying.bus.handle(() => new Promise(() => undefined));
    const pending = a.bus.request("bus-f", "echo", {}, { timeoutMs: 20_000 }).catch((caught: unknown) => caught);
    await dying.registry.stop(); // its row is gone: as if its heartbeat had stopped
    const started = Date.now();
    expect(await pending).toMatchObject({ code: ErrorCodes.NodeUnreachable, data: { reason: "gone" } });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("picks up messages posted while its listening connection was down (reconnect, then catch-up)", async () => {
    const a = await startNode("bus-g");
    const b = await startNode("bus-h");
    const received: unknown[] = [];
    b.bus.handle((method, params) => {
      received.push(params);
      return null;
    });
    // Kill b's LISTEN connection from the server side; a notification in between is lost.
    const listener = b.listeners.at(-1)!;
    // The listening connection's backend (its last query may be a catch-up read, not the LISTEN).
    const backend = (listener as unknown as { processID: number }).processID;
    const { rows } = await a.pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE pid = $1", [backend]);
    expect(rows.map((row) => row.pid)).toEqual([backend]);
    await a.pool.query("SELECT pg_terminate_backend($1)", [backend]);
    await a.bus.notify("bus-h", "hello", { n: 1 });
    await a.bus.notify("bus-h", "hello", { n: 2 });
    const deadline = Date.now() + 10_000;
    while (received.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toEqual([{ n: 1 }, { n: 2 }]);
    expect(b.listeners.length).toBe(2);
  });

  it("without notifications at all, polling delivers", async () => {
    const a = await startNode("bus-i");
    const b = await startNode("bus-j", { pollMs: 100 });
    b.bus.handle((method, params) => params);
    await b.listeners[0]!.query(`UNLISTEN *`);
    expect(await a.bus.request("bus-j", "echo", "polled")).toBe("polled");
  });

  it("a broadcast reaches every other node with one message, and not its sender", async () => {
    const sender = await startNode("bus-cast-a");
    const receivers = [await startNode("bus-cast-b"), await startNode("bus-cast-c")];
    const heard: Array<{ node: string; method: string; params: unknown; from: string }> = [];
    sender.bus.handle((method, params, from) => void heard.push({ node: "bus-cast-a", method, params, from }));
    receivers.forEach((receiver, index) => receiver.bus.handle((method, params, from) => void heard.push({ node: `receiver-${index}`, method, params, from })));
    const sentBefore = sender.bus.counts.sent;
    expect(await sender.bus.broadcast("hello", { n: 1 })).toBe(true);
    await waitUntil(() => heard.length >= 2, "the broadcast on both receivers");
    expect(sender.bus.counts.sent - sentBefore).toBe(1);
    expect(heard.map((entry) => entry.node).sort()).toEqual(["receiver-0", "receiver-1"]);
    expect(heard.every((entry) => entry.method === "hello" && entry.from === "bus-cast-a")).toBe(true);
    // Too large for a notification: the caller is told to use the mailboxes.
    expect(await sender.bus.broadcast("hello", { big: "x".repeat(10_000) })).toBe(false);
  });

  it("the events a session emits in one go cross the bus to a remote client's node as one message, in order", async () => {
    const owner = await startNode("bus-owner");
    const origin = await startNode("bus-origin");
    const delivered: unknown[] = [];
    origin.bus.handle((method, params) => {
      if (method === clusterMethods.deliver) delivered.push(...(params as { items: unknown[] }).items);
    });
    const client = new RemoteClient("bus-origin", 7, true, owner.bus, new Logger("error", () => {}));
    const sentBefore = owner.bus.counts.sent;
    for (let index = 0; index < 10; index++) client.deliverSessionEvent("s1", JSON.stringify({ id: `e${index}` }), "assistant.message");
    await client.drained();
    await waitUntil(() => delivered.length === 10, "the ten events on the origin");
    expect(owner.bus.counts.sent - sentBefore).toBe(1);
    expect(delivered.map((item) => JSON.parse((item as { json: string }).json).id)).toEqual(Array.from({ length: 10 }, (_, index) => `e${index}`));
    client.close();
  });

  it("a request to a node heard from moments ago goes out without asking the database whether it lives", async () => {
    const asker = await startNode("bus-ask", { heardRecentlyMs: 60_000 });
    const answerer = await startNode("bus-answer");
    answerer.bus.handle(() => "pong");
    asker.bus.handle(() => null);
    const livenessChecks: string[] = [];
    const originalIsAlive = asker.registry.isAlive.bind(asker.registry);
    asker.registry.isAlive = async (nodeId: string) => {
      livenessChecks.push(nodeId);
      return originalIsAlive(nodeId);
    };
    expect(await asker.bus.request("bus-answer", "ping", {})).toBe("pong");
    expect(livenessChecks).toEqual(["bus-answer"]);
    // Its answer was a message from it: the next requests skip the check.
    expect(await asker.bus.request("bus-answer", "ping", {})).toBe("pong");
    expect(await asker.bus.request("bus-answer", "ping", {})).toBe("pong");
    expect(livenessChecks).toEqual(["bus-answer"]);
  });

  it("a request to a remote client carries the events queued before it; events queued after it arrive after them", async () => {
    const owner = await startNode("bus-owner-2");
    const origin = await startNode("bus-origin-2");
    const seen: string[] = [];
    let messages = 0;
    origin.bus.handle((method, params) => {
      messages++;
      const { items } = params as { items?: Array<{ json: string }> };
      for (const item of items ?? []) seen.push(JSON.parse(item.json).id as string);
      if (method === clusterMethods.clientRequest) {
        seen.push("request");
        return { answer: "yes" };
      }
      return null;
    });
    const client = new RemoteClient("bus-origin-2", 8, true, owner.bus, new Logger("error", () => {}));
    for (let index = 0; index < 3; index++) client.deliverSessionEvent("s2", JSON.stringify({ id: `before${index}` }), "tool.execution_start");
    const answer = client.sendRequest("permission.request", { kind: "shell" });
    client.deliverSessionEvent("s2", JSON.stringify({ id: "after" }), "permission.completed");
    expect(await answer).toEqual({ answer: "yes" });
    await client.drained();
    await waitUntil(() => seen.includes("after"), "the event queued after the request");
    expect(seen).toEqual(["before0", "before1", "before2", "request", "after"]);
    // The three events went with the request: two messages in all.
    expect(messages).toBe(2);
    client.close();
  });
});
