/**
 * Slash commands sent while a turn runs wait for it: they queue behind it, in order with the
 * messages sent around them (`session.queue.pendingItems` lists them as `kind: "command"`), can be
 * removed like them (their `command.completed` follows at once), are dropped by an abort, and run
 * in their turn — `/model` and `/clear` never touch the running turn. 1.0.x's
 * `session.commands.invoke` of a command not allowed during a turn waits the same way.
 */
import { type CopilotClient, type CopilotSession, type SessionEvent } from "@github/copilot-sdk";
import type { CopilotSession as V1Session } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { clientVariants, officialV1Client, rawConnection } from "../helpers/official-client.js";

let world: TestWorld | undefined;
const clients: CopilotClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop().catch(() => undefined);
  await world?.dispose();
  world = undefined;
});

type Loose = { type: string; data: Record<string, unknown> };
type QueueItem = { id: string; messageId?: string; kind: string; displayText: string };
const typed = (events: SessionEvent[], type: string) => (events as unknown as Loose[]).filter((event) => event.type === type);

/** A session whose first turn runs `slow_job`, held until `release()`. */
async function openHeld(variant: (typeof clientVariants)[number], config: Record<string, unknown> = {}) {
  world ??= await startWorld(["slash-commands-queue", "slash-commands-queue-after"]);
  const client = variant.make(world.env);
  clients.push(client);
  let release: () => void = () => undefined;
  let jobStarted = false;
  const held = new Promise<void>((resolve) => (release = resolve));
  const session = await client.createSession({
    onPermissionRequest: variant.approveAll,
    tools: [{ name: "slow_job", description: "A slow job", parameters: { type: "object", properties: {} }, handler: async () => ((jobStarted = true), await held, "done") }],
    ...config,
  });
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  await session.send({ prompt: "start the job" });
  await waitFor(() => jobStarted, "the slow job to start");
  return { client, session, events, release };
}

/** `session.queue.*` through the client's own call when it has one, else its raw connection. */
function queueOf(client: CopilotClient, session: CopilotSession) {
  const own = (session.rpc as unknown as { queue?: Record<string, (params?: object) => Promise<unknown>> }).queue;
  const call = (method: string, params: object = {}) =>
    own ? own[method]!(params) : rawConnection(client).sendRequest(`session.queue.${method}`, { sessionId: session.sessionId, ...params });
  return {
    pendingItems: async () => ((await call("pendingItems")) as { items: QueueItem[] }).items,
    removeAt: async (id: string) => ((await call("removeAt", { id })) as { removed: boolean }).removed,
    removeMostRecent: async () => ((await call("removeMostRecent")) as { removed: boolean }).removed,
  };
}

const idleAfter = (events: SessionEvent[], count: number) => waitFor(() => eventsOf(events, "session.idle").length > count, "the session to go idle");

describe.each(clientVariants)("slash commands sent during a turn ($sdk)", (variant) => {
  it("wait behind the turn, in order with queued messages, then run: /model and /clear do not touch the running turn", async () => {
    const { client, session, events, release } = await openHeld(variant);
    const modelBefore = (await session.rpc.model.getCurrent()).modelId;
    await session.send({ prompt: "/model gpt-queued" });
    await session.send({ prompt: "/clear" });
    await session.send({ prompt: "after the commands" });

    const queued = typed(events, "command.queued");
    expect(queued.map((event) => event.data.command)).toEqual(["/model gpt-queued", "/clear"]);
    const items = await queueOf(client, session).pendingItems();
    expect(items.map((item) => [item.kind, item.displayText])).toEqual([
      ["command", "/model gpt-queued"],
      ["command", "/clear"],
      ["message", "after the commands"],
    ]);
    expect(items.slice(0, 2).map((item) => item.id)).toEqual(queued.map((event) => event.data.requestId));
    expect(items[0]!.messageId).toBeUndefined();
    // Nothing ran yet: the turn still holds the session.
    expect((await session.rpc.model.getCurrent()).modelId).toBe(modelBefore);
    expect(typed(events, "command.completed")).toEqual([]);
    expect(eventsOf(events, "session.snapshot_rewind")).toEqual([]);

    release();
    await waitFor(() => eventsOf(events, "assistant.message").some((event) => event.data.content === "Answered after the commands."), "the queued message's answer");
    await idleAfter(events, 0);
    const order = (events as unknown as Loose[])
      .map((event) => (event.type === "assistant.message" ? `reply:${String(event.data.content)}` : event.type === "user.message" ? `user:${String(event.data.content)}` : event.type))
      .filter((entry) => /^(reply:.|user:|session\.model_change|session\.snapshot_rewind|command\.completed|session\.idle)/.test(entry));
    expect(order.filter((entry) => entry !== "reply:")).toEqual([
      "user:start the job",
      "reply:Job finished.",
      "session.model_change",
      "command.completed",
      "session.snapshot_rewind",
      "command.completed",
      "user:after the commands",
      "reply:Answered after the commands.",
      "session.idle",
    ]);
    // The turn that ran during the commands' wait used the old model; the next one the new model, without the cleared history.
    const requests = world!.model.requests.map((request) => request.body as { model: string; messages: unknown[] });
    expect(requests.slice(0, 2).map((body) => body.model)).toEqual([modelBefore, modelBefore]);
    expect(requests.at(-1)!.model).toBe("gpt-queued");
    expect(JSON.stringify(requests.at(-1)!.messages)).not.toContain("start the job");
    expect(eventsOf(events, "session.warning")).toEqual([]);
    expect(await queueOf(client, session).pendingItems()).toEqual([]);
  });

  it("a queued command is removed like a message (its command.completed follows) and an abort drops the rest", async () => {
    const { client, session, events, release } = await openHeld(variant);
    await session.send({ prompt: "/plan" });
    await session.send({ prompt: "/model gpt-removed" });
    await session.send({ prompt: "/agent none" });
    const [plan, model, agent] = typed(events, "command.queued").map((event) => event.data.requestId as string);
    const queue = queueOf(client, session);
    expect(await queue.removeAt(plan!)).toBe(true);
    expect(await queue.removeAt(plan!)).toBe(false);
    expect(await queue.removeMostRecent()).toBe(true);
    await waitFor(() => typed(events, "command.completed").length === 2, "the removed commands to complete");
    expect(typed(events, "command.completed").map((event) => event.data.requestId)).toEqual([plan, agent]);
    expect((await queue.pendingItems()).map((item) => item.displayText)).toEqual(["/model gpt-removed"]);

    await session.abort();
    await waitFor(() => typed(events, "command.completed").length === 3, "the aborted command to complete");
    expect(typed(events, "command.completed")[2]!.data.requestId).toBe(model);
    release();
    await idleAfter(events, 0);
    // None of them ran.
    expect(eventsOf(events, "session.mode_changed")).toEqual([]);
    expect(eventsOf(events, "session.model_change")).toEqual([]);
    expect(await queue.pendingItems()).toEqual([]);
  });
});

describe.each(clientVariants.filter((variant) => variant.sdk !== "official SDK 0.2.0"))("an application's command sent during a turn ($sdk)", (variant) => {
  it("runs in the application after the turn; one the application answers before its turn leaves the queue unrun", async () => {
    const calls: string[] = [];
    const { client, session, events, release } = await openHeld(variant, {
      commands: [{ name: "deploy", description: "Deploys", handler: ({ command }: { command: string }) => void calls.push(command) }],
    });
    await session.send({ prompt: "/deploy now" });
    await session.send({ prompt: "/deploy early" });
    const [now, early] = typed(events, "command.queued").map((event) => event.data.requestId as string);
    expect((await queueOf(client, session).pendingItems()).map((item) => item.id)).toEqual([now, early]);
    // The event reference: the application ran "/deploy early" itself.
    const rpc = (session as unknown as V1Session).rpc;
    expect(await rpc.commands.respondToQueuedCommand({ requestId: early!, result: { handled: true } })).toEqual({ success: true });
    await waitFor(() => typed(events, "command.completed").length === 1, "the answered command to complete");
    expect(typed(events, "command.completed")[0]!.data.requestId).toBe(early);
    expect((await queueOf(client, session).pendingItems()).map((item) => item.id)).toEqual([now]);
    expect(calls).toEqual([]);

    release();
    await waitFor(() => typed(events, "command.completed").length === 2, "the queued command to run");
    await idleAfter(events, 0);
    expect(calls).toEqual(["/deploy now"]);
    const types = (events as unknown as Loose[]).map((event) => (event.type === "assistant.message" ? `reply:${String(event.data.content)}` : event.type));
    expect(types.indexOf("reply:Job finished.")).toBeLessThan(types.lastIndexOf("command.completed"));
    expect(eventsOf(events, "session.warning")).toEqual([]);
  });
});

describe("1.0.x's stopProcessingQueue", () => {
  it("an application that answers its command with stopProcessingQueue holds what waits until the next send", async () => {
    const variant = clientVariants.find((candidate) => candidate.make === officialV1Client)!;
    const { client, session, events, release } = await openHeld(variant, { commands: [{ name: "pause", handler: () => new Promise(() => undefined) }] });
    const modelBefore = (await session.rpc.model.getCurrent()).modelId;
    await session.send({ prompt: "/pause" });
    await session.send({ prompt: "/model gpt-after-pause" });
    const [pause] = typed(events, "command.queued").map((event) => event.data.requestId as string);
    release();
    await waitFor(() => typed(events, "command.execute").length === 1, "/pause to run in the application");
    const rpc = (session as unknown as V1Session).rpc;
    expect(await rpc.commands.respondToQueuedCommand({ requestId: pause!, result: { handled: true, stopProcessingQueue: true } })).toEqual({ success: true });
    await idleAfter(events, 0);
    expect((await queueOf(client, session).pendingItems()).map((item) => item.displayText)).toEqual(["/model gpt-after-pause"]);
    expect((await session.rpc.model.getCurrent()).modelId).toBe(modelBefore);

    // The next send lets the queue go on: what waited runs first.
    await session.send({ prompt: "/model gpt-final" });
    await waitFor(() => typed(events, "command.completed").length === 3, "the held and the new command to run");
    expect(eventsOf(events, "session.model_change").map((event) => event.data.newModel)).toEqual(["gpt-after-pause", "gpt-final"]);
  });
});

describe("a send to an idle session whose queue pauses again", () => {
  it("is answered when queued behind what the paused queue kept, not when that work is done", async () => {
    const variant = clientVariants.find((candidate) => candidate.make === officialV1Client)!;
    const { client, session, events, release } = await openHeld(variant, { commands: [{ name: "pause", handler: () => new Promise(() => undefined) }] });
    const rpc = (session as unknown as V1Session).rpc;
    await session.send({ prompt: "/pause" });
    await session.send({ prompt: "/pause" });
    release();
    await waitFor(() => typed(events, "command.execute").length === 1, "the first /pause to run in the application");
    const [first, second] = typed(events, "command.queued").map((event) => event.data.requestId as string);
    await rpc.commands.respondToQueuedCommand({ requestId: first!, result: { handled: true, stopProcessingQueue: true } });
    await idleAfter(events, 0);

    // The session is idle with the second /pause waiting; a message sent now waits behind it and
    // is answered at once, while the application has not answered that /pause.
    const messageId = await session.send({ prompt: "after the pauses" });
    expect(messageId).toEqual(expect.any(String));
    await waitFor(() => typed(events, "command.execute").length === 2, "the second /pause to run in the application");
    await rpc.commands.respondToQueuedCommand({ requestId: second!, result: { handled: true, stopProcessingQueue: true } });
    await idleAfter(events, 1);
    expect((await queueOf(client, session).pendingItems()).map((item) => item.displayText)).toEqual(["after the pauses"]);
    expect(eventsOf(events, "user.message").map((event) => event.data.content)).toEqual(["start the job"]);
  });
});

describe("a queued /plan with a task (@tandem/sdk)", () => {
  it("plans the task before the messages queued after it", async () => {
    const variant = clientVariants.find((candidate) => candidate.sdk === "@tandem/sdk")!;
    const { session, events, release } = await openHeld(variant);
    await session.send({ prompt: "/plan plan the release" });
    await session.send({ prompt: "after the plan" });
    release();
    await waitFor(() => eventsOf(events, "assistant.message").some((event) => event.data.content === "Answered after the plan."), "the last answer");
    expect(eventsOf(events, "user.message").map((event) => [event.data.content, event.data.agentMode])).toEqual([
      ["start the job", "interactive"],
      ["plan the release", "plan"],
      ["after the plan", "plan"],
    ]);
    expect(world!.model.requests.map((request) => request.expectationError)).toEqual(world!.model.requests.map(() => undefined));
  });
});

describe("session.commands.invoke during a turn (official SDK 1.0.x)", () => {
  it("runs a command allowed during a turn at once, and waits for the turn for the others", async () => {
    const variant = clientVariants.find((candidate) => candidate.make === officialV1Client)!;
    const { session, events, release } = await openHeld(variant);
    const v1 = session as unknown as V1Session;
    // /model may run during a turn (session.commands.list says so): it answers at once.
    expect(await v1.rpc.commands.invoke({ name: "model", input: "" })).toEqual({ kind: "text", text: expect.stringContaining("Current model") });
    let cleared: unknown;
    const clearing = v1.rpc.commands.invoke({ name: "clear", input: "" }).then((result) => (cleared = result));
    await waitFor(() => typed(events, "command.queued").length === 1, "/clear to be queued");
    const waiting = ((await v1.rpc.queue.pendingItems()) as { items: QueueItem[] }).items;
    expect(waiting.map((item) => [item.kind, item.displayText])).toEqual([["command", "/clear"]]);
    expect(cleared).toBeUndefined();
    expect(eventsOf(events, "session.snapshot_rewind")).toEqual([]);
    release();
    await clearing;
    expect(cleared).toEqual({ kind: "completed", message: expect.stringContaining("Cleared") });
    const rewind = (events as unknown as Loose[]).findIndex((event) => event.type === "session.snapshot_rewind");
    const reply = (events as unknown as Loose[]).findIndex((event) => event.type === "assistant.message" && event.data.content === "Job finished.");
    expect(reply).toBeGreaterThan(-1);
    expect(rewind).toBeGreaterThan(reply);
  });
});
