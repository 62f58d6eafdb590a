/**
 * Sessions kept in a real PostgreSQL server (`--store` / `TANDEM_STORE_URL`): real runtime
 * processes over stdio, the tables checked directly. A tool loop resumed in a new process; kill -9
 * mid-turn (no completed turn lost, no duplicate or gap in `seq`); the database stopped mid-session
 * (`session.error` persistence, -32007 until it is back); list, delete, plan and workspace files;
 * a bad store URL failing at start; `tandem store import` from a file store, twice.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";
import { startSuitePostgres, storeVariants, type StoreVariants } from "../helpers/stores.js";

const started = await startSuitePostgres();

let world: TestWorld | undefined;
const clients: RawClient[] = [];
let stores: StoreVariants;

beforeAll(() => {
  stores = storeVariants(started);
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close(true);
  await world?.dispose();
  world = undefined;
});
afterAll(async () => {
  await stores.stop();
});

function start(env: Record<string, string> = world!.env): RawClient {
  const client = new RawClient(env);
  clients.push(client);
  return client;
}

const weatherTool = { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } };
type WireEvent = { type: string; id: string; parentId: string | null; ephemeral?: boolean; data: Record<string, unknown> };
const eventOf = (message: WireMessage) => (message.params as { event: WireEvent }).event;
const isEvent = (type: string) => (message: WireMessage) => message.method === "session.event" && eventOf(message).type === type;

/** The session's rows, in order. */
async function storedEvents(sessionId: string): Promise<Array<{ seq: number; body: string; type: string; event_id: string }>> {
  const rows = await stores.query<{ seq: string; body: string; type: string; event_id: string }>("SELECT seq, body::text AS body, type, event_id FROM events WHERE session_id = $1 ORDER BY seq", [sessionId]);
  return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}

/** Sequence numbers are exactly 1..n and `sessions.last_seq` is n. */
async function expectContiguous(sessionId: string): Promise<number> {
  const rows = await storedEvents(sessionId);
  expect(rows.map((row) => row.seq)).toEqual(rows.map((_, index) => index + 1));
  const [session] = await stores.query<{ last_seq: string }>("SELECT last_seq FROM sessions WHERE id = $1", [sessionId]);
  expect(Number(session?.last_seq)).toBe(rows.length);
  expect(new Set(rows.map((row) => row.event_id)).size).toBe(rows.length);
  return rows.length;
}

describe.skipIf(!started.server)("PostgreSQL session store", () => {
  it("a tool loop, then kill -9 mid-turn: a new runtime on the same database resumes every completed event, stored as sent, seq without gap or duplicate", async () => {
    world = await startWorld(["custom-tool"], await stores.variants[1]!.env());
    const first = start();
    const { sessionId } = (await first.request("session.create", { tools: [weatherTool], requestPermission: true })).result as { sessionId: string };
    await first.request("session.send", { sessionId, prompt: "Weather in Paris?" });
    const permission = await first.waitFor(isEvent("permission.requested"));
    await first.request("session.permissions.handlePendingPermissionRequest", { sessionId, requestId: eventOf(permission).data.requestId, result: { kind: "approved" } });
    await first.waitFor(isEvent("external_tool.requested"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const sent = first.received.filter((message) => message.method === "session.event").map(eventOf).filter((event) => !event.ephemeral);
    await first.close(true);

    // What the clients were sent is what is stored: same text, same order, nothing more.
    const rows = await storedEvents(sessionId);
    expect(rows.map((row) => row.body)).toEqual(sent.map((event) => JSON.stringify(event)));
    expect(rows.map((row) => row.type)).toEqual(sent.map((event) => event.type));
    await expectContiguous(sessionId);

    const second = start();
    expect((await second.request("session.resume", { sessionId, tools: [weatherTool] })).error).toBeUndefined();
    const { events } = (await second.request("session.getMessages", { sessionId })).result as { events: WireEvent[] };
    expect(events.slice(0, sent.length)).toEqual(sent);
    // The first runtime died mid-turn (its lease expired, it did not release it): the turn is
    // reported interrupted, its tool call answered "interrupted", and the turn continues here.
    const interrupted = events.find((event) => event.type === "session.turn_interrupted");
    expect(interrupted?.data).toMatchObject({ reason: "node_lost", interruptedToolCallIds: ["call_weather_1"], continued: true });
    await second.waitFor(isEvent("session.idle"));
    const messages = (world.model.requests.at(-1)?.body as { messages: Array<{ role: string; content: string; tool_call_id?: string }> }).messages;
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(messages[3]).toMatchObject({ tool_call_id: "call_weather_1", content: "The execution of this tool, or a previous tool was interrupted." });
    await second.close(false);
    const count = await expectContiguous(sessionId);
    expect(count).toBeGreaterThan(sent.length);
    // The parentId chain of what is stored only points backwards.
    const stored = (await storedEvents(sessionId)).map((row) => JSON.parse(row.body) as WireEvent);
    const seen = new Set<string>();
    for (const event of stored) {
      expect(seen.has(event.id)).toBe(false);
      seen.add(event.id);
    }
  });

  it("session.list, plan and workspace files, delete — all in the database", async () => {
    world = await startWorld(["plain-reply"], await stores.variants[1]!.env());
    const client = start();
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    await client.request("session.send", { sessionId, prompt: "Remember 42" });
    await client.waitFor(isEvent("session.idle"));
    expect((await client.request("session.plan.update", { sessionId, content: "1. remember" })).error).toBeUndefined();
    expect((await client.request("session.workspace.createFile", { sessionId, path: "notes/a.md", content: "alpha" })).error).toBeUndefined();
    expect((await client.request("session.workspace.createFile", { sessionId, path: "../escape.md", content: "x" })).error?.code).toBe(-32602);
    await client.close(false);

    const files = await stores.query<{ name: string; content: string }>("SELECT name, content FROM session_files WHERE session_id = $1 ORDER BY name", [sessionId]);
    expect(files).toEqual([
      { name: "files/notes/a.md", content: "alpha" },
      { name: "plan.md", content: "1. remember" },
    ]);

    const next = start();
    const listed = (await next.request("session.list", {})).result as { sessions: Array<{ sessionId: string; summary?: string }> };
    expect(listed.sessions.map((session) => session.sessionId)).toEqual([sessionId]);
    expect(listed.sessions[0]?.summary).toBe("Remember 42");
    expect((await next.request("session.resume", { sessionId })).error).toBeUndefined();
    expect((await next.request("session.plan.read", { sessionId })).result).toMatchObject({ exists: true, content: "1. remember" });
    expect((await next.request("session.workspace.listFiles", { sessionId })).result).toEqual({ files: ["notes/a.md"] });
    expect((await next.request("session.workspace.readFile", { sessionId, path: "notes/a.md" })).result).toEqual({ content: "alpha" });
    expect((await next.request("session.delete", { sessionId })).result).toEqual({ success: true });
    expect(await stores.query("SELECT id FROM sessions")).toEqual([]);
    expect(await stores.query("SELECT session_id FROM events")).toEqual([]);
    expect(((await next.request("session.list", {})).result as { sessions: unknown[] }).sessions).toEqual([]);
  });

  it("the database stopped mid-session: session.error (persistence), sends refused with -32007 until it is back, then the held events are written in order", async () => {
    world = await startWorld(["many-replies"], await stores.variants[1]!.env());
    const server = await stores.server();
    const client = start();
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    await client.request("session.send", { sessionId, prompt: "one" });
    await client.waitFor(isEvent("session.idle"));
    await server.halt();
    try {
      await client.request("session.send", { sessionId, prompt: "two" });
      const error = eventOf(await client.waitFor((message) => isEvent("session.error")(message) && eventOf(message).data.errorType === "persistence", 20_000));
      expect(String(error.data.message)).toMatch(/session .* events/);
      const refused = await client.request("session.send", { sessionId, prompt: "three" });
      expect(refused.error?.code).toBe(-32007);
    } finally {
      await server.restart();
    }
    const accepted = await client.request("session.send", { sessionId, prompt: "four" });
    expect(accepted.error).toBeUndefined();
    const info = await client.waitFor((message) => isEvent("session.info")(message) && eventOf(message).data.infoType === "persistence");
    await client.waitFor((message) => isEvent("session.idle")(message) && client.received.indexOf(message) > client.received.indexOf(info), 20_000);
    await client.close(false);
    await expectContiguous(sessionId);
    const prompts = (await storedEvents(sessionId)).filter((row) => row.type === "user.message").map((row) => (JSON.parse(row.body) as WireEvent).data.content);
    expect(prompts).toEqual(["one", "two", "four"]);
  }, 60_000);

  it("two runtimes on one session: the second one's requests go to the lease holder (one writer), the log never forks", async () => {
    // Each runtime on a PostgreSQL store is a cluster node: the session runs where its lease is, and
    // the other node forwards to it (test/e2e/cluster.test.ts). Two writers racing on the log itself
    // are refused by the sequence check (packages/runtime/test/store/postgres-store.test.ts).
    world = await startWorld(["many-replies"], await stores.variants[1]!.env());
    const nodeA = start();
    const { sessionId } = (await nodeA.request("session.create", {})).result as { sessionId: string };
    await nodeA.request("session.send", { sessionId, prompt: "one" });
    await nodeA.waitFor(isEvent("session.idle"));
    const nodeB = start();
    expect((await nodeB.request("session.resume", { sessionId })).error).toBeUndefined();
    expect((await nodeB.request("session.send", { sessionId, prompt: "two" })).error).toBeUndefined();
    await nodeB.waitFor(isEvent("session.idle"), 20_000);
    await nodeA.close(true);
    await nodeB.close(false);
    await expectContiguous(sessionId);
    const stored = await storedEvents(sessionId);
    expect(stored.filter((row) => row.type === "user.message").map((row) => (JSON.parse(row.body) as WireEvent).data.content)).toEqual(["one", "two"]);
    expect(stored.filter((row) => row.type === "session.resume")).toHaveLength(1);
  });

  it("a bad store URL or an unreachable database fails at start with a clear message and a non-zero exit", () => {
    const unreachable = spawnSync(process.execPath, [tandemBin, "--stdio", "--store", "postgres://tandem@127.0.0.1:1/nothing"], { encoding: "utf8", timeout: 30_000, input: "" });
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toMatch(/Cannot open the session store postgres:\/\/tandem@127\.0\.0\.1:1\/nothing: .*ECONNREFUSED/);
    const wrongScheme = spawnSync(process.execPath, [tandemBin, "--stdio", "--store", "mysql://x/y"], { encoding: "utf8", timeout: 30_000, input: "" });
    expect(wrongScheme.status).toBe(2);
    expect(wrongScheme.stderr).toMatch(/--store needs a postgres:\/\/ URL/);
    const fromEnv = spawnSync(process.execPath, [tandemBin, "--stdio"], { encoding: "utf8", timeout: 30_000, input: "", env: { ...process.env, TANDEM_STORE_URL: "postgres://tandem:secret@127.0.0.1:1/nothing" } });
    expect(fromEnv.status).toBe(1);
    expect(fromEnv.stderr).not.toContain("secret");
  });

  it("tandem store import copies file-store sessions (events, workspace, plan, files; a torn tail reported), and a second run verifies instead of copying", async () => {
    world = await startWorld(["many-replies"]);
    const fileClient = start();
    const ids: string[] = [];
    for (const prompt of ["first session", "second session"]) {
      const { sessionId } = (await fileClient.request("session.create", {})).result as { sessionId: string };
      await fileClient.request("session.send", { sessionId, prompt });
      await fileClient.waitFor(() => fileClient.received.filter(isEvent("session.idle")).length === ids.length + 1);
      ids.push(sessionId);
    }
    await fileClient.request("session.plan.update", { sessionId: ids[0], content: "the plan" });
    await fileClient.request("session.workspace.createFile", { sessionId: ids[0], path: "n.md", content: "notes" });
    const fileMessages = (await fileClient.request("session.getMessages", { sessionId: ids[0] })).result as { events: WireEvent[] };
    await fileClient.close(false);
    appendFileSync(join(world.home, "session-state", ids[1]!, "events.jsonl"), '{"type":"assistant.message","data":{"content":"torn');

    const url = (await stores.variants[1]!.env()).TANDEM_STORE_URL!;
    const run = () => spawnSync(process.execPath, [tandemBin, "store", "import", "--from", world!.home, "--store", url], { encoding: "utf8", timeout: 60_000 });
    const firstRun = run();
    expect(firstRun.stderr).toBe("");
    expect(firstRun.status).toBe(0);
    expect(firstRun.stdout).toMatch(/2 session\(s\) in .* 2 imported, 0 already imported, 0 differ, 0 failed; 1 unreadable line\(s\) skipped/);
    expect(firstRun.stdout).toContain(`imported         ${ids[1]}`);
    const missing = spawnSync(process.execPath, [tandemBin, "store", "import", "--from", join(world.home, "nowhere"), "--store", url], { encoding: "utf8", timeout: 30_000 });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/nowhere is not a folder/);
    const secondRun = run();
    expect(secondRun.status).toBe(0);
    expect(secondRun.stdout).toMatch(/0 imported, 2 already imported/);
    expect(await stores.query("SELECT count(*)::int AS n FROM sessions")).toEqual([{ n: 2 }]);

    const pgClient = start({ ...world.env, TANDEM_STORE_URL: url });
    const listed = (await pgClient.request("session.list", {})).result as { sessions: Array<{ sessionId: string }> };
    expect(listed.sessions.map((session) => session.sessionId).sort()).toEqual([...ids].sort());
    expect((await pgClient.request("session.resume", { sessionId: ids[0], disableResume: true })).error).toBeUndefined();
    const pgMessages = (await pgClient.request("session.getMessages", { sessionId: ids[0] })).result as { events: WireEvent[] };
    expect(pgMessages.events.slice(0, fileMessages.events.length)).toEqual(fileMessages.events);
    expect((await pgClient.request("session.plan.read", { sessionId: ids[0] })).result).toMatchObject({ content: "the plan" });
    expect((await pgClient.request("session.workspace.readFile", { sessionId: ids[0], path: "n.md" })).result).toEqual({ content: "notes" });
    await pgClient.request("session.send", { sessionId: ids[0], prompt: "and now?" });
    await pgClient.waitFor(isEvent("session.idle"));
    await pgClient.close(false);
    await expectContiguous(ids[0]!);
  });
});
