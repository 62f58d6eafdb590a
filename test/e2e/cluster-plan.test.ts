/**
 * Plan mode on PostgreSQL across a failover: the plan is a database row, mirrored as `plan.md` in
 * the session's local folder so the agent can write it with its file tools. Node A's agent
 * `create`s the plan there (stored at the end of the turn); A dies (`kill -9`); on node B (its own
 * local folder, as on another machine) the session opens with the plan written to B's folder, the
 * agent `view`s and `edit`s it there, and `session.plan.read` and the database give the edited plan.
 * Real runtime processes over TCP, real PostgreSQL, the model scripted by the testkit server.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { parseScript } from "@tandem/testkit";
import { startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { startPostgres } from "../helpers/postgres.js";
import { startTcpRuntime, type RawTcpClient, type TcpRuntime } from "../helpers/tcp.js";

const started = await startPostgres();
if (started.skipped) console.warn(`cluster plan tests skipped: ${started.skipped}`);

let world: TestWorld | undefined;
const nodes: TcpRuntime[] = [];
const raws: RawTcpClient[] = [];
const homes: string[] = [];
let db: pg.Pool | undefined;

afterAll(async () => {
  for (const raw of raws.splice(0)) raw.close();
  for (const node of nodes.splice(0)) await node.stop("SIGTERM");
  await db?.end();
  await world?.dispose();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
  await started.server?.stop();
});

async function rpc(raw: RawTcpClient, method: string, params: unknown): Promise<Record<string, unknown>> {
  const response = await raw.request(method, params);
  if (response.error) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
  return response.result as Record<string, unknown>;
}

function idleCount(raw: RawTcpClient, sessionId: string): number {
  return raw.received.filter((message) => message.method === "session.event" && (message.params as { sessionId: string; event: { type: string } }).sessionId === sessionId && (message.params as { event: { type: string } }).event.type === "session.idle").length;
}

async function storedPlan(sessionId: string): Promise<string | undefined> {
  const { rows } = await db!.query<{ content: string }>("SELECT content FROM session_files WHERE session_id = $1 AND name = 'plan.md'", [sessionId]);
  return rows[0]?.content;
}

describe.skipIf(!started.server)("cluster: the plan in plan mode on PostgreSQL", () => {
  it("a plan the agent created with its file tools on A survives A's death: B materialises it locally, the agent edits it there, plan.read and the database agree", { timeout: 60_000 }, async () => {
    const url = await started.server!.createDatabase("plan");
    db = new pg.Pool({ connectionString: url, max: 2 });
    world = await startWorld([], { TANDEM_STORE_URL: url, TANDEM_LEASE_TTL_MS: "1500" });
    for (const nodeId of ["node-a", "node-b"]) {
      // Each node has its own local folder, as on its own machine.
      const home = mkdtempSync(join(tmpdir(), `tandem-${nodeId}-`));
      homes.push(home);
      nodes.push(await startTcpRuntime({ ...world.env, HOME: home, COPILOT_HOME: home }, { args: ["--node-id", nodeId, "--log-level", "warning"] }));
    }
    const onA = await nodes[0]!.connect();
    raws.push(onA);
    const { sessionId } = (await rpc(onA, "session.create", { requestPermission: false })) as { sessionId: string };
    await rpc(onA, "session.permissions.setApproveAll", { sessionId, enabled: true });
    await rpc(onA, "session.mode.set", { sessionId, mode: "plan" });
    const planOnA = join(homes[0]!, "session-state", sessionId, "plan.md");
    const planOnB = join(homes[1]!, "session-state", sessionId, "plan.md");
    world.model.addScript(
      parseScript(
        JSON.stringify({
          name: "plan-mirror",
          match: `plan the work ${sessionId}`,
          steps: [
            { reply: { toolCalls: [{ id: "call_create", name: "create", arguments: { path: planOnA, file_text: "1. read the code\n2. fix the bug\n" } }] } },
            { reply: { content: "Plan written." } },
            { reply: { toolCalls: [{ id: "call_view", name: "view", arguments: { path: planOnB } }] } },
            { reply: { toolCalls: [{ id: "call_edit", name: "edit", arguments: { path: planOnB, old_str: "2. fix the bug", new_str: "2. fix the bug\n3. add a test" } }] } },
            { reply: { content: "Plan revised." } },
          ],
        }),
        "plan-mirror",
      ),
    );

    await rpc(onA, "session.send", { sessionId, prompt: `plan the work ${sessionId}` });
    await waitFor(() => idleCount(onA, sessionId) >= 1, "the first turn on A");
    expect(readFileSync(planOnA, "utf8")).toBe("1. read the code\n2. fix the bug\n");
    // Stored at the end of the turn (the agent's tool wrote only the local file).
    const deadline = Date.now() + 10_000;
    while ((await storedPlan(sessionId)) === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await storedPlan(sessionId)).toBe("1. read the code\n2. fix the bug\n");

    onA.close();
    await nodes[0]!.stop("SIGKILL");
    const onB = await nodes[1]!.connect();
    raws.push(onB);
    await rpc(onB, "session.resume", { sessionId, requestPermission: false });
    expect(readFileSync(planOnB, "utf8")).toBe("1. read the code\n2. fix the bug\n");
    const readOnB = await rpc(onB, "session.plan.read", { sessionId });
    expect(readOnB).toMatchObject({ exists: true, content: "1. read the code\n2. fix the bug\n", path: planOnB });

    await rpc(onB, "session.send", { sessionId, prompt: "add a test step" });
    await waitFor(() => idleCount(onB, sessionId) >= 1, "the second turn on B", 20_000);
    const revised = "1. read the code\n2. fix the bug\n3. add a test\n";
    expect(readFileSync(planOnB, "utf8")).toBe(revised);
    expect(await rpc(onB, "session.plan.read", { sessionId })).toMatchObject({ exists: true, content: revised });
    expect(await storedPlan(sessionId)).toBe(revised);
    // Plan mode let the agent write its plan (and nothing else was refused).
    const { rows } = await db.query<{ body: { data: { success: boolean; toolCallId: string } } }>("SELECT body FROM events WHERE session_id = $1 AND type = 'tool.execution_complete' ORDER BY seq", [sessionId]);
    expect(rows.map((row) => [row.body.data.toolCallId, row.body.data.success])).toEqual([
      ["call_create", true],
      ["call_view", true],
      ["call_edit", true],
    ]);
  });
});
