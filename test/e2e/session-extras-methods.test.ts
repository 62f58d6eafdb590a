/**
 * More session-scoped methods of the official SDK 1.0.x, through its typed `session.rpc.*` against
 * the built runtime and the testkit's model server: allow-all and pending permissions, tool
 * metadata, the SQL todo list, scheduled prompts, event-log interest and commands queued for the
 * application, large pastes, one-off questions, and the events left after a truncation.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient as V1Client, RuntimeConnection, approveAll, type CopilotSession, type SessionEvent } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { scriptsDir, startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { rawConnection } from "../helpers/official-client.js";

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  await world?.dispose();
  world = undefined;
});

type SessionConfig = Parameters<V1Client["createSession"]>[0];

/** Starts the model server and the runtime (through the official SDK 1.0.x) and opens a session. */
async function open(config: SessionConfig = { onPermissionRequest: approveAll }): Promise<{ client: V1Client; session: CopilotSession; events: SessionEvent[] }> {
  world = await startWorld([]);
  world.model.loadScriptFiles(join(scriptsDir, "session-state-methods.yaml"));
  const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world.env, logLevel: "error" });
  cleanups.push(() => client.stop());
  const session = await client.createSession(config);
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  return { client, session, events };
}

/** Polls `check` until it holds (the runtime works in the background between the calls). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > 10_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The JSON-RPC error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<{ code?: number; message: string }> {
  return promise.then(
    () => ({ message: "resolved" }),
    (error: { code?: number; message: string }) => ({ code: error.code, message: error.message }),
  );
}

describe("session extras", () => {
  it("permissions: allow-all on and off, waiting requests listed with what they ask, remembered approvals forgotten", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    const { client, session, events } = await open({
      onPermissionRequest: async () => {
        asked++;
        await held;
        return { kind: "approve-for-session", approval: { kind: "custom-tool", toolName: "save_note" } } as never;
      },
      tools: [{ name: "save_note", description: "Saves a note", parameters: { type: "object", properties: { text: { type: "string" } } }, handler: () => "saved" }],
    });
    // Not in every 1.0.x SDK's typed wrappers: sent as the protocol names them.
    const connection = rawConnection(client);
    const getAllowAll = () => connection.sendRequest("session.permissions.getAllowAll", { sessionId: session.sessionId });
    const setAllowAll = (params: Record<string, unknown>) => connection.sendRequest("session.permissions.setAllowAll", { sessionId: session.sessionId, ...params });
    expect(await getAllowAll()).toEqual({ enabled: false, mode: "off" });
    expect(await setAllowAll({ enabled: true })).toEqual({ success: true, enabled: true, mode: "on" });
    expect(await getAllowAll()).toEqual({ enabled: true, mode: "on" });
    expect((await rejection(setAllowAll({ mode: "auto" }))).code).toBe(-32005);
    expect(await setAllowAll({ mode: "off" })).toEqual({ success: true, enabled: false, mode: "off" });
    expect(events.filter((event) => event.type === "session.permissions_changed").map((event) => event.data.mode)).toEqual(["allow-all", "manual"]);

    const done = session.sendAndWait({ prompt: "Please write a note." });
    await waitFor(() => asked === 1, "the permission request");
    const { items } = await session.rpc.permissions.pendingRequests();
    expect(items).toEqual([expect.objectContaining({ request: expect.objectContaining({ kind: "custom-tool", toolName: "save_note" }) })]);
    release();
    expect((await done)?.data.content).toBe("Written.");
    expect(await session.rpc.permissions.pendingRequests()).toEqual({ items: [] });

    // The approval was remembered for the session; after the reset the next call asks again.
    expect(await session.rpc.permissions.resetSessionApprovals({})).toEqual({ success: true });
    expect((await session.sendAndWait({ prompt: "Please write a note again." }))?.data.content).toBe("Written again.");
    expect(asked).toBe(2);
  });

  it("tools: the offered tools' metadata; sub-agent settings choose the sub-agents' model until cleared; plugins reload", async () => {
    const { session } = await open({ onPermissionRequest: approveAll, model: "gpt-4.1" });
    await session.rpc.tools.initializeAndValidate();
    const { tools } = await session.rpc.tools.getCurrentMetadata();
    const sql = tools?.find((tool) => tool.name === "sql");
    expect(sql?.description).toMatch(/todo list/);
    expect(sql?.input_schema).toMatchObject({ type: "object", properties: { query: expect.anything() } });
    const helperModels = () => world!.model.requests.filter((request) => request.scriptName === "session-state-helper").map((request) => (request.body as { model: string }).model);
    expect(await session.rpc.tools.updateSubagentSettings({ subagents: { agents: { "general-purpose": { model: "claude-sonnet-4" } } } })).toEqual({});
    expect((await session.sendAndWait({ prompt: "Delegate the greeting." }))?.data.content).toBe("Delegated.");
    expect(helperModels()).toEqual(["claude-sonnet-4"]);
    expect(await session.rpc.tools.updateSubagentSettings({ subagents: null })).toEqual({});
    expect((await session.sendAndWait({ prompt: "Delegate the greeting again." }))?.data.content).toBe("Delegated again.");
    expect(helperModels()).toEqual(["claude-sonnet-4", "gpt-4.1"]);
    await session.rpc.plugins.reload({ reloadMcp: true, reloadCustomAgents: true });
    expect(await session.rpc.plugins.list()).toEqual({ plugins: [] });
  });

  it("todos: the sql tool writes the prompted todo tables in one script; session.todos_changed fires and the rows and dependencies are readable", async () => {
    const { session, events } = await open();
    expect(await session.rpc.plan.readSqlTodos()).toEqual({ rows: [] });
    expect(existsSync(join(world!.home, "session-state", session.sessionId, "session.db"))).toBe(false);

    await session.sendAndWait({ prompt: "Write my todo list." });
    expect(events.some((event) => event.type === "session.todos_changed")).toBe(true);
    const toolResult = world!.model.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> };
    expect(toolResult.messages.find((message) => message.role === "tool")?.content).toBe(
      "Executed 3 statement(s):\n\n1. INSERT\n   1 row(s) inserted. Last inserted row ID: 1.\n\n2. INSERT\n   1 row(s) inserted. Last inserted row ID: 2.\n\n3. INSERT\n   1 row(s) inserted. Last inserted row ID: 1.",
    );
    const { rows, dependencies } = await session.rpc.plan.readSqlTodosWithDependencies();
    expect(rows).toEqual([
      { id: "alpha", title: "First todo", status: "pending" },
      { id: "beta", title: "Second todo", status: "done" },
    ]);
    expect(dependencies).toEqual([{ todoId: "beta", dependsOn: "alpha" }]);
    expect((await session.rpc.plan.readSqlTodos()).rows.map((row) => row.id)).toEqual(["alpha", "beta"]);
  });

  it("schedule: a prompt sent after its interval; unknown ids stop nothing; a recurring one stops", async () => {
    const { client, session, events } = await open();
    const connection = rawConnection(client);
    const add = (params: Record<string, unknown>) => connection.sendRequest("session.schedule.add", { sessionId: session.sessionId, ...params }) as Promise<{ entry: { id: number; nextRunAt: string } }>;
    expect(await session.rpc.schedule.list()).toEqual({ entries: [] });
    expect(await session.rpc.schedule.stop({ id: 12345 })).toEqual({});
    await expect(add({ interval: "soon", prompt: "x" })).rejects.toThrow(/Unreadable interval/);

    const recurring = await add({ interval: "1h", prompt: "Hourly check", recurring: true });
    const once = await add({ interval: "1s", prompt: "Scheduled hello" });
    expect((await session.rpc.schedule.list()).entries.map((entry) => entry.prompt)).toEqual(["Hourly check", "Scheduled hello"]);
    await waitFor(() => events.some((event) => event.type === "assistant.message" && event.data.content === "Plain answer."), "the scheduled prompt's answer");
    expect(events.find((event) => event.type === "user.message")?.data.content).toBe("Scheduled hello");
    expect((await session.rpc.schedule.list()).entries.map((entry) => entry.id)).toEqual([recurring.entry.id]);
    expect(once.entry.id).not.toBe(recurring.entry.id);
    expect((await session.rpc.schedule.stop({ id: recurring.entry.id })).entry).toMatchObject({ prompt: "Hourly check", recurring: true, intervalMs: 3_600_000 });
    expect(await session.rpc.schedule.list()).toEqual({ entries: [] });
  });

  it("event-log interest: idempotent release; with interest in command.queued an unknown command waits for the application", async () => {
    const { session, events } = await open();
    // Nobody watches command.queued: an unknown command is queued and fails at its turn, saying so.
    const unknownWarnings = () => events.filter((event) => event.type === "session.warning" && String(event.data.message).includes("deploy-preview")).length;
    expect(await session.rpc.commands.enqueue({ command: "/deploy-preview" })).toEqual({ queued: true });
    await waitFor(() => unknownWarnings() === 1, "the unknown command's warning");

    const interest = await session.rpc.eventLog.registerInterest({ eventType: "command.queued" });
    expect(interest.handle).toMatch(/\S/);
    const since = events.length;
    const queuedSince = () => events.slice(since).filter((event) => event.type === "command.queued");
    expect(await session.rpc.commands.enqueue({ command: "/deploy-preview now" })).toEqual({ queued: true });
    expect(await session.rpc.commands.enqueue({ command: "/deploy-second" })).toEqual({ queued: true });
    await waitFor(() => queuedSince().length === 2, "two command.queued events");
    const first = queuedSince()[0];
    expect(first?.data.command).toBe("/deploy-preview now");
    // The first runs (it waits for the application); the second waits in the queue behind it.
    const pending = async () => (await session.rpc.queue.pendingItems()).items.map((item) => item.displayText);
    await until(async () => JSON.stringify(await pending()) === JSON.stringify(["/deploy-second"]), "only the second command in the queue");
    expect((await session.rpc.queue.removeMostRecent()).removed).toBe(true);
    expect(await session.rpc.commands.respondToQueuedCommand({ requestId: first!.data.requestId, result: { handled: true } })).toEqual({ success: true });
    await waitFor(() => events.some((event) => event.type === "command.completed" && event.data.requestId === first!.data.requestId), "command.completed");

    expect(await session.rpc.eventLog.releaseInterest({ handle: interest.handle })).toEqual({ success: true });
    expect(await session.rpc.eventLog.releaseInterest({ handle: interest.handle })).toEqual({ success: true });
    expect(await session.rpc.commands.enqueue({ command: "/deploy-preview" })).toEqual({ queued: true });
    await waitFor(() => unknownWarnings() === 2, "the unknown command's warning once the interest is released");
  });

  it("a large paste becomes a workspace file; an ephemeral question is answered outside the conversation", async () => {
    const { session, events } = await open();
    const content = "Large paste payload 🚀\n".repeat(512);
    const { saved } = await session.rpc.workspaces.saveLargePaste({ content });
    expect(saved?.sizeBytes).toBe(Buffer.byteLength(content, "utf8"));
    expect(readFileSync(saved!.filePath, "utf8")).toBe(content);
    expect((await session.rpc.workspaces.readFile({ path: saved!.filename })).content).toBe(content);
    expect(events.some((event) => event.type === "session.workspace_file_changed" && event.data.path === saved!.filename)).toBe(true);
    expect(await session.rpc.workspaces.saveLargePaste({ content: "" })).toEqual({ saved: null });

    const { answer } = await session.rpc.ui.ephemeralQuery({ question: "In one word, what is the primary color of a clear daytime sky?" });
    expect(answer).toBe("Blue.");
    const asked = world!.model.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }>; tools?: unknown[] };
    expect(asked.messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(asked.tools ?? []).toEqual([]);
    expect((await session.getEvents()).some((event) => event.type === "user.message")).toBe(false);
    expect((await session.rpc.usage.getMetrics()).totalApiDurationMs).toBeGreaterThan(0);
  });

  it("truncate: the removed events leave getMessages; the snapshot_rewind marker says how many", async () => {
    const { session } = await open();
    await session.sendAndWait({ prompt: "First question" });
    await session.sendAndWait({ prompt: "Second question" });
    const before = await session.getEvents();
    const second = before.find((event) => event.type === "user.message" && event.data.content === "Second question");
    const { eventsRemoved } = await session.rpc.history.truncate({ eventId: second!.id });
    const after = await session.getEvents();
    expect(after.some((event) => event.id === second!.id)).toBe(false);
    expect(after.filter((event) => event.type === "user.message").map((event) => event.data.content)).toEqual(["First question"]);
    const marker = after.find((event) => event.type === "session.snapshot_rewind");
    expect(marker?.data).toEqual({ eventsRemoved, upToEventId: second!.id });
    expect(after.length).toBe(before.length - eventsRemoved + 1);
  });
});
