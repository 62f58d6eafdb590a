/** Skills: loaded from disk, offered as a catalogue, invoked with the `skill` tool. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, startWorld, type TestWorld } from "../helpers/harness.js";
import { officialVariants } from "../helpers/official-client.js";

let world: TestWorld | undefined;
let copilot: CopilotClient | undefined;

afterEach(async () => {
  await copilot?.stop();
  await world?.dispose();
});

describe.each(officialVariants)("$sdk", ({ make }) => {
  type ChatBody = { messages: Array<{ role: string; content: string }>; tools?: Array<{ function: { name: string; description: string } }> };

  function writeSkills(root: string): string {
    const dir = join(root, "skills");
    mkdirSync(join(dir, "weather-expert"), { recursive: true });
    writeFileSync(
      join(dir, "weather-expert", "SKILL.md"),
      "---\nname: weather-expert\ndescription: Answers weather questions with packing advice\nallowed-tools: [get_weather]\n---\nAlways call get_weather, then give packing advice.\n",
    );
    mkdirSync(join(dir, "unused"), { recursive: true });
    writeFileSync(join(dir, "unused", "SKILL.md"), "---\ndescription: Never needed\n---\nDo nothing.\n");
    return dir;
  }

  it("loads skills from disk, invokes one, auto-approves its allowed tools, and keeps its context on resume", async () => {
    world = await startWorld(["skills"]);
    const skillDir = writeSkills(world.home);
    copilot = make(world.env);
    const asked: string[] = [];
    const config = {
      onPermissionRequest: (request: { kind: string }) => (asked.push(request.kind), { kind: "denied-interactively-by-user" as const }),
      tools: [{ name: "get_weather", description: "Weather", handler: () => "cold and windy" }],
      skillDirectories: [skillDir],
      disabledSkills: ["unused"],
    };
    const session = await copilot.createSession(config);
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "What should I pack for Oslo?" });
    expect(reply?.data.content).toBe("Following the skill: Oslo is cold, bring a coat.");
    expect(asked).toEqual([]);
    expect(world.model.requests.map((request) => request.expectationError).filter(Boolean)).toEqual([]);

    const first = world.model.requests[0]?.body as ChatBody;
    const skillTool = first.tools?.find((tool) => tool.function.name === "skill");
    expect(skillTool?.function.description).toContain("weather-expert: Answers weather questions with packing advice");
    expect(skillTool?.function.description).not.toContain("unused");
    const invoked = events.find((event) => event.type === "skill.invoked");
    expect(invoked?.data).toMatchObject({ name: "weather-expert", path: join(skillDir, "weather-expert", "SKILL.md"), allowedTools: ["get_weather"] });
    const skillResult = eventsOf(events, "tool.execution_complete").find((event) => event.data.toolCallId === "call_skill_1");
    expect(skillResult?.data.result?.content).toBe('Skill "weather-expert" loaded successfully. Follow the instructions in the skill context.');
    // The injected skill context is announced as a developer prompt.
    const injected = events.filter((event) => (event.type as string) === "system.message").map((event) => event.data as { role: string; name?: string; content: string });
    expect(injected.find((message) => message.name === "skill:weather-expert")).toMatchObject({ role: "developer", content: expect.stringContaining("Always call get_weather") });

    await session.disconnect();
    const resumed = await copilot.resumeSession(session.sessionId, config);
    await resumed.sendAndWait({ prompt: "And now?" });
    const resumedMessages = (world.model.requests.at(-1)?.body as ChatBody).messages;
    expect(resumedMessages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "user", "assistant", "tool", "assistant", "user"]);
    expect(resumedMessages[4]?.content).toContain("Always call get_weather, then give packing advice.");
  });

  it("lists, disables and enables skills over RPC; an unknown skill is a clear error", async () => {
    world = await startWorld(["plain-reply"]);
    const skillDir = writeSkills(world.home);
    copilot = make(world.env);
    await copilot.start();
    const session = await copilot.createSession({ onPermissionRequest: () => ({ kind: "approved" }), skillDirectories: [skillDir] });
    const call = (method: string, params: Record<string, unknown> = {}) =>
      (copilot as unknown as { connection: { sendRequest(method: string, params: unknown): Promise<unknown> } }).connection.sendRequest(method, { sessionId: session.sessionId, ...params });
    const listed = (await call("session.skills.list")) as { skills: Array<{ name: string; enabled: boolean }> };
    expect(listed.skills.map((skill) => [skill.name, skill.enabled])).toEqual([
      ["unused", true],
      ["weather-expert", true],
    ]);
    await call("session.skills.disable", { name: "weather-expert" });
    await call("session.skills.disable", { name: "unused" });
    await session.sendAndWait({ prompt: "hi" });
    expect((world.model.requests[0]?.body as ChatBody).tools?.some((tool) => tool.function.name === "skill")).toBe(false);
    await call("session.skills.enable", { name: "unused" });
    await session.sendAndWait({ prompt: "again" });
    expect((world.model.requests[1]?.body as ChatBody).tools?.some((tool) => tool.function.name === "skill")).toBe(true);
    await expect(call("session.skills.disable", { name: "ghost" })).rejects.toThrow(/Unknown skill "ghost"/);
  });
});
