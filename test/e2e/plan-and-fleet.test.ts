/**
 * Plan mode (plan file, exit-plan handshake) and fleet (parallel sub-agents with their events
 * attributed) through the official SDK; Tandem-specific answers go over the same connection.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { parseScript } from "@tandem/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, scriptsDir, startWorld, type TestWorld } from "../helpers/harness.js";
import { officialVariants } from "../helpers/official-client.js";

let world: TestWorld | undefined;
let copilot: CopilotClient | undefined;

afterEach(async () => {
  await copilot?.stop();
  await world?.dispose();
});

describe.each(officialVariants)("$sdk", ({ make }) => {
  type ChatBody = { messages: Array<{ role: string; content: string }>; tools?: Array<{ function: { name: string } }> };

  function rawCall(client: CopilotClient, method: string, params: Record<string, unknown>): Promise<unknown> {
    return (client as unknown as { connection: { sendRequest(method: string, params: unknown): Promise<unknown> } }).connection.sendRequest(method, params);
  }

  async function planSession(answer: { action: string; feedback?: string }) {
    world = await startWorld(["plan-mode"]);
    copilot = make(world.env);
    const client = copilot;
    const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approved" }) });
    await session.rpc.mode.set({ mode: "plan" });
    const events: SessionEvent[] = [];
    session.on((event) => {
      events.push(event);
      if (event.type === "exit_plan_mode.requested") {
        void rawCall(client, "session.exitPlanMode.handlePendingRequest", { sessionId: session.sessionId, requestId: event.data.requestId, ...answer });
      }
    });
    await session.sendAndWait({ prompt: "Plan how to fix the bug" });
    return { session, events };
  }

  it("saves the plan, asks to exit plan mode, and implements in the chosen mode", async () => {
    const { session, events } = await planSession({ action: "interactive" });
    const requested = eventsOf(events, "exit_plan_mode.requested")[0];
    expect(requested?.data).toMatchObject({
      summary: "Fix the bug in two steps",
      planContent: "# Plan\n1. Reproduce the bug\n2. Fix it and add a test\n",
      actions: ["interactive", "autopilot", "autopilot_fleet", "exit_only"],
      recommendedAction: "autopilot",
    });
    expect(events.some((event) => event.type === "exit_plan_mode.completed")).toBe(true);
    expect(eventsOf(events, "session.plan_changed")[0]?.data).toEqual({ operation: "create" });
    expect(await session.rpc.mode.get()).toEqual({ mode: "interactive" });
    expect(await session.rpc.plan.read()).toMatchObject({ exists: true, content: "# Plan\n1. Reproduce the bug\n2. Fix it and add a test\n" });
    const [first, second] = world!.model.requests.map((request) => request.body as ChatBody);
    expect(first?.tools?.map((tool) => tool.function.name)).toContain("exit_plan_mode");
    expect(second?.messages.at(-1)?.content).toContain("The user approved the plan. Implement it now.");
    expect(second?.tools?.map((tool) => tool.function.name) ?? []).not.toContain("exit_plan_mode");
    await session.rpc.plan.delete();
    expect(await session.rpc.plan.read()).toEqual({ exists: false, content: null, path: null });
  });

  it("stays in plan mode when the user asks for changes", async () => {
    const { session } = await planSession({ action: "revise", feedback: "add a regression test first" });
    expect(await session.rpc.mode.get()).toEqual({ mode: "plan" });
    const second = world!.model.requests[1]?.body as ChatBody;
    expect(second.messages.at(-1)?.content).toContain("The user added: add a regression test first");
  });

  it("runs a fleet of three sub-agents in parallel with their events attributed to each", async () => {
    world = await startWorld(["fleet", "fleet-part-a", "fleet-part-b", "fleet-part-c"]);
    copilot = make(world.env);
    const notes: string[] = [];
    const session = await copilot.createSession({
      onPermissionRequest: () => ({ kind: "approved" }),
      streaming: true,
      tools: [
        {
          name: "note",
          description: "Take a note",
          handler: async (args: { part: string }) => {
            notes.push(args.part);
            await new Promise((resolve) => setTimeout(resolve, 30));
            return `noted ${args.part}`;
          },
        },
      ],
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const idle = new Promise<void>((resolve) => session.on("session.idle", () => resolve()));
    expect(await rawCall(copilot, "session.fleet.start", { sessionId: session.sessionId, prompt: "Ship the release" })).toEqual({ started: true });
    await idle;
    const final = eventsOf(events, "assistant.message").filter((event) => !event.data.parentToolCallId).at(-1);
    expect(final?.data.content).toBe("All three parts are done: docs translated, tests fixed, changelog updated.");
    expect([...notes].sort()).toEqual(["a", "b", "c"]);

    const parts = { call_part_a: "a", call_part_b: "b", call_part_c: "c" } as const;
    for (const [toolCallId, part] of Object.entries(parts)) {
      const own = events.filter((event) => (event.data as { parentToolCallId?: string }).parentToolCallId === toolCallId);
      const text = eventsOf(own, "assistant.message_delta").map((event) => event.data.deltaContent).join("");
      expect(text, toolCallId).toBe(`Working on part ${part}.Part ${part} finished.`);
      expect(eventsOf(own, "tool.execution_complete")[0]?.data.result?.content).toBe(`noted ${part}`);
      const result = eventsOf(events, "tool.execution_complete").find((event) => event.data.toolCallId === toolCallId);
      expect(result?.data.result?.content).toBe(`Part ${part} finished.`);
    }
    // The three sub-agents ran at the same time: their events interleave.
    const owners = events
      .map((event) => (event.data as { parentToolCallId?: string }).parentToolCallId)
      .filter((owner): owner is string => owner !== undefined);
    const firstEnd = Math.min(...Object.keys(parts).map((id) => owners.lastIndexOf(id)));
    const started = new Set(owners.slice(0, firstEnd));
    expect(started.size).toBe(3);
    const user = eventsOf(events, "user.message")[0];
    expect(user?.data.content).toContain("Ship the release");
  });

  it("refuses writes and commands in plan mode without asking, and leaves the disk unchanged", async () => {
    world = await startWorld([]);
    const workdir = world.home;
    world.model.addScript(parseScript(readFileSync(join(scriptsDir, "plan-mode-refuses-writes.yaml"), "utf8").replaceAll("__WORKDIR__", workdir)));
    copilot = make(world.env);
    let asked = 0;
    const session = await copilot.createSession({ onPermissionRequest: () => (asked++, { kind: "approved" }), workingDirectory: workdir });
    await session.rpc.mode.set({ mode: "plan" });
    const before = readdirSync(workdir).sort();
    await session.sendAndWait({ prompt: "Change things" });
    expect(asked).toBe(0);
    expect(existsSync(join(workdir, "should-not-exist.txt"))).toBe(false);
    expect(existsSync(join(workdir, "also-not.txt"))).toBe(false);
    expect(readdirSync(workdir).sort()).toEqual(before);
    const tools = (world.model.requests[1]?.body as ChatBody).messages.filter((message) => message.role === "tool");
    expect(tools).toHaveLength(2);
    for (const tool of tools) expect(tool.content).toContain("The session is in plan mode");
  });
});
