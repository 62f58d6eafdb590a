/**
 * Sub-agents seen from the application, through the official SDK 1.0.x against the built `tandem`:
 * hooks tell a sub-agent's tool calls from the session's own by the input's `sessionId`, and a
 * background agent a turn started keeps the session busy until its completion notice is answered.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { approveAll } from "copilot-sdk-v1";
import type { CopilotClient as V1Client, SessionEvent as V1Event } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { officialClientFixture, officialV1Client } from "../helpers/official-client.js";

const fixture = officialClientFixture(officialV1Client);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("sub-agents (official SDK 1.0.x)", () => {
  it("hook inputs carry sessionId: the session's own for its tool calls, the sub-agent's for the sub-agent's", async () => {
    await fixture.startWorld(["subagent-hooks-main", "subagent-hooks-sub"]);
    const folder = mkdtempSync(join(tmpdir(), "tandem-subhooks-"));
    dirs.push(folder);
    writeFileSync(join(folder, "notes.txt"), "hello\n");
    const seen: Array<{ kind: "pre" | "post"; toolName: string; sessionId: string }> = [];
    const client = fixture.client() as unknown as V1Client;
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      workingDirectory: folder,
      hooks: {
        onPreToolUse: (input) => {
          seen.push({ kind: "pre", toolName: input.toolName, sessionId: input.sessionId });
          return { permissionDecision: "allow" };
        },
        onPostToolUse: (input) => {
          seen.push({ kind: "post", toolName: input.toolName, sessionId: input.sessionId });
          return undefined;
        },
      },
    });
    const reply = await session.sendAndWait({ prompt: "look at the notes through a helper" }, 30_000);
    expect(reply?.data.content).toBe("The helper read the notes.");

    const taskPre = seen.find((entry) => entry.kind === "pre" && entry.toolName === "task");
    const viewPre = seen.find((entry) => entry.kind === "pre" && entry.toolName === "view");
    const viewPost = seen.find((entry) => entry.kind === "post" && entry.toolName === "view");
    expect(taskPre?.sessionId).toBe(session.sessionId);
    expect(viewPre?.sessionId).toBeTruthy();
    expect(viewPre?.sessionId).not.toBe(session.sessionId);
    expect(viewPost?.sessionId).toBe(viewPre?.sessionId);
  });

  it("a background agent keeps the session busy: its completion notice is answered before session.idle", async () => {
    const world = await fixture.startWorld(["background-notice-main", "background-notice-sub"]);
    const client = fixture.client() as unknown as V1Client;
    const events: V1Event[] = [];
    const session = await client.createSession({ onPermissionRequest: approveAll, onEvent: (event) => events.push(event) });
    const reply = await session.sendAndWait({ prompt: "start a helper and keep me posted" }, 30_000);

    expect(reply?.data.content).toBe("The agent reported back.");
    expect(events.filter((event) => event.type === "session.idle")).toHaveLength(1);
    const notice = events.find((event) => event.type === "user.message" && event.data.content.includes('Background agent "slow-finder" (explore) finished'));
    expect(notice).toBeDefined();
    expect(world.model.requests.map((request) => request.expectationError).filter(Boolean)).toEqual([]);
  });
});
