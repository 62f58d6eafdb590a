/**
 * Leaving plan mode the way the official SDK 1.0.x does it: a client with `onExitPlanModeRequest`
 * is asked through the `exitPlanMode.request` callback (`{approved, selectedAction, feedback}`);
 * without one, the `exit_plan_mode.requested` event is answered with
 * `session.ui.handlePendingExitPlanMode`. Our SDK uses the callback too and still understands the
 * earlier `{ action }` answer.
 */
import { CopilotClient as TandemClient } from "@tandem/sdk";
import { CopilotClient as V1Client, RuntimeConnection, approveAll as v1ApproveAll, type SessionEvent } from "copilot-sdk-v1";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { startSuitePostgres, storeVariants } from "../helpers/stores.js";

let world: TestWorld | undefined;
/** Every test runs on the file store and on PostgreSQL (the plan is a session file there). */
const stores = storeVariants(await startSuitePostgres());
afterAll(() => stores.stop());
const stops: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await world?.dispose();
});

type ChatBody = { messages: Array<{ role: string; content: string }> };
const planPrompt = "Plan how to fix the bug";
const toolText = (index: number): string => (world?.model.requests[index]?.body as ChatBody).messages.at(-1)?.content ?? "";

function v1Client(env: Record<string, string>): V1Client {
  const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env, logLevel: "error" });
  stops.push(() => client.stop());
  return client;
}


describe.each(stores.variants)("$store store", (store) => {
  it.skipIf(Boolean(store.skipped))("asks a 1.0.x client through its onExitPlanModeRequest callback and implements in the chosen mode", async () => {
    world = await startWorld(["plan-mode"], await store.env());
    const requests: unknown[] = [];
    const session = await v1Client(world.env).createSession({
      onPermissionRequest: v1ApproveAll,
      onExitPlanModeRequest: (request) => {
        requests.push(request);
        return { approved: true, selectedAction: "interactive", feedback: "keep it small" };
      },
    });
    await session.rpc.mode.set({ mode: "plan" });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.sendAndWait({ prompt: planPrompt });
    expect(requests).toEqual([
      {
        summary: "Fix the bug in two steps",
        planContent: "# Plan\n1. Reproduce the bug\n2. Fix it and add a test\n",
        actions: ["interactive", "autopilot", "autopilot_fleet", "exit_only"],
        recommendedAction: "autopilot",
      },
    ]);
    const completed = events.find((event) => event.type === "exit_plan_mode.completed");
    expect(completed?.data).toMatchObject({ approved: true, selectedAction: "interactive", feedback: "keep it small" });
    expect(await session.rpc.mode.get()).toBe("interactive");
    expect(toolText(1)).toContain("The user approved the plan. Implement it now. The user added: keep it small");
  });

  it.skipIf(Boolean(store.skipped))("waits for session.ui.handlePendingExitPlanMode when no client registered a callback, and keeps planning when not approved", async () => {
    world = await startWorld(["plan-mode"], await store.env());
    const session = await v1Client(world.env).createSession({ onPermissionRequest: v1ApproveAll });
    await session.rpc.mode.set({ mode: "plan" });
    const answers: unknown[] = [];
    session.on("exit_plan_mode.requested", (event) => {
      void session.rpc.ui
        .handlePendingExitPlanMode({ requestId: event.data.requestId, response: { approved: false, feedback: "add a regression test first" } })
        .then((answer) => answers.push(answer));
    });
    await session.sendAndWait({ prompt: planPrompt });
    await waitFor(() => answers.length === 1, "the answer's result");
    expect(answers).toEqual([{ success: true }]);
    expect(await session.rpc.mode.get()).toBe("plan");
    expect(toolText(1)).toContain("The user wants the plan revised before leaving plan mode. The user added: add a regression test first");
  });

  it.skipIf(Boolean(store.skipped))("asks through our SDK's onExitPlanModeRequest, and still understands the earlier { action } answer", async () => {
    world = await startWorld(["plan-mode"], await store.env());
    const client = new TandemClient({ env: world.env, logLevel: "error" });
    stops.push(() => client.stop());
    const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approved" }), onExitPlanModeRequest: () => ({ action: "interactive" }) });
    await session.rpc.mode.set({ mode: "plan" });
    await session.sendAndWait({ prompt: planPrompt });
    expect(await session.rpc.mode.get()).toEqual({ mode: "interactive" });
    expect(toolText(1)).toContain("The user approved the plan. Implement it now.");
  });

  it.skipIf(Boolean(store.skipped))("keeps planning when our SDK's onExitPlanModeRequest handler throws, and tells the model why", async () => {
    world = await startWorld(["plan-mode"], await store.env());
    const client = new TandemClient({ env: world.env, logLevel: "error" });
    stops.push(() => client.stop());
    const session = await client.createSession({
      onPermissionRequest: () => ({ kind: "approved" }),
      onExitPlanModeRequest: () => {
        throw new Error("review UI crashed");
      },
    });
    await session.rpc.mode.set({ mode: "plan" });
    await session.sendAndWait({ prompt: planPrompt });
    expect(await session.rpc.mode.get()).toEqual({ mode: "plan" });
    expect(toolText(1)).toContain("The exit-plan-mode handler failed: review UI crashed");
  });
});
