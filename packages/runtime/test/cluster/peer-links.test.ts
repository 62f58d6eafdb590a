import { randomBytes, randomUUID } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCodes } from "../../src/errors.js";
import { NodeBus } from "../../src/cluster/node-bus.js";
import { listenConnections } from "./listen-connections.js";
import { NodeRegistry } from "../../src/cluster/node-registry.js";
import { encodeFrame } from "../../src/cluster/peer-frames.js";
import { handshake } from "../../src/cluster/peer-handshake.js";
import { PeerLinks, type PeerLinksOptions } from "../../src/cluster/peer-links.js";
import { ensureClusterSchema } from "../../src/store/postgres/cluster-schema.js";
import { channelOf } from "../../src/cluster/node-bus.js";
import { startPostgres, type PostgresServer } from "../../../../test/helpers/postgres.js";

const started = await startPostgres();
if (started.skipped) console.warn(`peer link tests skipped: ${started.skipped}`);

async function waitUntil(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A node of the test: its bus with peer links, its registry (which stores its peer entry), what it logged and handled. */
interface PeerNode {
  nodeId: string;
  inc: string;
  secret: Buffer;
  bus: NodeBus;
  peers: PeerLinks;
  registry: NodeRegistry;
  pool: pg.Pool;
  warnings: string[];
  handled: Array<{ from: string; method: string; params: unknown }>;
  stop(): Promise<void>;
}

/** Resolves once the other side closed the socket (what it sent is read and dropped). */
function closedOf(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) resolve();
    socket.once("close", () => resolve());
    socket.resume();
  });
}

describe.skipIf(!started.server)("peer links between cluster nodes (real TCP, real PostgreSQL)", () => {
  let server: PostgresServer;
  let url: string;
  let admin: pg.Pool;
  const nodes: PeerNode[] = [];
  const servers: Server[] = [];

  async function startNode(nodeId: string, options: { secretInDatabase?: Buffer; peer?: Partial<PeerLinksOptions> } = {}): Promise<PeerNode> {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const inc = randomUUID();
    const secret = randomBytes(32);
    const warnings: string[] = [];
    const handled: PeerNode["handled"] = [];
    const listeners: pg.Client[] = [];
    const holder: { peers?: PeerLinks } = {};
    const registry = new NodeRegistry({ db: pool, nodeId, ttlMs: 5000, peer: { inc, secret: options.secretInDatabase ?? secret, address: () => holder.peers?.address } });
    const peers = new PeerLinks({
      nodeId,
      inc,
      secret,
      listen: { host: "127.0.0.1", port: 0 },
      lookup: (id) => registry.peerOf(id),
      warn: (message, error) => warnings.push(error instanceof Error ? `${message}: ${error.message}` : message),
      ...options.peer,
    });
    holder.peers = peers;
    await peers.listen();
    await registry.start();
    const bus = new NodeBus({
      db: pool,
      nodeId,
      pollMs: 250,
      isAlive: (target) => registry.isAlive(target),
      listen: listenConnections(url, listeners),
      peers,
    });
    bus.handle((method, params, from) => {
      handled.push({ from, method, params });
      return { echoed: params };
    });
    await bus.start();
    let stopped = false;
    const node: PeerNode = {
      nodeId, inc, secret, bus, peers, registry, pool, warnings, handled,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await bus.stop();
        await registry.stop().catch(() => undefined);
        for (const listener of listeners) await listener.end().catch(() => undefined);
        await pool.end();
      },
    };
    nodes.push(node);
    return node;
  }

  /** A raw TCP connection to a node's peer listener. */
  async function rawConnection(node: PeerNode): Promise<Socket> {
    const [host, port] = node.peers.address!.split(":");
    const socket = connect({ host: host!, port: Number(port) });
    socket.on("error", () => undefined);
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    return socket;
  }

  beforeAll(async () => {
    server = started.server!;
    url = await server.createDatabase("peer_links");
    admin = new pg.Pool({ connectionString: url, max: 2 });
    await ensureClusterSchema(admin);
  });
  afterAll(async () => {
    for (const node of nodes) await node.stop().catch(() => undefined);
    for (const listening of servers) listening.close();
    await admin?.end();
    await server?.stop();
  });

  it("carries requests, answers and one-way messages over the link: no mailbox row either way", async () => {
    const a = await startNode("link-a");
    const b = await startNode("link-b");
    expect(await a.bus.request("link-b", "echo", { n: 1 })).toEqual({ echoed: { n: 1 } });
    const big = "x".repeat(3_000_000);
    expect(((await a.bus.request<{ echoed: { big: string } }>("link-b", "echo", { big })).echoed.big).length).toBe(big.length);
    await a.bus.notify("link-b", "note", { n: 2 });
    await waitUntil(() => b.handled.length === 3, "the note");
    expect(b.handled.map((entry) => entry.method)).toEqual(["echo", "echo", "note"]);
    expect(a.bus.counts).toMatchObject({ sent: 0, peerSent: 3 });
    expect(b.bus.counts).toMatchObject({ sent: 0, received: 0, peerSent: 2, peerReceived: 3 });
    // A request to a node that is not alive still fails before anything is sent.
    expect(await a.bus.request("nobody-here", "echo", {}).catch((error: unknown) => error)).toMatchObject({ code: ErrorCodes.NodeUnreachable, data: { reason: "gone" } });
  });

  it("refuses a node whose proof does not match the secret the database holds for it; its messages go through the database", async () => {
    const b = await startNode("auth-b");
    const impostor = await startNode("auth-x", { secretInDatabase: randomBytes(32) });
    await impostor.bus.notify("auth-b", "note", { from: "impostor" });
    await waitUntil(() => b.handled.length === 1, "the note through the database");
    expect(b.bus.counts).toMatchObject({ received: 1, peerReceived: 0 });
    expect(impostor.bus.counts).toMatchObject({ sent: 1, peerSent: 0 });
    expect(b.warnings.join("\n")).toMatch(/refused a peer link from .*: node auth-x failed the challenge: its proof does not match the secret the database holds for it/);
  });

  it("refuses an unknown node and a dead one (no recent heartbeat), whatever secret they use", async () => {
    const b = await startNode("auth-b2");
    // A node nobody registered: it answers b's challenge with a secret of its own.
    const ghost = await rawConnection(b);
    const refused = handshake(ghost, {
      nodeId: "ghost",
      inc: randomUUID(),
      secret: randomBytes(32),
      expectedPeer: "auth-b2",
      credentialsOf: async () => ({ secret: b.secret, inc: b.inc }),
    }).catch((error: unknown) => error);
    expect(await refused).toMatchObject({ name: "PeerRefused", message: "the connection closed during the handshake" });
    await waitUntil(() => b.warnings.some((warning) => warning.includes("node ghost is not a live cluster node")), "b's refusal of the ghost");
    // A node whose row is there, with its real secret, but whose heartbeat is an hour old.
    const deadSecret = randomBytes(32);
    const deadInc = randomUUID();
    await admin.query(
      "INSERT INTO cluster_nodes (node_id, heartbeat_at, incarnation, peer_secret) VALUES ('dead-node', clock_timestamp() - interval '1 hour', $1, $2)",
      [deadInc, deadSecret.toString("hex")],
    );
    const dead = await rawConnection(b);
    const deadRefused = await handshake(dead, { nodeId: "dead-node", inc: deadInc, secret: deadSecret, credentialsOf: async () => ({ secret: b.secret, inc: b.inc }) }).catch((error: unknown) => error);
    expect(deadRefused).toMatchObject({ name: "PeerRefused" });
    await waitUntil(() => b.warnings.some((warning) => warning.includes("node dead-node is not a live cluster node")), "b's refusal of the dead node");
    expect(b.handled).toEqual([]);
  });

  it("closes a connection whose handshake is too slow, or whose frames are too large or come before the proof", async () => {
    const b = await startNode("slow-b", { peer: { handshakeTimeoutMs: 400 } });
    const silent = await rawConnection(b);
    await closedOf(silent);
    expect(b.warnings.join("\n")).toMatch(/refused a peer link from 127\.0\.0\.1:\d+: the handshake did not complete within 400 ms/);

    const huge = await rawConnection(b);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(100 * 1024 * 1024, 0);
    huge.write(header);
    await closedOf(huge);
    expect(b.warnings.join("\n")).toMatch(/unreadable handshake: a frame of 104857600 bytes exceeds the limit of 65536 bytes/);

    const early = await rawConnection(b);
    early.write(encodeFrame({ t: "m", route: { inc: "x", to: b.inc, seq: 1 }, message: { kind: "notify", method: "note", params: {} } }));
    await closedOf(early);
    expect(b.warnings.join("\n")).toMatch(/the first frame was not a hello/);
    expect(b.handled).toEqual([]);
  });

  it("at most 64 connections may be in their handshake at once; more are closed at once, and a node links again once they are gone", async () => {
    const b = await startNode("crowd-b", { peer: { handshakeTimeoutMs: 1500 } });
    const crowd = await Promise.all(Array.from({ length: 70 }, () => rawConnection(b)));
    await waitUntil(() => b.warnings.some((warning) => warning.endsWith("64 handshakes are already under way")), "the refusal of the crowd");
    await Promise.all(crowd.map((socket) => closedOf(socket)));
    const a = await startNode("crowd-a");
    await a.bus.notify("crowd-b", "note", { n: 1 });
    await waitUntil(() => b.handled.length === 1, "the note");
    expect(b.bus.counts).toMatchObject({ received: 0, peerReceived: 1 });
  });

  it("a frame over the receiver's limit closes the link; the message goes through the database instead, once", async () => {
    const a = await startNode("frame-a");
    const b = await startNode("frame-b", { peer: { maxFrameBytes: 4096 } });
    await a.bus.notify("frame-b", "small", { n: 1 });
    await waitUntil(() => b.handled.length === 1, "the small note");
    await a.bus.notify("frame-b", "large", { text: "y".repeat(10_000) });
    await a.bus.notify("frame-b", "after", { n: 3 });
    await waitUntil(() => b.handled.length === 3, "the large note and the one after it");
    expect(b.handled.map((entry) => entry.method)).toEqual(["small", "large", "after"]);
    expect(b.warnings.join("\n")).toMatch(/the peer link from node frame-a closed: a frame of \d+ bytes exceeds the limit of 4096 bytes/);
    expect(b.bus.counts.received).toBeGreaterThan(0);
  });

  it("hands messages on in order and once each when the link is cut mid-stream and the rest goes through the database", async () => {
    const a = await startNode("cut-a");
    const b = await startNode("cut-b");
    const count = 400;
    b.bus.handle((method, params, from) => {
      b.handled.push({ from, method, params });
      // Cut at the 100th: what was in flight after it is posted again through the database.
      if ((params as { n: number }).n === 100) b.peers.closeLink("cut-a", "cut by the test");
      return null;
    });
    for (let n = 1; n <= count / 2; n++) await a.bus.notify("cut-b", "step", { n });
    await waitUntil(() => b.handled.length >= count / 2, "the first half");
    // The second half: over a new link.
    for (let n = count / 2 + 1; n <= count; n++) await a.bus.notify("cut-b", "step", { n });
    await waitUntil(() => b.handled.length >= count, `${count} steps`);
    // Anything late (a duplicate) would land within a mailbox poll.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(b.handled.map((entry) => (entry.params as { n: number }).n)).toEqual(Array.from({ length: count }, (_, index) => index + 1));
    expect(b.bus.counts.received).toBeGreaterThan(0);
    expect(b.bus.counts.peerReceived).toBeGreaterThan(100);
    expect(a.warnings.join("\n")).toMatch(/the peer link to node cut-b closed: .*; \d+ unacknowledged message\(s\) go through the database/);

    // The same message posted to the mailbox twice (a repost of one that had arrived) is handled once.
    const { rows } = await admin.query<{ n: string }>("SELECT count(*) AS n FROM node_messages WHERE target_node = 'cut-b'");
    expect(Number(rows[0]!.n)).toBe(0);
    const duplicate = { kind: "notify", method: "step", params: { n: 7 }, route: { inc: a.inc, to: b.inc, seq: 7 } };
    const receivedBefore = b.bus.counts.received;
    await admin.query("INSERT INTO node_messages (target_node, source_node, body) VALUES ('cut-b', 'cut-a', $1)", [JSON.stringify(duplicate)]);
    await admin.query("SELECT pg_notify($1, 'x')", [channelOf("cut-b")]);
    await waitUntil(() => b.bus.counts.received === receivedBefore + 1, "the duplicate read from the mailbox");
    expect(b.handled).toHaveLength(count);
  });

  it("a message whose database post failed leaves no gap: the receiver handles the next one at once", async () => {
    // A's frames are small, so its large message goes through the database, where jsonb refuses a NUL.
    const a = await startNode("skip-a", { peer: { maxFrameBytes: 512 } });
    const b = await startNode("skip-b", { peer: { gapMs: 60_000 } });
    await a.bus.notify("skip-b", "step", { n: 1 });
    await waitUntil(() => b.handled.length === 1, "the first step");
    const failed = await a.bus.notify("skip-b", "step", { n: 2, text: `\u0000${"z".repeat(1000)}` }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    await a.bus.notify("skip-b", "step", { n: 3 });
    await waitUntil(() => b.handled.length === 2, "the step after the failed one", 5000);
    expect(b.handled.map((entry) => (entry.params as { n: number }).n)).toEqual([1, 3]);
  });

  it("a restarted sender (same node id, new incarnation) starts a fresh sequence; late messages of its previous process are dropped", async () => {
    const b = await startNode("restart-b");
    const first = await startNode("restart-a");
    for (let n = 1; n <= 3; n++) await first.bus.notify("restart-b", "step", { n });
    await waitUntil(() => b.handled.length === 3, "the first process's steps");
    await first.stop();
    const second = await startNode("restart-a");
    expect(second.inc).not.toBe(first.inc);
    for (let n = 4; n <= 6; n++) await second.bus.notify("restart-b", "step", { n });
    await waitUntil(() => b.handled.length === 6, "the second process's steps");
    // A late message of the first process, in the mailbox after the second one spoke: dropped.
    const late = { kind: "notify", method: "step", params: { n: 99 }, route: { inc: first.inc, to: b.inc, seq: 4 } };
    const receivedBefore = b.bus.counts.received;
    await admin.query("INSERT INTO node_messages (target_node, source_node, body) VALUES ('restart-b', 'restart-a', $1)", [JSON.stringify(late)]);
    await admin.query("SELECT pg_notify($1, 'x')", [channelOf("restart-b")]);
    await waitUntil(() => b.bus.counts.received === receivedBefore + 1, "the late message read from the mailbox");
    await second.bus.notify("restart-b", "step", { n: 7 });
    await waitUntil(() => b.handled.length === 7, "the second process's next step");
    expect(b.handled.map((entry) => (entry.params as { n: number }).n)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("a peer that stops reading holds at most the link's window; the rest goes through the database", async () => {
    const a = await startNode("window-a", { peer: { window: { messages: 10, bytes: 1024 * 1024 } } });
    // A node that proves who it is, then never reads again (as a SIGSTOPped process would).
    const secret = randomBytes(32);
    const inc = randomUUID();
    const stalled = createServer((socket) => {
      socket.on("error", () => undefined);
      void handshake(socket, { nodeId: "window-stalled", inc, secret, credentialsOf: (id) => a.registry.peerOf(id) }).then(() => socket.pause(), () => socket.destroy());
    });
    servers.push(stalled);
    await new Promise<void>((resolve) => stalled.listen(0, "127.0.0.1", resolve));
    const port = (stalled.address() as { port: number }).port;
    await admin.query(
      "INSERT INTO cluster_nodes (node_id, heartbeat_at, peer_address, incarnation, peer_secret) VALUES ('window-stalled', clock_timestamp() + interval '1 hour', $1, $2, $3)",
      [`127.0.0.1:${port}`, inc, secret.toString("hex")],
    );
    for (let n = 1; n <= 50; n++) await a.bus.notify("window-stalled", "step", { n });
    expect(a.peers.pendingTo("window-stalled")).toBe(10);
    expect(a.bus.counts).toMatchObject({ peerSent: 10, sent: 40 });
    const { rows } = await admin.query<{ n: string }>("SELECT count(*) AS n FROM node_messages WHERE target_node = 'window-stalled'");
    expect(Number(rows[0]!.n)).toBe(40);
  });
});
