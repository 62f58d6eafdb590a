/**
 * `session.lifecycle` in a cluster: a client connected to any node is told about sessions created,
 * updated and deleted on every node (the SDK's `client.on("session.created", …)`), once each.
 * Three real runtime nodes over TCP on one PostgreSQL database, raw framed clients.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { startPostgres } from "../helpers/postgres.js";
import { startTcpRuntime, type RawTcpClient, type TcpRuntime } from "../helpers/tcp.js";
import type { WireMessage } from "../helpers/frames.js";

const started = await startPostgres();
if (started.skipped) console.warn(`cluster lifecycle tests skipped: ${started.skipped}`);

let world: TestWorld | undefined;
const nodes: TcpRuntime[] = [];
const raws: RawTcpClient[] = [];

afterAll(async () => {
  for (const raw of raws.splice(0)) raw.close();
  for (const node of nodes.splice(0)) await node.stop("SIGTERM");
  await world?.dispose();
  await started.server?.stop();
});

/** The created/deleted notifications a client got, as "type sessionId" (`session.updated` is throttled: how many is timing). */
function lifecycleOf(raw: RawTcpClient, sessionIds: readonly string[]): string[] {
  return raw.received
    .filter((message: WireMessage) => message.method === "session.lifecycle")
    .map((message) => message.params as { type: string; sessionId: string })
    .filter((event) => sessionIds.includes(event.sessionId) && event.type !== "session.updated")
    .map((event) => `${event.type} ${event.sessionId}`);
}

describe.skipIf(!started.server)("cluster: session.lifecycle reaches the clients of every node", () => {
  it("created and deleted on A, created on B: every client of A, B and C is told once each, in the order of the node that sent them", { timeout: 60_000 }, async () => {
    const url = await started.server!.createDatabase("lifecycle");
    world = await startWorld(["cluster-failover"], { TANDEM_STORE_URL: url, TANDEM_LEASE_TTL_MS: "1500" });
    for (const nodeId of ["node-a", "node-b", "node-c"]) {
      nodes.push(await startTcpRuntime(world.env, { args: ["--node-id", nodeId, "--log-level", "warning"] }));
    }
    const [onA, otherOnA, onB, onC] = await Promise.all([nodes[0]!.connect(), nodes[0]!.connect(), nodes[1]!.connect(), nodes[2]!.connect()]);
    raws.push(onA!, otherOnA!, onB!, onC!);
    // As clients begin: a first answered request says the runtime has let the connection in (its
    // peer check may batch a burst of new connections), so notifications from then on reach it.
    for (const client of [onA!, otherOnA!, onB!, onC!]) expect((await client.request("ping", {})).result).toMatchObject({ message: "pong" });

    const first = (await onA!.request("session.create", {})).result as { sessionId: string };
    const second = (await onB!.request("session.create", {})).result as { sessionId: string };
    expect((await onA!.request("session.delete", { sessionId: first.sessionId })).error).toBeUndefined();
    const sessionIds = [first.sessionId, second.sessionId];
    const expected = [`session.created ${first.sessionId}`, `session.created ${second.sessionId}`, `session.deleted ${first.sessionId}`];

    for (const client of [onA!, otherOnA!, onB!, onC!]) {
      await waitFor(() => lifecycleOf(client, sessionIds).length >= expected.length, "every lifecycle notification on every node's client");
    }
    // Give a duplicate time to arrive (the bus's mailbox poll runs every second).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // Each once; in the order of the node that sent them (two nodes' notifications may cross).
    for (const client of [onA!, otherOnA!, onB!, onC!]) {
      const seen = lifecycleOf(client, sessionIds);
      expect([...seen].sort()).toEqual([...expected].sort());
      expect(seen.indexOf(`session.deleted ${first.sessionId}`)).toBeGreaterThan(seen.indexOf(`session.created ${first.sessionId}`));
    }
  });
});
