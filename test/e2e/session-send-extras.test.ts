/**
 * What a session does with more of the official SDK 1.0.x's send and create options, through its
 * real client against the built `tandem`: a file attachment's line range as the model sees it,
 * the mode a message was sent in, and tools hidden from the default agent only.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { approveAll } from "copilot-sdk-v1";
import type { CopilotClient as V1Client } from "copilot-sdk-v1";
import { describe, expect, it } from "vitest";
import type { TestWorld } from "../helpers/harness.js";
import { officialClientFixture, officialV1Client } from "../helpers/official-client.js";

type ChatBody = { messages: Array<{ role: string; content?: string | null }>; tools?: Array<{ function: { name: string } }> };

const fixture = officialClientFixture(officialV1Client);
const start = (): V1Client => fixture.client() as unknown as V1Client;
const body = (world: TestWorld, index: number): ChatBody => world.model.requests[index]?.body as ChatBody;

describe("session send and create options (official SDK 1.0.x)", () => {
  it("a file attachment's line range is one line or a span of lines", async () => {
    const world = await fixture.startWorld(["plain-reply"]);
    const file = join(world.home, "three.txt");
    writeFileSync(file, "one\ntwo\nthree");
    const session = await start().createSession({ onPermissionRequest: approveAll });
    const attachments = [
      { type: "file", path: file, displayName: "three.txt", lineRange: { start: 2, end: 2 } },
      { type: "file", path: file, displayName: "three.txt", lineRange: { start: 1, end: 3 } },
    ] as unknown as Parameters<typeof session.send>[0]["attachments"];
    await session.sendAndWait({ prompt: "look", attachments });
    const text = body(world, 0).messages.at(-1)?.content ?? "";
    expect(text).toContain(`<tagged_files>\n* ${file} (line 2 of 3 lines)\n* ${file} (lines 1-3 of 3 lines)\n</tagged_files>`);
  });

  it("records the mode a message was sent in; the session's mode does not change", async () => {
    await fixture.startWorld(["plain-reply"]);
    const session = await start().createSession({ onPermissionRequest: approveAll });
    await session.sendAndWait({ prompt: "planned", agentMode: "plan" });
    await session.sendAndWait({ prompt: "default" });
    const users = (await session.getEvents()).flatMap((event) => (event.type === "user.message" ? [[event.data.content, event.data.agentMode]] : []));
    expect(users).toEqual([
      ["planned", "plan"],
      ["default", "interactive"],
    ]);
    // The test client reads 1.0.x's bare mode as `{ mode }` (see `official-client.ts`).
    expect(await session.rpc.mode.get()).toEqual({ mode: "interactive" });
  });

  it("defaultAgent.excludedTools hides a tool from the main agent only: a custom agent that lists it offers it", async () => {
    const world = await fixture.startWorld(["plain-reply"]);
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      tools: [
        { name: "secret_tool", description: "Secret", handler: () => "SECRET" },
        { name: "public_tool", description: "Public", handler: () => "PUBLIC" },
      ],
      defaultAgent: { excludedTools: ["secret_tool"] },
      customAgents: [{ name: "keeper", prompt: "You keep secrets.", tools: ["secret_tool"] }],
    });
    await session.sendAndWait({ prompt: "first" });
    const firstTools = body(world, 0).tools?.map((tool) => tool.function.name) ?? [];
    expect(firstTools).toContain("public_tool");
    expect(firstTools).not.toContain("secret_tool");

    await session.rpc.agent.select({ name: "keeper" });
    await session.sendAndWait({ prompt: "second" });
    expect(body(world, 1).tools?.map((tool) => tool.function.name)).toEqual(["secret_tool"]);
  });
});
