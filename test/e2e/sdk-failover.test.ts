/**
 * `@tandem/sdk` with two node URLs (`cliUrls`): the node its connection and its session are on is
 * killed with SIGKILL mid-turn; the client reconnects to the other node, resumes the session there
 * and continues it. The application's handler sees every stored event of the session once, in the
 * stored order, with no gap — checked against the events table. Real runtime processes over TCP
 * and a real PostgreSQL.
 */
import { approveAll, CopilotClient, type SessionEvent } from "@tandem/sdk";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startWorld, type TestWorld } from "../helpers/harness.js";
import { startPostgres } from "../helpers/postgres.js";
import { queryDatabase } from "../helpers/stores.js";
import { startTcpRuntime, type TcpRuntime } from "../helpers/tcp.js";

const started = await startPostgres();
if (started.skipped) console.warn(`sdk failover test skipped: ${started.skipped}`);

let world: TestWorld | undefined;
const nodes: TcpRuntime[] = [];
const clients: CopilotClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.forceStop();
  for (const node of nodes.splice(0)) await node.stop("SIGKILL");
  await world?.dispose();
  world = undefined;
});
afterAll(async () => {
  await started.server?.stop();
});

async function waitUntil(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!started.server)("@tandem/sdk failover", () => {
  it("with two node URLs, survives the kill of its node mid-turn and continues its session with no gap and no duplicate", { timeout: 120_000 }, async () => {
    const url = await started.server!.createDatabase(`sdk_failover_${process.pid}`);
    world = await startWorld(["cluster-failover"], { TANDEM_STORE_URL: url, TANDEM_LEASE_TTL_MS: "1500" });
    const nodeA = await startTcpRuntime(world.env, { args: ["--node-id", "node-a", "--log-level", "warning"] });
    const nodeB = await startTcpRuntime(world.env, { args: ["--node-id", "node-b", "--log-level", "warning"] });
    nodes.push(nodeA, nodeB);
    const client = new CopilotClient({ cliUrls: [nodeA.cliUrl, nodeB.cliUrl], logLevel: "error", reconnect: { initialDelayMs: 50, maxDelayMs: 500 } });
    clients.push(client);
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const seen: SessionEvent[] = [];
    session.on((event) => seen.push(event));
    const [owner] = await queryDatabase<{ node_id: string }>(url, "SELECT node_id FROM session_leases WHERE session_id = $1", [session.sessionId]);
    expect(owner?.node_id).toBe("node-a");

    await session.send({ prompt: "work through the steps" });
    // Mid-turn: a step done, the answer not yet given.
    await waitUntil(() => seen.some((event) => event.type === "tool.execution_complete"), "the first step");
    await nodeA.stop("SIGKILL");

    await waitUntil(() => seen.some((event) => event.type === "assistant.message" && event.data.content === "All steps done."), "the final answer through node-b");
    await waitUntil(() => seen.at(-1)?.type === "session.idle", "the session to go idle");
    const stored = await queryDatabase<{ event_id: string }>(url, "SELECT event_id FROM events WHERE session_id = $1 ORDER BY seq", [session.sessionId]);
    const storedIds = stored.map((row) => row.event_id);
    const seenStored = seen.filter((event) => event.ephemeral !== true).map((event) => event.id);
    expect(seenStored).toEqual(storedIds.slice(storedIds.indexOf(seenStored[0]!)));
    expect(new Set(seenStored).size).toBe(seenStored.length);
    expect(seen.some((event) => event.type === "session.turn_interrupted")).toBe(true);
    expect(client.getState()).toBe("connected");

    // The client goes on with node-b: its requests are answered there, from the same history.
    expect((await session.getMessages()).map((event) => event.id)).toEqual(storedIds);
    const [takenOver] = await queryDatabase<{ node_id: string }>(url, "SELECT node_id FROM session_leases WHERE session_id = $1", [session.sessionId]);
    expect(takenOver?.node_id).toBe("node-b");
  });
});
