/**
 * Session options that shape what the model is offered, through real clients (the official SDK
 * 0.2.0, the official SDK 1.0.x and ours) against the fake model server: custom instruction files
 * (the working directory's, `instructionDirectories`, `skipCustomInstructions`, bounded in size),
 * `systemMessage` in append mode next to them, `excludedBuiltinAgents` in the `task` tool, and
 * `availableTools` / `excludedTools` over every kind of tool with the "Disabled tools" notice.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CopilotClient } from "@github/copilot-sdk";
import { CopilotClient as TandemClient } from "@tandem/sdk";
import { CopilotClient as V1Client, RuntimeConnection, ToolSet, approveAll as v1ApproveAll } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown> | unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.dispose();
  world = undefined;
});

const stdioMcpServer = fileURLToPath(new URL("../fixtures/mcp/stdio-server.mjs", import.meta.url));

type Maker = (env: Record<string, string>) => V1Client;
const v1: Maker = (env) => {
  const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin, env }), logLevel: "error" });
  cleanups.push(() => client.forceStop());
  return client;
};
const ours: Maker = (env) => {
  const client = new TandemClient({ env, logLevel: "error" });
  cleanups.push(() => client.stop());
  return client as unknown as V1Client;
};
const official: Maker = (env) => {
  const client = new CopilotClient({ cliPath: tandemBin, env, logLevel: "error" });
  cleanups.push(() => client.stop());
  return client as unknown as V1Client;
};

type ChatBody = {
  messages: Array<{ role: string; content: string }>;
  tools?: Array<{ function: { name: string; description: string; parameters: { properties: Record<string, { enum?: string[] }> } } }>;
};
const body = (index: number): ChatBody => world!.model.requests[index]?.body as ChatBody;
const systemPrompt = (index = 0): string => body(index).messages[0]?.content ?? "";
const toolNames = (index = 0): string[] => (body(index).tools ?? []).map((tool) => tool.function.name);

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function write(path: string, text: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

/** A project with instruction files, and a directory of shared instructions. */
function instructionFixture(): { project: string; shared: string } {
  const project = tempDir("options-project-");
  write(join(project, "AGENTS.md"), "PROJECT-AGENTS: run npm test before you commit.\n");
  write(join(project, ".github", "copilot-instructions.md"), "PROJECT-COPILOT: use two spaces.\n");
  write(join(project, ".github", "instructions", "all.instructions.md"), "---\napplyTo: '**'\n---\nPROJECT-ALL-FILES: prefer const.\n");
  write(join(project, ".github", "instructions", "ts.instructions.md"), "---\napplyTo: '**/*.ts'\n---\nPROJECT-TS-ONLY: scoped, left out.\n");
  const shared = tempDir("options-shared-");
  write(join(shared, "team.instructions.md"), "SHARED-TEAM: write JSDoc.\n");
  write(join(shared, ".github", "instructions", "review.instructions.md"), "SHARED-REVIEW: small commits.\n");
  write(join(shared, "AGENTS.md"), "SHARED-AGENTS: not an instructions file of a directory.\n");
  return { project, shared };
}

describe.each([
  { sdk: "official SDK 1.0.x", make: v1 },
  { sdk: "@tandem/sdk", make: ours },
])("custom instructions through $sdk", ({ make }) => {
  it("adds the project's instruction files and instructionDirectories to the default prompt, before the appended systemMessage", async () => {
    world = await startWorld(["plain-reply"]);
    const { project, shared } = instructionFixture();
    const session = await make(world.env).createSession({
      onPermissionRequest: v1ApproveAll,
      workingDirectory: project,
      instructionDirectories: [shared],
      organizationCustomInstructions: "ORG: never push to main.",
      systemMessage: { mode: "append", content: "APPENDED: answer in French." },
    });
    await session.sendAndWait({ prompt: "hi" });
    const prompt = systemPrompt();
    const order = ["autonomous software agent", "ORG: never push to main.", "PROJECT-COPILOT", "PROJECT-AGENTS", "PROJECT-ALL-FILES", "SHARED-TEAM", "SHARED-REVIEW", "APPENDED: answer in French."];
    const positions = order.map((text) => prompt.indexOf(text));
    expect(positions.every((position) => position >= 0), `${order.join(", ")} in\n${prompt}`).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(prompt).toContain("When the task is complete, answer with a concise summary.");
    expect(prompt).not.toContain("PROJECT-TS-ONLY");
    expect(prompt).not.toContain("SHARED-AGENTS");
  });
});

// SDK 1.0.x sends skipCustomInstructions with session.options.update after the create.
it.each([
  { sdk: "official SDK 1.0.x", make: v1 },
  { sdk: "@tandem/sdk", make: ours },
])("skips the project's files with skipCustomInstructions, keeping instructionDirectories and the organization's text ($sdk)", async ({ make }) => {
  world = await startWorld(["plain-reply"]);
  const { project, shared } = instructionFixture();
  const session = await make(world.env).createSession({
    onPermissionRequest: v1ApproveAll,
    workingDirectory: project,
    instructionDirectories: [shared],
    skipCustomInstructions: true,
    organizationCustomInstructions: "ORG: never push to main.",
  });
  await session.sendAndWait({ prompt: "hi" });
  const prompt = systemPrompt();
  expect(prompt).not.toContain("PROJECT-");
  expect(prompt).toContain("SHARED-TEAM");
  expect(prompt).toContain("ORG: never push to main.");
});

it("reads the working directory's AGENTS.md for the official SDK 0.2.0 too, and bounds a huge file", async () => {
  world = await startWorld(["plain-reply"]);
  const project = tempDir("options-huge-");
  write(join(project, "AGENTS.md"), `HUGE-START\n${"x".repeat(2_000_000)}\nHUGE-END\n`);
  const session = await official(world.env).createSession({ onPermissionRequest: v1ApproveAll, workingDirectory: project });
  await session.sendAndWait({ prompt: "hi" });
  const prompt = systemPrompt();
  expect(prompt).toContain("HUGE-START");
  expect(prompt).not.toContain("HUGE-END");
  expect(prompt.length).toBeLessThan(50_000);
});

describe.each([
  { sdk: "official SDK 0.2.0", make: official },
  { sdk: "official SDK 1.0.x", make: v1 },
  { sdk: "@tandem/sdk", make: ours },
])("system message through $sdk", ({ make }) => {
  it("keeps the default prompt in append mode and puts the content after it", async () => {
    world = await startWorld(["plain-reply"]);
    const session = await make(world.env).createSession({ onPermissionRequest: v1ApproveAll, systemMessage: { mode: "append", content: "APPENDED-CONTENT" } });
    await session.sendAndWait({ prompt: "hi" });
    const prompt = systemPrompt();
    expect(prompt.indexOf("autonomous software agent")).toBe(prompt.indexOf("You are an autonomous software agent") + "You are an ".length);
    expect(prompt.indexOf("APPENDED-CONTENT")).toBeGreaterThan(prompt.indexOf("Respect permission denials"));
  });
});

// SDK 0.2.0 does not send excludedBuiltinAgents.
describe.each([
  { sdk: "official SDK 1.0.x", make: v1 },
  { sdk: "@tandem/sdk", make: ours },
])("built-in agents through $sdk", ({ make }) => {
  it("leaves excluded built-in agents out of the task tool's agent types and refuses them", async () => {
    world = await startWorld(["task-agent"]);
    const session = await make(world.env).createSession({ onPermissionRequest: v1ApproveAll, excludedBuiltinAgents: ["explore", "code-review"] });
    const started: string[] = [];
    session.on("subagent.started", (event) => started.push(event.data.agentName));
    await session.sendAndWait({ prompt: "delegate" });
    const task = body(0).tools?.find((tool) => tool.function.name === "task")?.function;
    expect(task?.parameters.properties.agent_type?.enum).toEqual(["task", "general-purpose"]);
    expect(task?.description).not.toMatch(/explore|code-review/);
    expect(started).toEqual([]);
    const toolResult = body(1).messages.at(-1);
    expect(toolResult?.role).toBe("tool");
    expect(toolResult?.content).toMatch(/agent_type/);
  });
});

describe.each([
  { sdk: "official SDK 1.0.x", make: v1 },
  { sdk: "@tandem/sdk", make: ours },
])("tool filters through $sdk", ({ make }) => {
  const lookup = { name: "lookup", description: "Looks things up", parameters: { type: "object", properties: {} }, handler: () => "found" };
  const deploy = { name: "deploy", description: "Deploys", parameters: { type: "object", properties: {} }, handler: () => "deployed" };
  const mcp = (name: string) => ({ [name]: { command: process.execPath, args: [stdioMcpServer], tools: ["*"] } });

  it("applies excludedTools to built-in, custom, skill-less agent, MCP and selected-agent MCP tools, and names the disabled ones", async () => {
    world = await startWorld(["plain-reply"]);
    const events: Array<{ type: string; data: { infoType?: string; message?: string } }> = [];
    const session = await make(world.env).createSession({
      onPermissionRequest: v1ApproveAll,
      tools: [lookup, deploy],
      mcpServers: mcp("files"),
      customAgents: [{ name: "helper", prompt: "You help.", mcpServers: mcp("agentmcp") }],
      agent: "helper",
      excludedTools: ["grep", "lookup", "list_agents", "files-add", "agentmcp-echo"],
      onEvent: (event) => void events.push(event as (typeof events)[number]),
    });
    await session.sendAndWait({ prompt: "hi" });
    const offered = toolNames();
    for (const name of ["grep", "lookup", "list_agents", "files-add", "agentmcp-echo"]) expect(offered).not.toContain(name);
    for (const name of ["view", "deploy", "task", "files-echo", "agentmcp-add"]) expect(offered).toContain(name);
    const notices = events.filter((event) => event.type === "session.info" && event.data.infoType === "configuration").map((event) => event.data.message);
    expect(notices).toEqual(["Disabled tools: grep, list_agents, lookup"]);
  });

  it("understands the source-qualified patterns of SDK 1.0.x's ToolSet", async () => {
    world = await startWorld(["plain-reply"]);
    const available = new ToolSet().addBuiltIn(["view", "task"]).addCustom("lookup").addMcp("echo").toArray();
    const session = await make(world.env).createSession({
      onPermissionRequest: v1ApproveAll,
      tools: [lookup, deploy],
      mcpServers: mcp("files"),
      availableTools: available,
      excludedTools: new ToolSet().addBuiltIn("task").toArray(),
    });
    await session.sendAndWait({ prompt: "hi" });
    expect(toolNames()).toEqual(["view", "lookup", "files-echo"]);
  });
});
