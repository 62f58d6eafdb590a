/**
 * Tools whose work can take without end run off the runtime's main thread. The `sql` tool's
 * queries run on a worker thread with a time limit: while a query without end runs, `ping` answers
 * at once, another session's turn completes and `session.abort` ends the turn within a second; rows
 * committed before survive the stopped worker. ATTACH, VACUUM INTO, load_extension and file
 * functions stay refused inside the worker. `grep`'s Node search (no `rg` on PATH) runs on a worker
 * thread too, so a pattern with exponential backtracking blocks nothing. A runtime whose stdin
 * closes, or whose parent dies (TCP, `--headless`), during such work exits.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Script } from "@tandem/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { hasExited } from "../helpers/proc.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";
import { RawTcpClient } from "../helpers/tcp.js";

const endless = "WITH RECURSIVE counter(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM counter) SELECT count(*) FROM counter";

let world: TestWorld | undefined;
let client: RawClient | undefined;
let dir: string | undefined;
let parent: ChildProcess | undefined;
let runtimePid: number | undefined;

afterEach(async () => {
  parent?.kill("SIGKILL");
  parent = undefined;
  if (runtimePid !== undefined && !hasExited(runtimePid)) process.kill(runtimePid, "SIGKILL");
  runtimePid = undefined;
  await client?.close(true);
  client = undefined;
  await world?.dispose();
  world = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

type SessionEvent = { type: string; data: Record<string, unknown> };

function eventOf(message: WireMessage, sessionId?: string): SessionEvent | undefined {
  if (message.method !== "session.event") return undefined;
  const params = message.params as { sessionId: string; event: SessionEvent };
  if (sessionId !== undefined && params.sessionId !== sessionId) return undefined;
  return params.event;
}

const isEvent = (sessionId: string, type: string, where: (data: Record<string, unknown>) => boolean = () => true) => (message: WireMessage) => {
  const event = eventOf(message, sessionId);
  return event?.type === type && where(event.data);
};

const countOf = (sessionId: string, type: string) => client!.received.filter(isEvent(sessionId, type)).length;

/** Sends a prompt and waits for the turn's `session.idle`. */
async function turn(sessionId: string, prompt: string): Promise<void> {
  const idles = countOf(sessionId, "session.idle");
  await client!.request("session.send", { sessionId, prompt });
  await client!.waitFor(() => countOf(sessionId, "session.idle") > idles, 20_000);
}

/** The result text of a completed tool call. */
async function toolResult(sessionId: string, toolCallId: string): Promise<{ success: boolean; content: string; error?: string }> {
  const message = await client!.waitFor(isEvent(sessionId, "tool.execution_complete", (data) => data.toolCallId === toolCallId), 20_000);
  const data = eventOf(message)!.data as { success: boolean; result?: { content: string }; error?: { message: string } };
  return { success: data.success, content: data.result?.content ?? "", ...(data.error ? { error: data.error.message } : {}) };
}

function sqlCall(id: string, query: string) {
  return { id, name: "sql", arguments: { description: id, query } };
}

function sqlScript(name: string, calls: Array<{ id: string; query: string }>, last = `${name} done.`): Script {
  return {
    name,
    match: name,
    steps: [...calls.map((call) => ({ reply: { toolCalls: [sqlCall(call.id, call.query)] } })), { reply: { content: last } }],
  };
}

/** Round trips of `ping`, one after another, for at least `forMs`. */
async function pingTimes(forMs: number): Promise<number[]> {
  const times: number[] = [];
  const started = performance.now();
  while (performance.now() - started < forMs || times.length < 5) {
    const sent = performance.now();
    const reply = await client!.request("ping", {});
    expect(reply.error).toBeUndefined();
    times.push(performance.now() - sent);
  }
  return times;
}

describe("the sql tool on a worker thread", () => {
  it("keeps ping, other sessions and session.abort answering during a query without end; committed rows survive", async () => {
    world = await startWorld([]);
    // One conversation: later prompts are answered by what the request's last message contains.
    world.model.addScript({
      ...sqlScript("remember", [{ id: "call_remember", query: "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('kept')" }]),
      byContent: [
        { contains: "forever", reply: { toolCalls: [sqlCall("call_forever", endless)] } },
        { contains: "read back", reply: { toolCalls: [sqlCall("call_read", "SELECT body FROM notes")] } },
        { contains: "| kept |", reply: { content: "Read." } },
      ],
    });
    world.model.addScript({ name: "other", match: "other session", steps: [{ reply: { content: "Other done." } }] });
    client = new RawClient(world.env);
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    await turn(sessionId, "remember");
    expect((await toolResult(sessionId, "call_remember")).success).toBe(true);

    const idles = countOf(sessionId, "session.idle");
    await client.request("session.send", { sessionId, prompt: "forever" });
    await client.waitFor(isEvent(sessionId, "tool.execution_start", (data) => data.toolCallId === "call_forever"));

    // Long enough for the worker to start and the query to run: every ping still answers (a blocked
    // main thread would answer none; the bound leaves room for a loaded machine).
    const times = await pingTimes(1500);
    expect(Math.max(...times), `ping round trips: ${times.map(Math.round).join(", ")} ms`).toBeLessThan(1000);

    const other = (await client.request("session.create", {})).result as { sessionId: string };
    await turn(other.sessionId, "other session");
    expect(client.received.some(isEvent(other.sessionId, "assistant.message", (data) => data.content === "Other done."))).toBe(true);
    expect(countOf(sessionId, "session.idle")).toBe(idles);

    const abortSent = performance.now();
    await client.request("session.abort", { sessionId });
    await client.waitFor(() => countOf(sessionId, "session.idle") > idles, 5000);
    expect(performance.now() - abortSent).toBeLessThan(3000);

    // The next query runs on a fresh worker, from the file the stopped one left.
    await turn(sessionId, "read back");
    expect(await toolResult(sessionId, "call_read")).toMatchObject({ success: true, content: expect.stringContaining("| kept |") });
    // The aborted call got its completion: the interrupted result, in the conversation the model saw next.
    const readBack = world.model.requests.find((request) => JSON.stringify(request.body).includes("read back"));
    const messages = (readBack?.body as { messages: Array<{ role: string; tool_call_id?: string; content?: unknown }> }).messages;
    expect(messages.find((message) => message.role === "tool" && message.tool_call_id === "call_forever")?.content).toBe(
      "The execution of this tool, or a previous tool was interrupted.",
    );
  });

  it("stops a query at the time limit with an error the model can act on; ATTACH, VACUUM INTO, extensions and file functions stay refused", async () => {
    dir = mkdtempSync(join(tmpdir(), "tandem-sql-refusals-"));
    const attached = join(dir, "attached.db");
    const vacuumed = join(dir, "vacuumed.db");
    world = await startWorld([], { TANDEM_SQL_TIMEOUT_MS: "1000" });
    world.model.addScript(sqlScript("limited", [
      { id: "call_setup", query: "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('before')" },
      { id: "call_forever", query: `INSERT INTO notes VALUES ('lost'); ${endless}` },
      { id: "call_after", query: "SELECT body FROM notes" },
      { id: "call_attach", query: `ATTACH DATABASE '${attached}' AS other; CREATE TABLE other.t (x); INSERT INTO other.t VALUES (1)` },
      { id: "call_vacuum", query: `VACUUM INTO '${vacuumed}'` },
      { id: "call_extension", query: "SELECT load_extension('/tmp/nothing.so')" },
      { id: "call_readfile", query: "SELECT readfile('/etc/passwd')" },
      { id: "call_writefile", query: `SELECT writefile('${join(dir, "written")}', 'x')` },
    ]));
    client = new RawClient(world.env);
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    await turn(sessionId, "limited");
    // Inside the worker: ATTACH and VACUUM INTO reach only its in-memory file system, never the disk; the rest does not exist.
    expect(await toolResult(sessionId, "call_extension")).toMatchObject({ success: false, content: expect.stringContaining("no such function: load_extension") });
    expect(await toolResult(sessionId, "call_readfile")).toMatchObject({ success: false, content: expect.stringContaining("no such function: readfile") });
    expect(await toolResult(sessionId, "call_writefile")).toMatchObject({ success: false, content: expect.stringContaining("no such function: writefile") });
    expect(existsSync(attached)).toBe(false);
    expect(existsSync(vacuumed)).toBe(false);
    expect(existsSync(join(dir, "written"))).toBe(false);
    const stopped = await toolResult(sessionId, "call_forever");
    expect(stopped.success).toBe(false);
    expect(stopped.content, JSON.stringify(stopped)).toContain("time limit (1000 ms)");
    expect(stopped.content).toContain("bound a recursive CTE");
    const after = await toolResult(sessionId, "call_after");
    expect(after.content).toContain("| before |");
    expect(after.content).not.toContain("lost");
    expect(client.received.some(isEvent(sessionId, "assistant.message", (data) => data.content === "limited done."))).toBe(true);
  });

  it("exits when its stdin closes while a query without end runs", async () => {
    world = await startWorld([]);
    world.model.addScript(sqlScript("forever", [{ id: "call_forever", query: endless }]));
    client = new RawClient(world.env);
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    await client.request("session.send", { sessionId, prompt: "forever" });
    await client.waitFor(isEvent(sessionId, "tool.execution_start", (data) => data.toolCallId === "call_forever"));
    // The query is running once ping has had time to see it start (see the test above).
    await pingTimes(1000);
    const child = client.child;
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.stdin.end();
    const code = await Promise.race([exited, new Promise<"running">((resolve) => setTimeout(() => resolve("running"), 8000))]);
    expect(code).toBe(0);
    expect(hasExited(child.pid!)).toBe(true);
  });

  it("exits when its parent dies while a query without end runs (TCP, --headless)", async () => {
    world = await startWorld([]);
    world.model.addScript(sqlScript("forever", [{ id: "call_forever", query: endless }]));
    // A parent that starts the runtime as the SDKs do in TCP mode (no stdin pipe) and reports its pid and port.
    const script = `
      const { spawn } = require("node:child_process");
      const child = spawn(process.execPath, [${JSON.stringify(tandemBin)}, "--port", "0", "--headless", "--log-level", "warning"], { stdio: ["ignore", "pipe", "inherit"] });
      process.stdout.write("pid " + child.pid + "\\n");
      child.stdout.pipe(process.stdout);
      setInterval(() => undefined, 1000);
    `;
    parent = spawn(process.execPath, ["-e", script], { env: world.env, stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    parent.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => /pid (\d+)/.test(output) && /listening on port (\d+)/.test(output), "the runtime to listen");
    runtimePid = Number(/pid (\d+)/.exec(output)![1]);
    const tcp = await RawTcpClient.connect(Number(/listening on port (\d+)/.exec(output)![1]));
    try {
      const { sessionId } = (await tcp.request("session.create", {})).result as { sessionId: string };
      await tcp.request("session.send", { sessionId, prompt: "forever" });
      await tcp.waitFor(isEvent(sessionId, "tool.execution_start", (data) => data.toolCallId === "call_forever"));
      // The query is running once ping has had time to see it start (see the first test).
      const started = performance.now();
      while (performance.now() - started < 1000) expect((await tcp.request("ping", {})).error).toBeUndefined();
      parent.kill("SIGKILL");
      const pid = runtimePid;
      await waitFor(() => hasExited(pid), "the runtime to exit after its parent died", 10_000);
    } finally {
      tcp.close();
    }
  });
});

describe("grep's Node search on a worker thread", () => {
  it("keeps ping answering while a pattern backtracks without end, and session.abort ends the turn", async () => {
    dir = mkdtempSync(join(tmpdir(), "tandem-grep-thread-"));
    const workspace = join(dir, "workspace");
    const bin = join(dir, "bin");
    mkdirSync(workspace);
    mkdirSync(bin);
    // Only node on PATH: no rg, so grep searches in Node.
    symlinkSync(process.execPath, join(bin, "node"));
    writeFileSync(join(workspace, "line.txt"), `${"a".repeat(64)}b\n`);
    world = await startWorld([]);
    world.model.addScript({
      name: "backtrack",
      match: "backtrack",
      steps: [{ reply: { toolCalls: [{ id: "call_grep", name: "grep", arguments: { pattern: "(a|aa)+$", "-i": true, output_mode: "content" } }] } }, { reply: { content: "Searched." } }],
      byContent: [{ contains: "next turn", reply: { content: "Still here." } }],
    });
    client = new RawClient({ ...world.env, PATH: bin });
    const { sessionId } = (await client.request("session.create", { requestPermission: true, workingDirectory: workspace })).result as { sessionId: string };
    const idles = countOf(sessionId, "session.idle");
    await client.request("session.send", { sessionId, prompt: "backtrack" });
    const permission = await client.waitFor(isEvent(sessionId, "permission.requested"));
    const { requestId } = eventOf(permission)!.data as { requestId: string };
    await client.request("session.permissions.handlePendingPermissionRequest", { sessionId, requestId, result: { kind: "approved" } });

    const times = await pingTimes(1500);
    expect(Math.max(...times), `ping round trips: ${times.map(Math.round).join(", ")} ms`).toBeLessThan(1000);
    expect(countOf(sessionId, "session.idle")).toBe(idles);

    const abortSent = performance.now();
    await client.request("session.abort", { sessionId });
    await client.waitFor(() => countOf(sessionId, "session.idle") > idles, 5000);
    expect(performance.now() - abortSent).toBeLessThan(3000);
    await turn(sessionId, "next turn");
    expect(client.received.some(isEvent(sessionId, "assistant.message", (data) => data.content === "Still here."))).toBe(true);
  });
});
