/**
 * Tool calls cut short: an abort (or the session closing) while a round of calls waits — a bash
 * `sleep 30`, an application tool that never answers, a call whose permission is never answered;
 * a sub-agent running its own `sleep 30` next to an MCP tool that never answers.
 * Every call that started gets exactly one failed `tool.execution_complete` saying it was
 * interrupted, before `session.idle`, in the store (files and PostgreSQL); a new runtime resumes
 * that history and the next model request answers every tool call id exactly once.
 * Real runtime processes over stdio, the official SDK, the scripted model server over HTTP.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, approveAll, type PermissionRequest, type PermissionRequestResult, type SessionEvent } from "@github/copilot-sdk";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";
import { startSuitePostgres, storeVariants } from "../helpers/stores.js";

const stores = storeVariants(await startSuitePostgres());
let world: TestWorld | undefined;
const clients: CopilotClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.forceStop();
  await world?.dispose();
  world = undefined;
});
afterAll(() => stores.stop());

const callIds = ["call_sleep", "call_client", "call_unapproved"];

function client(): CopilotClient {
  const created = new CopilotClient({ cliPath: tandemBin, env: world!.env, logLevel: "error" });
  clients.push(created);
  return created;
}

/** Approves everything but the call the script leaves waiting for its permission. */
function approveAllButOne(request: PermissionRequest): Promise<PermissionRequestResult> | PermissionRequestResult {
  if (request.toolCallId === "call_unapproved") return new Promise(() => undefined);
  return approveAll(request, { sessionId: "" });
}

type ChatMessage = { role: string; tool_call_id?: string; tool_calls?: Array<{ id: string }> };

/** Every tool call id of the request's assistant messages, and how many tool results each has. */
function resultsPerCall(body: unknown): Map<string, number> {
  const messages = (body as { messages: ChatMessage[] }).messages;
  const counts = new Map<string, number>();
  for (const message of messages) for (const call of message.tool_calls ?? []) counts.set(call.id, 0);
  for (const message of messages) {
    if (message.role === "tool" && message.tool_call_id) counts.set(message.tool_call_id, (counts.get(message.tool_call_id) ?? -100) + 1);
  }
  return counts;
}

/** The session's events as the store holds them (its `events.jsonl`, or its PostgreSQL rows). */
async function storedEvents(store: "file" | "postgres", sessionId: string): Promise<SessionEvent[]> {
  if (store === "file") {
    const lines = readFileSync(join(world!.home, "session-state", sessionId, "events.jsonl"), "utf8").trim().split("\n");
    return lines.map((line) => JSON.parse(line) as SessionEvent);
  }
  const rows = await stores.query<{ body: string }>("SELECT body::text AS body FROM events WHERE session_id = $1 ORDER BY seq", [sessionId]);
  return rows.map((row) => JSON.parse(row.body) as SessionEvent);
}

const completions = (events: readonly SessionEvent[]) =>
  events.filter((event): event is Extract<SessionEvent, { type: "tool.execution_complete" }> => event.type === "tool.execution_complete");

/** Starts the three-call round and waits until each call waits (the sleep runs, the tool handler and the permission are pending). */
async function startRound(events: SessionEvent[]) {
  let handlerCalled = false;
  const session = await client().createSession({
    onPermissionRequest: approveAllButOne,
    tools: [{ name: "slow_lookup", description: "Never answers", parameters: { type: "object", properties: { key: { type: "string" } } }, handler: () => ((handlerCalled = true), new Promise(() => undefined)) }],
  });
  session.on((event) => events.push(event));
  await session.send({ prompt: "run the slow round" });
  await waitFor(() => handlerCalled, "the application tool to be called");
  await waitFor(() => events.some((event) => event.type === "permission.requested" && event.data.permissionRequest.toolCallId === "call_unapproved"), "the unanswered permission request");
  await waitFor(() => events.some((event) => event.type === "tool.execution_start" && event.data.toolCallId === "call_sleep"), "the sleep to start");
  return session;
}

describe.each(stores.variants)("$store store", ({ store, env, skipped }) => {
  it.skipIf(skipped !== undefined)("an abort during a round: one interrupted completion per started call before idle, stored, resumed consistently", async () => {
    world = await startWorld(["abort-tool-round"], await env());
    const events: SessionEvent[] = [];
    const session = await startRound(events);
    const idle = new Promise<void>((resolve) => session.on("session.idle", () => resolve()));
    await session.abort();
    await idle;

    const idleIndex = events.findIndex((event) => event.type === "session.idle");
    const live = completions(events);
    expect(live.map((event) => event.data.toolCallId).sort()).toEqual([...callIds].sort());
    for (const completion of live) {
      expect(events.indexOf(completion)).toBeLessThan(idleIndex);
      expect(completion.data.success).toBe(false);
      expect(completion.data.error).toEqual({ code: "interrupted", message: "Interrupted: the user aborted the turn before the tool call finished." });
    }
    const starts = events.filter((event) => event.type === "tool.execution_start").map((event) => event.data.toolCallId);
    expect(starts.sort()).toEqual([...callIds].sort());

    const stored = completions(await storedEvents(store, session.sessionId));
    expect(stored.map((event) => event.id).sort()).toEqual(live.map((event) => event.id).sort());

    // The same runtime's next request answers every call once.
    await session.sendAndWait({ prompt: "carry on" });
    expect(resultsPerCall(world.model.requests.at(-1)?.body)).toEqual(new Map(callIds.map((id) => [id, 1])));

    // A new runtime resumes the stored history: one completion per call, and its next request too.
    await clients[0]!.stop();
    world.model.reset();
    const resumed = await client().resumeSession(session.sessionId, { onPermissionRequest: approveAll });
    const resumedCompletions = completions(await resumed.getMessages());
    expect(resumedCompletions.map((event) => event.data.toolCallId).sort()).toEqual([...callIds].sort());
    await resumed.sendAndWait({ prompt: "and again" });
    expect(resultsPerCall(world.model.requests.at(-1)?.body)).toEqual(new Map(callIds.map((id) => [id, 1])));
  }, 60_000);

  it.skipIf(skipped !== undefined)("the session closed during a round: the completions say so and are stored before it shuts down", async () => {
    world = await startWorld(["abort-tool-round"], await env());
    const events: SessionEvent[] = [];
    const session = await startRound(events);
    const sessionId = session.sessionId;
    await session.destroy();

    const stored = await storedEvents(store, sessionId);
    const storedCompletions = completions(stored);
    expect(storedCompletions.map((event) => event.data.toolCallId).sort()).toEqual([...callIds].sort());
    for (const completion of storedCompletions) {
      expect(completion.data.error).toEqual({ code: "interrupted", message: "Interrupted: the session was closed before the tool call finished." });
    }
    const shutdownIndex = stored.findIndex((event) => event.type === "session.shutdown");
    expect(shutdownIndex).toBeGreaterThan(stored.indexOf(storedCompletions.at(-1)!));

    world.model.reset();
    const resumed = await client().resumeSession(sessionId, { onPermissionRequest: approveAll });
    await resumed.sendAndWait({ prompt: "carry on" });
    expect(resultsPerCall(world.model.requests.at(-1)?.body)).toEqual(new Map(callIds.map((id) => [id, 1])));
  }, 60_000);
});

describe("sub-agent and MCP calls", () => {
  const stdioServer = fileURLToPath(new URL("../fixtures/mcp/stdio-server.mjs", import.meta.url));

  it("an abort while a sub-agent's bash and an MCP call wait: every started call, the sub-agent's too, gets one interrupted completion before idle", async () => {
    world = await startWorld(["abort-nested-main", "abort-nested-sub"]);
    const session = await client().createSession({
      onPermissionRequest: approveAll,
      mcpServers: { local: { command: process.execPath, args: [stdioServer], tools: ["*"] } },
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.send({ prompt: "nested wait" });
    const started = (id: string) => events.some((event) => event.type === "tool.execution_start" && event.data.toolCallId === id);
    await waitFor(() => started("call_sub_sleep") && started("call_mcp"), "the sub-agent's sleep and the MCP call to start", 30_000);
    const idle = new Promise<void>((resolve) => session.on("session.idle", () => resolve()));
    await session.abort();
    await idle;

    const idleIndex = events.findIndex((event) => event.type === "session.idle");
    const ids = ["call_task", "call_mcp", "call_sub_sleep"];
    for (const id of ids) {
      const done = completions(events).filter((event) => event.data.toolCallId === id);
      expect(done, id).toHaveLength(1);
      expect(events.indexOf(done[0]!)).toBeLessThan(idleIndex);
      expect(done[0]!.data.success).toBe(false);
      expect(done[0]!.data.error?.code).toBe("interrupted");
    }
    expect((completions(events).find((event) => event.data.toolCallId === "call_sub_sleep")?.data as { parentToolCallId?: string }).parentToolCallId).toBe("call_task");
    const stored = completions(await storedEvents("file", session.sessionId)).map((event) => event.data.toolCallId);
    expect(stored.sort()).toEqual([...ids].sort());

    await session.sendAndWait({ prompt: "carry on" });
    expect(resultsPerCall(world.model.requests.at(-1)?.body)).toEqual(new Map([["call_task", 1], ["call_mcp", 1]]));
  }, 60_000);
});

describe("runtime shutdown", () => {
  it("SIGTERM during a round: the runtime writes each started call's completion (the session was closed) before it exits", async () => {
    world = await startWorld(["abort-tool-round"]);
    const raw = new RawClient(world.env);
    const eventOf = (message: WireMessage) => (message.params as { event: SessionEvent }).event;
    const permissionFor = (toolCallId: string) => (message: WireMessage) =>
      message.method === "session.event" && eventOf(message).type === "permission.requested" && (eventOf(message).data as { permissionRequest: { toolCallId?: string } }).permissionRequest.toolCallId === toolCallId;
    try {
      const { sessionId } = (await raw.request("session.create", { requestPermission: true })).result as { sessionId: string };
      await raw.request("session.send", { sessionId, prompt: "run the slow round" });
      const sleepPermission = eventOf(await raw.waitFor(permissionFor("call_sleep"))) as Extract<SessionEvent, { type: "permission.requested" }>;
      await raw.request("session.permissions.handlePendingPermissionRequest", { sessionId, requestId: sleepPermission.data.requestId, result: { kind: "approved" } });
      // Asked once the sleep's permission is answered (one request at a time, in call order).
      await raw.waitFor(permissionFor("call_unapproved"));
      const exited = new Promise((resolve) => raw.child.once("exit", resolve));
      raw.child.kill("SIGTERM");
      await exited;

      const stored = await storedEvents("file", sessionId);
      const done = completions(stored);
      expect(done.map((event) => event.data.toolCallId).sort()).toEqual([...callIds].sort());
      const closed = { code: "interrupted", message: "Interrupted: the session was closed before the tool call finished." };
      expect(done.find((event) => event.data.toolCallId === "call_sleep")?.data.error).toEqual(closed);
      expect(done.find((event) => event.data.toolCallId === "call_unapproved")?.data.error).toEqual(closed);
      // No client provides slow_lookup here: it failed at once, as a missing tool.
      expect(done.find((event) => event.data.toolCallId === "call_client")?.data.success).toBe(false);
      expect(stored.findIndex((event) => event.type === "session.shutdown")).toBeGreaterThan(stored.indexOf(done.at(-1)!));
    } finally {
      await raw.close(true);
    }
  }, 60_000);
});
