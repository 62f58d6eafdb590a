/**
 * Owner hints on a cluster: each node advertises where clients reach it (`--advertise-url`); a
 * `session.resume` that a node forwards to the session's owner is answered with
 * `owner: { nodeId, url }`. `@tandem/sdk` follows it: it connects to the owner, resumes there and
 * leaves the forwarded attachment, so its turns cross no node bus (the node it first connected to
 * sends no bus message). Official SDK clients ignore the field and keep working through
 * forwarding. One node, or a resume on the owner itself, gets no hint. Real runtime processes over
 * TCP, a real PostgreSQL, the official SDKs 0.2.0 and 1.0.x.
 */
import { approveAll, CopilotClient } from "@github/copilot-sdk";
import { approveAll as tandemApproveAll, CopilotClient as TandemClient, type SessionEvent as TandemEvent } from "@tandem/sdk";
import { CopilotClient as V1Client, RuntimeConnection, type SessionEvent as V1Event } from "copilot-sdk-v1";
import { describe, expect, it } from "vitest";
import { clusterBed, freePort } from "../helpers/cluster-bed.js";
import { startPostgres } from "../helpers/postgres.js";
import { queryDatabase } from "../helpers/stores.js";
import type { TcpRuntime } from "../helpers/tcp.js";

const started = await startPostgres();
if (started.skipped) console.warn(`cluster routing tests skipped: ${started.skipped}`);

const bed = clusterBed(started, "routing");
const { stops } = bed;

/** A node started on a port it advertises, with its health endpoint. */
interface RoutedNode {
  runtime: TcpRuntime;
  nodeId: string;
  advertised: string;
  healthPort: number;
}

/** A fresh database and model server, and one node per id, each advertising its own address. */
async function cluster(nodeIds: string[], advertise: Record<string, string> = {}): Promise<RoutedNode[]> {
  await bed.open(["cluster-route", "cluster-route-failover"], { TANDEM_LEASE_TTL_MS: "1500" });
  const started_: RoutedNode[] = [];
  for (const nodeId of nodeIds) {
    const port = await freePort();
    const healthPort = await freePort();
    const advertised = advertise[nodeId] ?? `127.0.0.1:${port}`;
    const args = ["--port", String(port), "--node-id", nodeId, "--advertise-url", advertised, "--health-port", String(healthPort), "--log-level", "warning"];
    const runtime = await bed.startNode(args);
    started_.push({ runtime, nodeId, advertised, healthPort });
  }
  return started_;
}

/** Messages a node sent other nodes since it started, through the database or over peer links (its health report). */
async function busSent(node: RoutedNode): Promise<number> {
  const report = (await (await fetch(`http://127.0.0.1:${node.healthPort}/healthz`)).json()) as { busMessages?: { sent: number; peerSent?: number } };
  if (!report.busMessages) throw new Error(`node ${node.nodeId} reports no bus message count`);
  return report.busMessages.sent + (report.busMessages.peerSent ?? 0);
}

/** The answer of a raw `session.resume` sent to `node` (the client stays attached until `stops` run). */
async function rawResume(node: TcpRuntime, sessionId: string): Promise<Record<string, unknown>> {
  const raw = await node.connect();
  stops.push(async () => raw.close());
  const answer = await raw.request("session.resume", { sessionId, requestPermission: false });
  if (answer.error) throw new Error(`session.resume failed: ${JSON.stringify(answer.error)}`);
  return answer.result as Record<string, unknown>;
}

function officialOn(node: RoutedNode): CopilotClient {
  const client = new CopilotClient({ cliUrl: node.runtime.cliUrl, logLevel: "error" });
  stops.push(() => client.forceStop());
  return client;
}

async function waitUntil(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function leaseHolder(sessionId: string): Promise<string | undefined> {
  const [row] = await queryDatabase<{ node_id: string }>(bed.url, "SELECT node_id FROM session_leases WHERE session_id = $1 AND expires_at > clock_timestamp()", [sessionId]);
  return row?.node_id;
}

/**
 * Every stored event a client saw, each once, in the stored order, none missing from the first it
 * saw on; with `chain`, also each event's parent is the one it saw before (no takeover in between).
 */
async function expectInStoredOrder(sessionId: string, seen: ReadonlyArray<{ id: string; parentId?: string | null }>, chain = true): Promise<void> {
  const stored = (await queryDatabase<{ event_id: string }>(bed.url, "SELECT event_id FROM events WHERE session_id = $1 ORDER BY seq", [sessionId])).map((row) => row.event_id);
  const seenIds = seen.map((event) => event.id);
  expect(new Set(seenIds).size).toBe(seenIds.length);
  const persistedSeen = seenIds.filter((id) => stored.includes(id));
  expect(persistedSeen.length).toBeGreaterThan(0);
  expect(persistedSeen).toEqual(stored.slice(stored.indexOf(persistedSeen[0]!)));
  if (!chain) return;
  for (let index = 1; index < seen.length; index++) expect(seen[index]!.parentId).toBe(seen[index - 1]!.id);
}

describe.skipIf(!started.server)("cluster: clients are told which node runs their session", () => {
  it("@tandem/sdk connected to B follows the hint to A: its turn runs there without B forwarding anything; events each once in stored order, the permission answered", { timeout: 60_000 }, async () => {
    const [nodeA, nodeB] = await cluster(["node-a", "node-b"]);
    const creator = officialOn(nodeA!);
    const created = await creator.createSession({ onPermissionRequest: approveAll });
    const sessionId = created.sessionId;
    expect(await leaseHolder(sessionId)).toBe("node-a");

    const client = new TandemClient({ cliUrl: nodeB!.runtime.cliUrl, logLevel: "error" });
    stops.push(() => client.forceStop());
    const asked: string[] = [];
    const session = await client.resumeSession(sessionId, {
      onPermissionRequest: (request) => {
        asked.push(request.kind);
        return { kind: "approved" };
      },
    });
    const events: TandemEvent[] = [];
    session.on((event) => events.push(event));
    // Only our client stays attached: the session keeps running on A for it.
    await created.disconnect();

    const sentByB = await busSent(nodeB!);
    const reply = await session.sendAndWait({ prompt: "route run one" }, 30_000);
    expect(reply?.data.content).toBe("Done where the session runs.");
    expect(asked).toEqual(["shell"]);
    // Nothing of the turn crossed B: the client talks to A directly.
    expect(await busSent(nodeB!)).toBe(sentByB);
    expect(await leaseHolder(sessionId)).toBe("node-a");
    const types = events.map((event) => event.type);
    expect(types).toContain("tool.execution_complete");
    expect(types.at(-1)).toBe("session.idle");
    await expectInStoredOrder(sessionId, events);
  });

  it("official clients on B (1.0.x, 0.2.0) ignore the hint and keep working through forwarding; the hint names A, only where B forwards", { timeout: 60_000 }, async () => {
    const [nodeA, nodeB] = await cluster(["node-a", "node-b"]);
    const created = await officialOn(nodeA!).createSession({ onPermissionRequest: approveAll });
    const sessionId = created.sessionId;

    // What B answers a resume of A's session: the owner, at its advertised address. A itself names none.
    expect((await rawResume(nodeB!.runtime, sessionId)).owner).toEqual({ nodeId: "node-a", url: nodeA!.advertised });
    expect(await rawResume(nodeA!.runtime, sessionId)).not.toHaveProperty("owner");

    const v1 = new V1Client({ connection: RuntimeConnection.forUri(nodeB!.runtime.cliUrl), logLevel: "error" });
    stops.push(() => v1.forceStop());
    const asked: string[] = [];
    const session = await v1.resumeSession(sessionId, {
      onPermissionRequest: (request) => {
        asked.push(request.kind);
        return { kind: "approve-once" };
      },
    });
    const events: V1Event[] = [];
    session.on((event) => events.push(event));
    const sentByB = await busSent(nodeB!);
    await session.sendAndWait({ prompt: "route run two" }, 30_000);
    const answers = events.flatMap((event) => (event.type === "assistant.message" ? [event.data.content] : []));
    expect(answers.at(-1)).toBe("Done where the session runs.");
    expect(asked).toEqual(["shell"]);
    expect(events.find((event) => event.type === "tool.execution_complete")?.data).toMatchObject({ success: true });
    // Forwarded: B carried the turn's requests to A.
    expect(await busSent(nodeB!)).toBeGreaterThan(sentByB);
    expect(await leaseHolder(sessionId)).toBe("node-a");
    expect(events.map((event) => event.type).at(-1)).toBe("session.idle");
    await expectInStoredOrder(sessionId, events);
    // The 0.2.0 SDK takes the same answer with the hint in it and reads the session through B.
    const resumedBy020 = await officialOn(nodeB!).resumeSession(sessionId, { onPermissionRequest: approveAll });
    const history = await resumedBy020.getMessages();
    expect(history.filter((event) => event.type === "assistant.message").at(-1)?.data).toMatchObject({ content: "Done where the session runs." });
  });

  it("a turn on the owner with two other nodes costs one bus message per lifecycle notification, not one per node; clients everywhere get each once", { timeout: 60_000 }, async () => {
    const [nodeA, nodeB, nodeC] = await cluster(["node-a", "node-b", "node-c"]);
    const lifecycleOn = async (node: RoutedNode) => {
      const client = officialOn(node);
      await client.start();
      const seen: string[] = [];
      client.on((event) => seen.push(`${event.type} ${event.sessionId}`));
      return seen;
    };
    const seenOnB = await lifecycleOn(nodeB!);
    const seenOnC = await lifecycleOn(nodeC!);
    const onA = officialOn(nodeA!);
    const session = await onA.createSession({ onPermissionRequest: approveAll });
    await waitUntil(() => seenOnB.length > 0 && seenOnC.length > 0, "the creation's lifecycle notification on B and C");
    const sentByA = await busSent(nodeA!);
    const before = seenOnC.length;
    await session.sendAndWait({ prompt: "route run three" }, 30_000);
    // What the turn shared: every other node got it, and A stored one message per notification.
    await waitUntil(async () => (await busSent(nodeA!)) - sentByA === seenOnC.length - before && seenOnB.length === seenOnC.length, "the turn's notifications on B and C");
    const shared = seenOnC.length - before;
    expect(shared).toBeGreaterThan(0);
    expect((await busSent(nodeA!)) - sentByA).toBe(shared);
    expect(seenOnB).toEqual(seenOnC);
    expect(new Set(seenOnC.filter((entry) => entry.startsWith("session.created"))).size).toBe(seenOnC.filter((entry) => entry.startsWith("session.created")).length);
  });

  it("@tandem/sdk stays forwarded when the owner's advertised address does not answer; its session works through B", { timeout: 60_000 }, async () => {
    const nowhere = `127.0.0.1:${await freePort()}`;
    const [nodeA, nodeB] = await cluster(["node-a", "node-b"], { "node-a": nowhere });
    const created = await officialOn(nodeA!).createSession({ onPermissionRequest: approveAll });
    const client = new TandemClient({ cliUrl: nodeB!.runtime.cliUrl, logLevel: "error" });
    stops.push(() => client.forceStop());
    const session = await client.resumeSession(created.sessionId, { onPermissionRequest: tandemApproveAll });
    const events: TandemEvent[] = [];
    session.on((event) => events.push(event));
    await created.disconnect();
    const sentByB = await busSent(nodeB!);
    const reply = await session.sendAndWait({ prompt: "route run four" }, 30_000);
    expect(reply?.data.content).toBe("Done where the session runs.");
    // Forwarded through B, since A could not be reached where it said.
    expect(await busSent(nodeB!)).toBeGreaterThan(sentByB);
    expect(await leaseHolder(created.sessionId)).toBe("node-a");
    await expectInStoredOrder(created.sessionId, events);
  });

  it("@tandem/sdk followed the hint to A, then A dies: the session goes back through B, which takes it over, and the next turn runs there; no event twice, none missing", { timeout: 90_000 }, async () => {
    const [nodeA, nodeB] = await cluster(["node-a", "node-b"]);
    const created = await officialOn(nodeA!).createSession({ onPermissionRequest: approveAll });
    const sessionId = created.sessionId;
    const client = new TandemClient({ cliUrls: [nodeB!.runtime.cliUrl], logLevel: "error" });
    stops.push(() => client.forceStop());
    const session = await client.resumeSession(sessionId, { onPermissionRequest: tandemApproveAll });
    const events: TandemEvent[] = [];
    session.on((event) => events.push(event));
    await created.disconnect();
    const sentByB = await busSent(nodeB!);
    expect((await session.sendAndWait({ prompt: "route failover one" }, 30_000))?.data.content).toBe("Done on the first owner.");
    // The first turn ran on A with the client connected there.
    expect(await busSent(nodeB!)).toBe(sentByB);

    await nodeA!.runtime.stop("SIGKILL");
    const seenBeforeKill = events.length;
    // B takes the session over once A's lease expired, for our client resuming it there.
    await waitUntil(async () => (await leaseHolder(sessionId)) === "node-b", "node B holding the session", 30_000);
    await waitUntil(() => events.slice(seenBeforeKill).some((event) => event.type === "session.resume"), "the session resumed through B", 30_000);
    expect((await session.sendAndWait({ prompt: "second turn" }, 30_000))?.data.content).toBe("Done on the next owner.");
    expect(await leaseHolder(sessionId)).toBe("node-b");
    await expectInStoredOrder(sessionId, events, false);
  });

  it("one node: a resume is answered without a hint", async () => {
    const [only] = await cluster(["node-solo"]);
    const created = await officialOn(only!).createSession({ onPermissionRequest: approveAll });
    const answer = await rawResume(only!.runtime, created.sessionId);
    expect(answer.sessionId).toBe(created.sessionId);
    expect(answer).not.toHaveProperty("owner");
    expect((await created.sendAndWait({ prompt: "route run five" }, 30_000))?.data.content).toBeTruthy();
  });
});
