/**
 * Peer links on a cluster: the nodes send each other the requests and events of a forwarded
 * session over direct, authenticated TCP links instead of the PostgreSQL mailbox. Three nodes; the
 * session runs on A, its client (the official SDK) is connected to B; a turn with two
 * permission-gated bash calls. With links, the nodes store at most 3 database bus messages for the
 * turn (the lifecycle notifications, which stay broadcasts on the database) and the rest crosses
 * the links; with `--peer-listen off` the same turn is just as correct, all of it through the
 * database. Real runtime processes over TCP, a real PostgreSQL.
 */
import { approveAll, CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { describe, expect, it } from "vitest";
import { clusterBed, freePort } from "../helpers/cluster-bed.js";
import { startPostgres } from "../helpers/postgres.js";
import { queryDatabase } from "../helpers/stores.js";
import type { TcpRuntime } from "../helpers/tcp.js";

const started = await startPostgres();
if (started.skipped) console.warn(`cluster peer link tests skipped: ${started.skipped}`);

const bed = clusterBed(started, "peer");
const { stops } = bed;

interface PeerNode {
  runtime: TcpRuntime;
  nodeId: string;
  healthPort: number;
}

type BusCounts = { sent: number; received: number; peerSent: number; peerReceived: number };

/** A fresh database and model server, and three nodes started with `extraArgs`. */
async function cluster(extraArgs: string[]): Promise<PeerNode[]> {
  await bed.open(["cluster-peer"], { TANDEM_LEASE_TTL_MS: "3000" });
  const result: PeerNode[] = [];
  for (const nodeId of ["node-a", "node-b", "node-c"]) {
    const healthPort = await freePort();
    const args = ["--node-id", nodeId, "--health-port", String(healthPort), "--log-level", "warning", ...extraArgs];
    const runtime = await bed.startNode(args);
    result.push({ runtime, nodeId, healthPort });
  }
  return result;
}

/** The bus counts of every node, summed (their health reports). */
async function busCounts(cluster: readonly PeerNode[]): Promise<BusCounts> {
  const total: BusCounts = { sent: 0, received: 0, peerSent: 0, peerReceived: 0 };
  for (const node of cluster) {
    const report = (await (await fetch(`http://127.0.0.1:${node.healthPort}/healthz`)).json()) as { busMessages?: BusCounts };
    if (!report.busMessages) throw new Error(`node ${node.nodeId} reports no bus message count`);
    for (const key of Object.keys(total) as Array<keyof BusCounts>) total[key] += report.busMessages[key];
  }
  return total;
}

function officialOn(node: PeerNode): CopilotClient {
  const client = new CopilotClient({ cliUrl: node.runtime.cliUrl, logLevel: "error" });
  stops.push(() => client.forceStop());
  return client;
}

async function leaseHolder(sessionId: string): Promise<string | undefined> {
  const [row] = await queryDatabase<{ node_id: string }>(bed.url, "SELECT node_id FROM session_leases WHERE session_id = $1 AND expires_at > clock_timestamp()", [sessionId]);
  return row?.node_id;
}

/**
 * A session created on A and resumed by an official client on B (the creator leaves); one turn
 * with two permission-gated bash calls, checked event by event. Resolves with the bus counts the
 * turn added over the three nodes.
 */
async function forwardedTurn(cluster: readonly PeerNode[], prompt: string): Promise<BusCounts> {
  const [nodeA, nodeB] = cluster;
  const created = await officialOn(nodeA!).createSession({ onPermissionRequest: approveAll });
  const sessionId = created.sessionId;
  expect(await leaseHolder(sessionId)).toBe("node-a");
  const asked: string[] = [];
  const session = await officialOn(nodeB!).resumeSession(sessionId, {
    onPermissionRequest: (request) => {
      asked.push(`${request.kind} ${String((request as { fullCommandText?: unknown }).fullCommandText ?? "")}`);
      return { kind: "approved" };
    },
  });
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  await created.disconnect();

  const before = await busCounts(cluster);
  const reply = await session.sendAndWait({ prompt }, 60_000);
  const after = await busCounts(cluster);

  expect(reply?.data.content).toBe("Both ran where the session runs.");
  expect(asked).toEqual(["shell echo first-on-the-owner", "shell echo second-on-the-owner"]);
  const completed = events.filter((event) => event.type === "tool.execution_complete");
  expect(completed.map((event) => event.data.success)).toEqual([true, true]);
  expect(events.map((event) => event.type).at(-1)).toBe("session.idle");
  expect(await leaseHolder(sessionId)).toBe("node-a");
  // Every stored event of the turn reached the client once, in the stored order.
  const stored = (await queryDatabase<{ event_id: string }>(bed.url, "SELECT event_id FROM events WHERE session_id = $1 ORDER BY seq", [sessionId])).map((row) => row.event_id);
  const seen = events.map((event) => event.id).filter((id) => stored.includes(id));
  expect(new Set(seen).size).toBe(seen.length);
  expect(seen.length).toBeGreaterThan(0);
  expect(seen).toEqual(stored.slice(stored.indexOf(seen[0]!)));
  return {
    sent: after.sent - before.sent,
    received: after.received - before.received,
    peerSent: after.peerSent - before.peerSent,
    peerReceived: after.peerReceived - before.peerReceived,
  };
}

describe.skipIf(!started.server)("cluster: nodes talk over direct peer links", () => {
  it("a forwarded turn with two permission round trips stores at most 3 database bus messages; the rest crosses the links", { timeout: 120_000 }, async () => {
    const three = await cluster([]);
    const turn = await forwardedTurn(three, "peer run with links");
    expect(turn.sent).toBeLessThanOrEqual(3);
    // The send, two permission requests, their answers and the events all crossed between A and B.
    expect(turn.peerSent).toBeGreaterThanOrEqual(6);
    expect(turn.peerReceived).toBe(turn.peerSent);
  });

  it("with --peer-listen off the same turn is as correct, every message through the database", { timeout: 120_000 }, async () => {
    const three = await cluster(["--peer-listen", "off"]);
    const turn = await forwardedTurn(three, "peer run without links");
    expect(turn.peerSent).toBe(0);
    expect(turn.peerReceived).toBe(0);
    expect(turn.sent).toBeGreaterThan(6);
  });
});
