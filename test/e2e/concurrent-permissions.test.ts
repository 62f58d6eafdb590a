/**
 * Permission requests of parallel tool calls, through the official SDK 1.0.x against the built
 * `tandem`: every call of a round asks as soon as it reaches its request, so all of them are open
 * at once; each answer goes to its own call whatever order the answers come in; an abort cancels
 * every open request. (A 0.2.0 client keeps one request at a time, in call order: see
 * `reference-conform.test.ts`.)
 */
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseScript } from "@tandem/testkit";
import type { CopilotClient as V1Client, PermissionRequest, PermissionRequestResult, SessionEvent } from "copilot-sdk-v1";
import { describe, expect, it } from "vitest";
import { scriptsDir, waitFor, type TestWorld } from "../helpers/harness.js";
import { officialClientFixture, officialV1Client } from "../helpers/official-client.js";

const fixture = officialClientFixture(officialV1Client);
const calls = ["call_view_1", "call_bash_1", "call_glob_1"];

/** A world with the "permission-order" script (view, bash and glob in one round) over a fresh folder. */
async function threeCallWorld(): Promise<{ world: TestWorld; workdir: string }> {
  const world = await fixture.startWorld([]);
  const workdir = realpathSync(world.home);
  const path = join(scriptsDir, "permission-order.yaml");
  world.model.addScript(parseScript(readFileSync(path, "utf8").replaceAll("__WORKDIR__", workdir), path));
  writeFileSync(join(workdir, "data.txt"), "one\n");
  return { world, workdir };
}

/** A permission handler that holds every request until `answer(toolCallId, result)` is called for it. */
function heldPermissions(): {
  asked: PermissionRequest[];
  handler: (request: PermissionRequest) => Promise<PermissionRequestResult>;
  answer(toolCallId: string, result: PermissionRequestResult): void;
} {
  const asked: PermissionRequest[] = [];
  const answers = new Map<string, (result: PermissionRequestResult) => void>();
  return {
    asked,
    handler: (request) =>
      new Promise((resolve) => {
        asked.push(request);
        answers.set(String(request.toolCallId), resolve);
      }),
    answer: (toolCallId, result) => answers.get(toolCallId)?.(result),
  };
}

describe("permission requests of one round (official SDK 1.0.x)", () => {
  it("are all open at once, and each answer, in any order, decides its own call", async () => {
    const { workdir } = await threeCallWorld();
    const permissions = heldPermissions();
    const client = fixture.client() as unknown as V1Client;
    const session = await client.createSession({ workingDirectory: workdir, onPermissionRequest: permissions.handler });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));

    const reply = session.sendAndWait({ prompt: "Do three things" }, 60_000);
    // No request is answered yet: a runtime asking one at a time would never get past the first.
    await waitFor(() => permissions.asked.length === 3, "all three permission requests", 30_000);
    expect(permissions.asked.map((request) => request.toolCallId).sort()).toEqual([...calls].sort());
    const open = await session.rpc.permissions.pendingRequests();
    expect(open.items.map((item) => item.request.toolCallId).sort()).toEqual([...calls].sort());

    // Answered last call first; the shell command is refused, the other two approved.
    permissions.answer("call_glob_1", { kind: "approve-once" });
    permissions.answer("call_bash_1", { kind: "user-not-available" });
    permissions.answer("call_view_1", { kind: "approve-once" });
    expect((await reply)?.data.content).toBe("All three are done.");

    const completions = new Map(
      events.flatMap((event) => (event.type === "tool.execution_complete" ? [[event.data.toolCallId, event.data] as const] : [])),
    );
    expect(completions.get("call_view_1")?.success).toBe(true);
    expect(completions.get("call_glob_1")?.success).toBe(true);
    expect(completions.get("call_bash_1")?.success).toBe(false);
    expect(completions.get("call_bash_1")?.error?.message).toContain("Permission denied");
    // One request and one completion per call: nothing lost, nothing asked twice.
    expect(events.filter((event) => event.type === "permission.requested")).toHaveLength(3);
    expect(events.filter((event) => event.type === "permission.completed")).toHaveLength(3);
    expect((await session.rpc.permissions.pendingRequests()).items).toEqual([]);
  });

  it("are all cancelled by an abort: no request stays open and no call runs", async () => {
    const { workdir } = await threeCallWorld();
    const permissions = heldPermissions();
    const client = fixture.client() as unknown as V1Client;
    const session = await client.createSession({ workingDirectory: workdir, onPermissionRequest: permissions.handler });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));

    await session.send({ prompt: "Do three things" });
    await waitFor(() => permissions.asked.length === 3, "all three permission requests", 30_000);
    await session.abort();
    await waitFor(() => events.some((event) => event.type === "session.idle"), "the aborted turn's end", 30_000);

    expect((await session.rpc.permissions.pendingRequests()).items).toEqual([]);
    const completed = events.filter((event) => event.type === "permission.completed");
    expect(completed.map((event) => event.data.toolCallId).sort()).toEqual([...calls].sort());
    const toolResults = events.filter((event) => event.type === "tool.execution_complete");
    expect(toolResults.map((event) => event.data.success)).toEqual([false, false, false]);
    // Answers that come after the abort decide nothing.
    for (const call of calls) permissions.answer(call, { kind: "approve-once" });
    expect(events.filter((event) => event.type === "tool.execution_complete")).toHaveLength(3);
  });
});
