/**
 * Several runtime nodes on one PostgreSQL database (`--store` + `--node-id`): any node serves any
 * session. A session created on node A runs there (A holds its lease); a client connected to node
 * B resumes it, sends, sees its events in order, answers its permission request and runs its own
 * custom tool for A's loop, and aborts it — every request travelling the node bus. Real runtime
 * processes over TCP, the official SDK 0.2.0 as clients, the tables checked directly.
 */
import { approveAll, CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { startPostgres, type PostgresServer } from "../helpers/postgres.js";
import { queryDatabase } from "../helpers/stores.js";
import { startTcpRuntime, type TcpRuntime } from "../helpers/tcp.js";
import { freePort } from "../helpers/ports.js";

const started = await startPostgres();
if (started.skipped) console.warn(`cluster tests skipped: ${started.skipped}`);

let server: PostgresServer;
let databaseCounter = 0;
let world: TestWorld | undefined;
let url = "";
const nodes: TcpRuntime[] = [];
const clients: CopilotClient[] = [];

beforeAll(() => {
  if (started.server) server = started.server;
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.forceStop().catch(() => undefined);
  for (const node of nodes.splice(0)) await node.stop("SIGTERM");
  await world?.dispose();
  world = undefined;
});
afterAll(async () => {
  await server?.stop();
});

/** `tool_b`, a tool only the client on node B registers; its calls' arguments go to `calls`. */
function toolOnlyOnB(calls: unknown[]) {
  return {
    name: "tool_b",
    description: "A tool only B's client has",
    parameters: { type: "object", properties: { what: { type: "string" } } },
    handler: (args: unknown) => {
      calls.push(args);
      return "answer from B";
    },
  };
}

function query<T extends Record<string, unknown>>(sql: string, values: unknown[] = []): Promise<T[]> {
  return queryDatabase<T>(url, sql, values);
}

/** A fresh database and model server, and `count` nodes on them. */
async function cluster(scripts: string[], nodeIds: string[], protocol = 2, extraArgs: Record<string, string[]> = {}): Promise<TcpRuntime[]> {
  url = await server.createDatabase(`cluster_${process.pid}_${++databaseCounter}`);
  world = await startWorld(scripts, { TANDEM_STORE_URL: url, TANDEM_LEASE_TTL_MS: "1500" });
  for (const nodeId of nodeIds) {
    const args = ["--node-id", nodeId, "--sdk-protocol-version", String(protocol), "--log-level", "warning", ...(extraArgs[nodeId] ?? [])];
    nodes.push(await startTcpRuntime(world.env, { args }));
  }
  return [...nodes];
}


function connectTo(node: TcpRuntime): CopilotClient {
  const client = new CopilotClient({ cliUrl: node.cliUrl, logLevel: "error" });
  clients.push(client);
  return client;
}

async function leaseHolder(sessionId: string): Promise<string | undefined> {
  const [row] = await query<{ node_id: string }>("SELECT node_id FROM session_leases WHERE session_id = $1 AND expires_at > clock_timestamp()", [sessionId]);
  return row?.node_id;
}

describe.skipIf(!started.server)("cluster: a client on node B drives a session that runs on node A", () => {
  it("sends from B: the loop runs on A, B sees the events in order without duplicates, answers the permission and runs its own tool", async () => {
    const [nodeA, nodeB] = await cluster(["cluster-remote"], ["node-a", "node-b"]);
    const onA = connectTo(nodeA!);
    // A's client would refuse: the permission must be answered by B's client.
    const permissionsOnA: unknown[] = [];
    const sessionOnA = await onA.createSession({
      onPermissionRequest: (request) => {
        permissionsOnA.push(request);
        return { kind: "denied-interactively-by-user" };
      },
    });
    const sessionId = sessionOnA.sessionId;
    expect(await leaseHolder(sessionId)).toBe("node-a");

    const onB = connectTo(nodeB!);
    const permissionsOnB: unknown[] = [];
    const toolCallsOnB: unknown[] = [];
    const sessionOnB = await onB.resumeSession(sessionId, {
      onPermissionRequest: (request) => {
        permissionsOnB.push(request);
        return { kind: "approved" };
      },
      tools: [toolOnlyOnB(toolCallsOnB)],
    });
    const eventsOnB: SessionEvent[] = [];
    sessionOnB.on((event) => eventsOnB.push(event));
    const reply = await sessionOnB.sendAndWait({ prompt: "drive from b" }, 30_000);
    expect(reply?.data.content).toBe("Done on both nodes.");
    // The bash call and the custom tool each asked; B's client answered both.
    expect(permissionsOnB.map((request) => (request as { kind: string }).kind)).toEqual(["shell", "custom-tool"]);
    expect(permissionsOnA).toHaveLength(0);
    expect(toolCallsOnB).toEqual([{ what: "b" }]);
    // Still A's session: the loop ran there.
    expect(await leaseHolder(sessionId)).toBe("node-a");

    // B got the stored events in the stored order, each once, from its first one on.
    const stored = await query<{ event_id: string; type: string }>("SELECT event_id, type FROM events WHERE session_id = $1 ORDER BY seq", [sessionId]);
    const storedIds = stored.map((row) => row.event_id);
    const seenIds = eventsOnB.map((event) => event.id);
    expect(new Set(seenIds).size).toBe(seenIds.length);
    const persistedSeen = seenIds.filter((id) => storedIds.includes(id));
    const firstIndex = storedIds.indexOf(persistedSeen[0]!);
    expect(persistedSeen).toEqual(storedIds.slice(firstIndex));
    const types = eventsOnB.map((event) => event.type);
    expect(types).toContain("tool.execution_complete");
    expect(types.indexOf("user.message")).toBeLessThan(types.lastIndexOf("assistant.message"));
    expect(types.at(-1)).toBe("session.idle");
    // The stored history reads the same through either node.
    expect(await sessionOnB.getMessages()).toEqual(await sessionOnA.getMessages());
    // Nothing missing or reordered in between: every event's parentId is the event B saw before it.
    for (let index = 1; index < eventsOnB.length; index++) expect(eventsOnB[index]!.parentId).toBe(eventsOnB[index - 1]!.id);
  });

  it("aborts from B a turn running on A", async () => {
    const [nodeA, nodeB] = await cluster(["cluster-abort"], ["node-a", "node-b"]);
    const sessionOnA = await connectTo(nodeA!).createSession({ onPermissionRequest: approveAll });
    const sessionOnB = await connectTo(nodeB!).resumeSession(sessionOnA.sessionId, { onPermissionRequest: approveAll });
    const eventsOnB: SessionEvent[] = [];
    sessionOnB.on((event) => eventsOnB.push(event));
    await sessionOnB.send({ prompt: "wait forever" });
    await waitFor(() => world!.model.requests.length > 0, "the model call of the turn");
    await sessionOnB.abort();
    await waitFor(() => eventsOnB.some((event) => event.type === "session.idle"), "session.idle on B after the abort");
    expect(eventsOnB.map((event) => event.type)).toContain("abort");
    expect(await leaseHolder(sessionOnA.sessionId)).toBe("node-a");
  });

  it("a session created on B is B's; a node stopped cleanly releases its leases at once", async () => {
    const [nodeA, nodeB] = await cluster(["cluster-abort"], ["node-a", "node-b"]);
    const session = await connectTo(nodeB!).createSession({ onPermissionRequest: approveAll });
    expect(await leaseHolder(session.sessionId)).toBe("node-b");
    await nodeB!.stop("SIGTERM");
    expect(await leaseHolder(session.sessionId)).toBeUndefined();
    const [alive] = await query<{ count: string }>("SELECT count(*) FROM cluster_nodes WHERE node_id = 'node-b'");
    expect(Number(alive?.count)).toBe(0);
    expect(nodeA).toBeDefined();
  });

  it("health: GET /healthz on --health-port and the cluster.health method report the node, the store and the sessions it owns", async () => {
    const healthPort = await freePort();
    const [nodeA, nodeB] = await cluster(["cluster-abort"], ["node-a", "node-b"], 3, { "node-a": ["--health-port", String(healthPort)] });
    const probe = async () => {
      const response = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    expect(await probe()).toMatchObject({ status: 200, body: { ok: true, nodeId: "node-a", store: { reachable: true }, sessionsOwned: 0 } });
    await connectTo(nodeA!).createSession({ onPermissionRequest: approveAll });
    expect((await probe()).body.sessionsOwned).toBe(1);
    const raw = await nodeB!.connect();
    const answer = await raw.request("cluster.health", {});
    raw.close();
    expect(answer.result).toMatchObject({ ok: true, nodeId: "node-b", store: { reachable: true }, sessionsOwned: 0 });
  });

  it("failover: A dies with a permission request pending on B's client; B takes the session over, the turn continues, the permission is asked again", { timeout: 60_000 }, async () => {
    const [nodeA, nodeB] = await cluster(["cluster-permission-failover"], ["node-a", "node-b"]);
    const sessionOnA = await connectTo(nodeA!).createSession({ onPermissionRequest: approveAll });
    const asked: Array<{ commandText?: string; fullCommandText?: string }> = [];
    let releaseFirst: () => void = () => undefined;
    const sessionOnB = await connectTo(nodeB!).resumeSession(sessionOnA.sessionId, {
      onPermissionRequest: async (request) => {
        asked.push(request as { fullCommandText?: string });
        // The first request is still unanswered when its node dies.
        if (asked.length === 1) await new Promise<void>((resolve) => (releaseFirst = resolve));
        return { kind: "approved" };
      },
    });
    const eventsOnB: SessionEvent[] = [];
    sessionOnB.on((event) => eventsOnB.push(event));
    await sessionOnB.send({ prompt: "run the guarded command" });
    await waitFor(() => asked.length === 1, "the permission request on B's client", 15_000);
    const killedAt = Date.now();
    await nodeA!.stop("SIGKILL");
    await waitFor(() => eventsOnB.some((event) => event.type === "assistant.message" && (event.data as { content?: string }).content === "The guarded command ran after the failover."), "the turn finished on B", 30_000);
    releaseFirst();
    const takeoverMs = Date.now() - killedAt;
    expect(asked).toHaveLength(2);
    expect(JSON.stringify(asked[1])).toContain("echo guarded-ran");
    // Tandem's own event: the official SDK 0.2.0's event union does not name it.
    const interrupted = eventsOnB.find((event) => (event.type as string) === "session.turn_interrupted");
    expect(interrupted?.data).toMatchObject({ reason: "node_lost", previousNodeId: "node-a", nodeId: "node-b", interruptedToolCallIds: ["call_guarded_1"], continued: true });
    expect(await leaseHolder(sessionOnA.sessionId)).toBe("node-b");
    // What B's client saw: the interrupted call completed (failed, "interrupted") before the turn went on.
    const interruptedResult = eventsOnB.find((event) => event.type === "tool.execution_complete" && (event.data as { toolCallId: string }).toolCallId === "call_guarded_1");
    expect(interruptedResult?.data).toMatchObject({ success: false, error: { code: "interrupted" } });
    const stored = await query<{ seq: string }>("SELECT seq FROM events WHERE session_id = $1 ORDER BY seq", [sessionOnA.sessionId]);
    expect(stored.map((row) => Number(row.seq))).toEqual(stored.map((_, index) => index + 1));
    console.log(`[failover] permission asked again on node-b ${takeoverMs} ms after node-a was killed (lease TTL 1500 ms)`);
  });

  it("protocol v3: A's loop calls a custom tool only B's client registered (broadcast request on B, its answer forwarded to A)", async () => {
    const [nodeA, nodeB] = await cluster(["cluster-remote"], ["node-a", "node-b"], 3);
    const sessionOnA = await connectTo(nodeA!).createSession({ onPermissionRequest: approveAll });
    const toolCallsOnB: unknown[] = [];
    const sessionOnB = await connectTo(nodeB!).resumeSession(sessionOnA.sessionId, {
      onPermissionRequest: approveAll,
      tools: [toolOnlyOnB(toolCallsOnB)],
    });
    const reply = await sessionOnB.sendAndWait({ prompt: "drive from b" }, 30_000);
    expect(reply?.data.content).toBe("Done on both nodes.");
    expect(toolCallsOnB).toEqual([{ what: "b" }]);
    expect(await leaseHolder(sessionOnA.sessionId)).toBe("node-a");
  });

  it("two clients of node B on one session of node A: each sees every event once", async () => {
    const [nodeA, nodeB] = await cluster(["cluster-remote"], ["node-a", "node-b"], 3);
    const sessionOnA = await connectTo(nodeA!).createSession({ onPermissionRequest: approveAll });
    const tool = {
      name: "tool_b",
      description: "A tool B's clients have",
      parameters: { type: "object", properties: { what: { type: "string" } } },
      handler: () => "answer from B",
    };
    const first = await connectTo(nodeB!).resumeSession(sessionOnA.sessionId, { onPermissionRequest: approveAll, tools: [tool] });
    const second = await connectTo(nodeB!).resumeSession(sessionOnA.sessionId, { onPermissionRequest: approveAll, tools: [tool] });
    const seenByFirst: string[] = [];
    const seenBySecond: string[] = [];
    first.on((event) => seenByFirst.push(event.id));
    second.on((event) => seenBySecond.push(event.id));
    const reply = await first.sendAndWait({ prompt: "drive from b" }, 30_000);
    expect(reply?.data.content).toBe("Done on both nodes.");
    // Both streams settle on the same events (the last ones may still be on their way to either).
    await waitFor(() => seenBySecond.at(-1) === seenByFirst.at(-1), "both clients' events", 5_000).catch(() => undefined);
    expect(new Set(seenBySecond).size).toBe(seenBySecond.length);
    // The second may also have seen its own resume's events, still on their way when the handlers were set.
    expect(seenBySecond.slice(seenBySecond.indexOf(seenByFirst[0]!))).toEqual(seenByFirst);
  });
});

