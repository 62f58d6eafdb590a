/**
 * The session API of the current official SDK (1.0.x), through its typed `session.rpc.*` wrappers
 * and through ours: permission approvals remembered for the session, approve-all, the session's
 * name, the pending-message queue, the event log by cursor, forking, option updates and
 * workspace-file events. What is persisted survives a runtime restart and a resume.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient as TandemClient } from "@tandem/sdk";
import { CopilotClient as OfficialV1Client, RuntimeConnection } from "copilot-sdk-v1";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { startSuitePostgres, storeVariants } from "../helpers/stores.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- the two SDKs' session types differ; the tests use what both share. */
type AnyEvent = { type: string; id: string; data: any; ephemeral?: boolean };
interface AnySession {
  readonly sessionId: string;
  readonly rpc: any;
  on(handler: (event: AnyEvent) => void): () => void;
  send(options: { prompt: string }): Promise<string>;
  sendAndWait(options: { prompt: string }, timeout?: number): Promise<AnyEvent | undefined>;
  /** 0.2.0 and ours. */
  getMessages?(): Promise<AnyEvent[]>;
  /** 1.0.x. */
  getEvents?(): Promise<AnyEvent[]>;
}
interface AnyClient {
  readonly rpc: any;
  createSession(config: Record<string, unknown>): Promise<AnySession>;
  resumeSession(sessionId: string, config: Record<string, unknown>): Promise<AnySession>;
  stop(): Promise<unknown>;
}

const variants: Array<{ sdk: string; make: (env: Record<string, string>) => AnyClient }> = [
  {
    sdk: "official SDK 1.0.x",
    make: (env) => new OfficialV1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin, env }), logLevel: "error" }) as unknown as AnyClient,
  },
  { sdk: "@tandem/sdk", make: (env) => new TandemClient({ env, logLevel: "error" }) as unknown as AnyClient },
];

let world: TestWorld | undefined;
const clients: AnyClient[] = [];
/** Every test runs on the file store and on PostgreSQL. */
const stores = storeVariants(await startSuitePostgres());
afterAll(() => stores.stop());

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop().catch(() => undefined);
  await world?.dispose();
  world = undefined;
});

/** The session's events (`session.getMessages`), by either SDK's name for it. */
function eventsOf(session: AnySession): Promise<AnyEvent[]> {
  return session.getEvents ? session.getEvents() : session.getMessages!();
}

const weatherParameters = { type: "object", properties: { city: { type: "string" } } };

describe.each(stores.variants)("$store store", (store) => {
  describe.skipIf(store.skipped).each(variants)("$sdk", ({ make }) => {
    function client(): AnyClient {
      const made = make(world!.env);
      clients.push(made);
      return made;
    }

    /** Stops the runtime (the client spawned it) and opens the session again with a new one. */
    async function restartAndResume(previous: AnyClient, sessionId: string, config: Record<string, unknown>): Promise<{ client: AnyClient; session: AnySession }> {
      await previous.stop();
      clients.splice(clients.indexOf(previous), 1);
      const next = client();
      return { client: next, session: await next.resumeSession(sessionId, config) };
    }

    function recorder(session: AnySession): AnyEvent[] {
      const events: AnyEvent[] = [];
      session.on((event) => events.push(event));
      return events;
    }

    it("approve-for-session with a custom-tool scope is remembered: asked once, the tool runs in both rounds", async () => {
      world = await startWorld(["session-api-tools"], await store.env());
      const asked: unknown[] = [];
      const runs: string[] = [];
      const session = await client().createSession({
        onPermissionRequest: (request: unknown) => {
          asked.push(request);
          return { kind: "approve-for-session", approval: { kind: "custom-tool", toolName: "get_weather" } };
        },
        tools: [{ name: "get_weather", description: "Weather", parameters: weatherParameters, handler: (args: { city: string }) => (runs.push(args.city), "sunny") }],
      });
      const events = recorder(session);
      const reply = await session.sendAndWait({ prompt: "weather twice please" }, 20_000);
      expect(reply?.data.content).toBe("Both looked up.");
      expect(runs).toEqual(["Oslo", "Bergen"]);
      expect(asked).toHaveLength(1);
      const completions = events.filter((event) => event.type === "permission.completed").map((event) => event.data);
      expect(completions.at(-1)).toMatchObject({ result: { kind: "approved" }, decisionSource: "authorization_carry_forward" });
    });

    it("setApproveAll approves without asking (permissions_changed, completions from host policy), and stays on after a restart and resume", async () => {
      world = await startWorld(["session-api-tools"], await store.env());
      const asked: unknown[] = [];
      const runs: string[] = [];
      const config = {
        onPermissionRequest: (request: unknown) => {
          asked.push(request);
          return { kind: "reject", feedback: "ask me not" };
        },
        tools: [{ name: "get_weather", description: "Weather", parameters: weatherParameters, handler: (args: { city: string }) => (runs.push(args.city), "sunny") }],
      };
      const first = client();
      const session = await first.createSession(config);
      const events = recorder(session);
      expect(await session.rpc.permissions.setApproveAll({ enabled: true })).toEqual({ success: true });
      expect(events.find((event) => event.type === "session.permissions_changed")?.data).toEqual({ previousMode: "manual", mode: "allow-all" });
      await session.sendAndWait({ prompt: "weather twice please" }, 20_000);
      expect(asked).toHaveLength(0);
      expect(runs).toEqual(["Oslo", "Bergen"]);
      const completions = events.filter((event) => event.type === "permission.completed");
      expect(completions.map((event) => event.data.decisionSource)).toEqual(["host_policy", "host_policy"]);

      const { session: resumed } = await restartAndResume(first, session.sessionId, config);
      const reply = await resumed.sendAndWait({ prompt: "and once more" }, 20_000);
      expect(reply?.data.content).toBe("Looked up again.");
      expect(asked).toHaveLength(0);
      expect(runs).toEqual(["Oslo", "Bergen", "Tromsø"]);

      // Off again: the next request asks.
      await resumed.rpc.permissions.setApproveAll({ enabled: false });
      expect(await resumed.rpc.permissions.configure({ approveAllToolPermissionRequests: false })).toEqual({ success: true });
      // Rules not in the policy's shape are refused as invalid; content-exclusion policies are not available.
      await expect(resumed.rpc.permissions.configure({ rules: { allow: [] } })).rejects.toThrow(/Invalid params for session.permissions.configure/);
      await expect(resumed.rpc.permissions.configure({ additionalContentExclusionPolicies: [] })).rejects.toThrow(/additionalContentExclusionPolicies is not available/);
    });

    it("session.name: get (the automatic title, then the set name), title_changed, persisted across a restart", async () => {
      world = await startWorld(["session-api-chat"], await store.env());
      const first = client();
      const session = await first.createSession({ onPermissionRequest: () => ({ kind: "approve-once" }) });
      expect(await session.rpc.name.get()).toEqual({ name: null });
      await session.sendAndWait({ prompt: "chat about names" }, 20_000);
      expect(await session.rpc.name.get()).toEqual({ name: "chat about names" });
      const events = recorder(session);
      await session.rpc.name.set({ name: "  Release planning  " });
      expect(await session.rpc.name.get()).toEqual({ name: "Release planning" });
      expect(events.filter((event) => event.type === "session.title_changed").map((event) => event.data.title)).toEqual(["Release planning"]);
      await expect(session.rpc.name.set({ name: "   " })).rejects.toThrow(/name is empty/);

      const { session: resumed } = await restartAndResume(first, session.sessionId, { onPermissionRequest: () => ({ kind: "approve-once" }) });
      expect(await resumed.rpc.name.get()).toEqual({ name: "Release planning" });
      if (store.store === "file") {
        const workspace = readFileSync(join(world.home, "session-state", session.sessionId, "workspace.yaml"), "utf8");
        expect(workspace).toContain('name: "Release planning"');
      } else {
        expect(await stores.query("SELECT name FROM sessions WHERE id = $1", [session.sessionId])).toEqual([{ name: "Release planning" }]);
      }
    });

    it("session.queue: lists queued messages, removes one by id, and pending_messages.modified follows each change", async () => {
      world = await startWorld(["session-api-queue"], await store.env());
      let release: () => void = () => undefined;
      let jobStarted = false;
      const held = new Promise<void>((resolve) => (release = resolve));
      const session = await client().createSession({
        onPermissionRequest: () => ({ kind: "approve-once" }),
        tools: [{ name: "slow_job", description: "A slow job", parameters: { type: "object", properties: {} }, handler: async () => ((jobStarted = true), await held, "done") }],
      });
      const events = recorder(session);
      await session.send({ prompt: "start the job" });
      await waitFor(() => jobStarted, "the slow job to start");
      await session.send({ prompt: "drop me" });
      await session.send({ prompt: "keep me" });
      const { items, steeringMessages } = await session.rpc.queue.pendingItems();
      expect(items.map((item: { displayText: string; kind: string }) => [item.kind, item.displayText])).toEqual([
        ["message", "drop me"],
        ["message", "keep me"],
      ]);
      expect(steeringMessages).toEqual([]);
      const modifiedBefore = events.filter((event) => event.type === "pending_messages.modified").length;
      expect(await session.rpc.queue.removeAt({ id: items[0].id })).toEqual({ removed: true });
      expect(await session.rpc.queue.removeAt({ id: items[0].id })).toEqual({ removed: false });
      expect(events.filter((event) => event.type === "pending_messages.modified").length).toBe(modifiedBefore + 1);
      expect((await session.rpc.queue.pendingItems()).items.map((item: { displayText: string }) => item.displayText)).toEqual(["keep me"]);

      const idle = new Promise<void>((resolve) => session.on((event) => event.type === "session.idle" && resolve()));
      release();
      await idle;
      const userMessages = (await eventsOf(session)).filter((event) => event.type === "user.message").map((event) => event.data.content);
      expect(userMessages).toEqual(["start the job", "keep me"]);
      expect(await session.rpc.queue.removeMostRecent()).toEqual({ removed: false });
    });

    it("session.eventLog: bounded forward pages cover the persisted history, tail-first pages end with it, and a tail cursor works after a restart", async () => {
      world = await startWorld(["session-api-chat"], await store.env());
      const first = client();
      const session = await first.createSession({ onPermissionRequest: () => ({ kind: "approve-once" }) });
      await session.sendAndWait({ prompt: "chat about logs" }, 20_000);
      await session.sendAndWait({ prompt: "second message" }, 20_000);
      const persisted = (await eventsOf(session)).filter((event) => !event.ephemeral).map((event) => event.id);

      const paged: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; ; pages++) {
        expect(pages).toBeLessThan(50);
        const page = await session.rpc.eventLog.read({ max: 3, ...(cursor ? { cursor } : {}) });
        expect(page.events.length).toBeLessThanOrEqual(3);
        expect(page.cursorStatus).toBe("ok");
        paged.push(...page.events.map((event: AnyEvent) => event.id));
        cursor = page.cursor;
        if (!page.hasMore) break;
      }
      expect(paged).toEqual(persisted);

      const newest = await session.rpc.eventLog.read({ direction: "backward", max: 2 });
      expect(newest.events.map((event: AnyEvent) => event.id)).toEqual(persisted.slice(-2));
      expect(newest.hasMore).toBe(true);
      const older = await session.rpc.eventLog.read({ direction: "backward", max: 2, cursor: newest.cursor });
      expect(older.events.map((event: AnyEvent) => event.id)).toEqual(persisted.slice(-4, -2));

      const onlyUsers = await session.rpc.eventLog.read({ types: ["user.message"] });
      expect(onlyUsers.events.map((event: AnyEvent) => event.data.content)).toEqual(["chat about logs", "second message"]);

      const { cursor: tail } = await session.rpc.eventLog.tail();
      expect((await session.rpc.eventLog.read({ cursor: tail })).events).toEqual([]);
      await expect(session.rpc.eventLog.read({ cursor: "not a cursor" })).rejects.toThrow(/Invalid event log cursor/);

      const { session: resumed } = await restartAndResume(first, session.sessionId, { onPermissionRequest: () => ({ kind: "approve-once" }) });
      await resumed.sendAndWait({ prompt: "third message" }, 20_000);
      const after = await resumed.rpc.eventLog.read({ cursor: tail });
      expect(after.cursorStatus).toBe("ok");
      const types = after.events.map((event: AnyEvent) => event.type);
      expect(types.slice(0, 2)).toEqual(["session.shutdown", "session.resume"]);
      expect(after.events.find((event: AnyEvent) => event.type === "user.message")?.data.content).toBe("third message");

      // At the tail, a read with waitMs waits for the next events (ephemeral ones included).
      const { cursor: end } = await resumed.rpc.eventLog.tail();
      const waiting = resumed.rpc.eventLog.read({ cursor: end, waitMs: 10_000 });
      let answered = false;
      void waiting.then(() => (answered = true));
      // A request sent after the read is answered after the read was taken up: the read is waiting.
      await resumed.rpc.eventLog.tail();
      expect(answered).toBe(false);
      await resumed.rpc.name.set({ name: "waited for" });
      const woke = await waiting;
      expect(woke.events.map((event: AnyEvent) => event.type)).toContain("session.title_changed");
    });

    it("sessions.fork: a new session with the history before the chosen event, its own name, resumable; the source is unchanged", async () => {
      world = await startWorld(["session-api-chat"], await store.env());
      const fresh = client();
      const session = await fresh.createSession({ onPermissionRequest: () => ({ kind: "approve-once" }) });
      await session.sendAndWait({ prompt: "chat about forks" }, 20_000);
      await session.sendAndWait({ prompt: "the road not taken" }, 20_000);
      const source = await eventsOf(session);
      const cut = source.find((event) => event.type === "user.message" && event.data.content === "the road not taken")!;

      const forked = await fresh.rpc.sessions.fork({ sessionId: session.sessionId, toEventId: cut.id, name: "Other road" });
      expect(forked.name).toBe("Other road");
      expect(forked.sessionId).not.toBe(session.sessionId);
      await expect(fresh.rpc.sessions.fork({ sessionId: session.sessionId, toEventId: "no-such-event" })).rejects.toThrow(/Event no-such-event not found/);

      const fork = await fresh.resumeSession(forked.sessionId, { onPermissionRequest: () => ({ kind: "approve-once" }) });
      expect(await fork.rpc.name.get()).toEqual({ name: "Other road" });
      const reply = await fork.sendAndWait({ prompt: "a different road" }, 20_000);
      expect(reply?.data.content).toBe("Second answer.");
      const forkPrompts = (await eventsOf(fork)).filter((event) => event.type === "user.message").map((event) => event.data.content);
      expect(forkPrompts).toEqual(["chat about forks", "a different road"]);
      const sourcePrompts = (await eventsOf(session)).filter((event) => event.type === "user.message").map((event) => event.data.content);
      expect(sourcePrompts).toEqual(["chat about forks", "the road not taken"]);
    });

    it("session.options.update switches the model and narrows the tools; workspaces.createFile emits workspace_file_changed", async () => {
      world = await startWorld(["session-api-chat"], await store.env());
      const session = await client().createSession({ onPermissionRequest: () => ({ kind: "approve-once" }) });
      const events = recorder(session);
      expect(await session.rpc.options.update({ model: "gpt-other", availableTools: ["view"], clientName: "tests" })).toEqual({ success: true });
      expect(await session.rpc.model.getCurrent()).toMatchObject({ modelId: "gpt-other" });
      expect(events.find((event) => event.type === "session.model_change")?.data).toMatchObject({ newModel: "gpt-other" });
      await session.sendAndWait({ prompt: "chat about options" }, 20_000);
      const body = world.model.requests.at(-1)!.body as { model: string; tools: Array<{ function: { name: string } }> };
      expect(body.model).toBe("gpt-other");
      expect(body.tools.map((tool) => tool.function.name)).toEqual(["view"]);

      await session.rpc.workspaces.createFile({ path: "notes/todo.md", content: "one" });
      await session.rpc.workspaces.createFile({ path: "notes/todo.md", content: "two" });
      expect(events.filter((event) => event.type === "session.workspace_file_changed").map((event) => event.data)).toEqual([
        { operation: "create", path: "notes/todo.md" },
        { operation: "update", path: "notes/todo.md" },
      ]);
      expect(await session.rpc.workspaces.readFile({ path: "notes/todo.md" })).toEqual({ content: "two" });
    });
  });
});
