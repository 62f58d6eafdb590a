/**
 * `session.skills.ensureLoaded` / `getInvoked` and `session.extensions.enable` / `disable` /
 * "not available", through the official SDK 1.0.x against the built runtime: skills are real
 * folders the model loads with the `skill` tool (scripted model server), extensions real child
 * processes from `<home>/extensions`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient, RuntimeConnection, approveAll } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";
import { ErrorCodes } from "@tandem/protocol/errors";

const { NotAvailable, InvalidParams } = ErrorCodes;

let world: TestWorld | undefined;
let client: CopilotClient | undefined;
let scratch: string | undefined;

afterEach(async () => {
  await client?.stop();
  await world?.dispose();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  client = undefined;
  world = undefined;
  scratch = undefined;
});

async function setUp(scripts: string[]): Promise<{ client: CopilotClient; scratch: string; home: string }> {
  world = await startWorld(scripts);
  scratch = mkdtempSync(join(tmpdir(), "tandem-skills-ext-"));
  client = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world.env, logLevel: "error" });
  return { client, scratch, home: world.home };
}

async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    return { code: (error as { code: number }).code, message: (error as Error).message };
  }
  throw new Error("the call succeeded");
}

describe("skills", () => {
  it("ensureLoaded reads the folders once; getInvoked lists what the model loaded, with the turn", async () => {
    const { client, scratch } = await setUp(["skills"]);
    const skills = join(scratch, "skills");
    mkdirSync(join(skills, "weather-expert"), { recursive: true });
    const skillFile = join(skills, "weather-expert", "SKILL.md");
    const content = "---\nname: weather-expert\ndescription: Answers weather questions\nallowed-tools: [get_weather]\n---\nAlways call get_weather.\n";
    writeFileSync(skillFile, content);
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      skillDirectories: [skills],
      tools: [{ name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } }, handler: () => "cold and windy" }],
    });

    await session.rpc.skills.ensureLoaded();
    expect((await session.rpc.skills.list()).skills.map((skill) => skill.name)).toEqual(["weather-expert"]);
    // Loaded already: a skill added now appears only after reload.
    mkdirSync(join(skills, "late"));
    writeFileSync(join(skills, "late", "SKILL.md"), "---\nname: late\ndescription: Added later\n---\nLate.\n");
    await session.rpc.skills.ensureLoaded();
    expect((await session.rpc.skills.list()).skills.map((skill) => skill.name)).toEqual(["weather-expert"]);
    expect(await session.rpc.skills.getInvoked()).toEqual({ skills: [] });

    const reply = await session.sendAndWait({ prompt: "What should I pack for Oslo?" }, 30_000);
    expect(reply?.data.content).toBe("Following the skill: Oslo is cold, bring a coat.");
    expect(await session.rpc.skills.getInvoked()).toEqual({
      skills: [{ name: "weather-expert", path: skillFile, content: expect.stringContaining("Always call get_weather."), allowedTools: ["get_weather"], invokedAtTurn: 1 }],
    });
    await session.disconnect();
  });
});

describe("extensions", () => {
  it("without an extension folder, enable, disable and reload are not available; list is empty", async () => {
    const { client, scratch } = await setUp(["plain-reply"]);
    const session = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: scratch });
    expect(await session.rpc.extensions.list()).toEqual({ extensions: [] });
    for (const call of [session.rpc.extensions.enable({ id: "user:x" }), session.rpc.extensions.disable({ id: "user:x" }), session.rpc.extensions.reload()]) {
      const error = await rpcError(call);
      expect(error.code).toBe(NotAvailable);
      expect(error.message).toContain("Extensions not available: no extension folder exists");
    }
    await session.disconnect();
  });

  it("disable stops a running extension and lists it disabled; enable starts it again; an unknown id is refused", async () => {
    const { client, scratch, home } = await setUp(["plain-reply"]);
    const folder = join(home, "extensions", "joiner");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "extension.mjs"), 'import { joinSession } from "@tandem/sdk/extension";\nawait joinSession({});\n');
    const session = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: scratch });
    const running = (await session.rpc.extensions.list()).extensions;
    expect(running).toEqual([{ id: "user:joiner", name: "joiner", source: "user", status: "running", pid: expect.any(Number) }]);

    await session.rpc.extensions.disable({ id: "user:joiner" });
    expect((await session.rpc.extensions.list()).extensions).toEqual([{ id: "user:joiner", name: "joiner", source: "user", status: "disabled" }]);
    await session.rpc.extensions.enable({ id: "user:joiner" });
    const again = (await session.rpc.extensions.list()).extensions;
    expect(again).toEqual([{ id: "user:joiner", name: "joiner", source: "user", status: "running", pid: expect.any(Number) }]);
    expect(again[0]!.pid).not.toBe(running[0]!.pid);

    expect(await rpcError(session.rpc.extensions.disable({ id: "user:ghost" }))).toEqual({ code: InvalidParams, message: expect.stringContaining("Extension not found: user:ghost") });
    await session.disconnect();
  });
});
