/**
 * What @tandem/sdk adds over the official 0.2.0 client, through the real runtime: answering the
 * exit-plan-mode handshake and MCP elicitation forms with handlers.
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { CopilotClient, type ElicitationRequest, type ExitPlanModeRequest, type SessionEvent } from "@tandem/sdk";
import { afterEach, expect, it } from "vitest";
import { startWorld, type TestWorld } from "../helpers/harness.js";

const fixturesDir = fileURLToPath(new URL("../fixtures/mcp/", import.meta.url));

let world: TestWorld | undefined;
let client: CopilotClient | undefined;

afterEach(async () => {
  await client?.stop();
  await world?.dispose();
});

it("answers exit_plan_mode.requested with onExitPlanModeRequest", async () => {
  world = await startWorld(["plan-mode"]);
  client = new CopilotClient({ env: world.env, logLevel: "error" });
  const requests: ExitPlanModeRequest[] = [];
  const session = await client.createSession({
    onPermissionRequest: () => ({ kind: "approved" }),
    onExitPlanModeRequest: (request) => {
      requests.push(request);
      return { action: "interactive" };
    },
  });
  await session.rpc.mode.set({ mode: "plan" });
  await session.sendAndWait({ prompt: "Plan the fix" });
  expect(requests[0]).toMatchObject({ summary: "Fix the bug in two steps", recommendedAction: "autopilot" });
  expect(await session.rpc.mode.get()).toEqual({ mode: "interactive" });
});

it("fills in an MCP server's form with onElicitationRequest", async () => {
  world = await startWorld([]);
  world.model.loadScriptFile(join(fixturesDir, "mcp-progress-elicit.yaml"));
  client = new CopilotClient({ env: world.env, logLevel: "error" });
  const forms: ElicitationRequest[] = [];
  const session = await client.createSession({
    onPermissionRequest: () => ({ kind: "approved" }),
    mcpServers: { local: { command: process.execPath, args: [join(fixturesDir, "stdio-server.mjs")], tools: ["slow", "elicit"] } },
    onElicitationRequest: (request) => {
      forms.push(request);
      return { action: "accept", content: { name: "Ada" } };
    },
  });
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  const reply = await session.sendAndWait({ prompt: "Fill in the MCP form" });
  expect(reply?.data.content).toBe("Hello Ada.");
  expect(forms[0]).toMatchObject({ elicitationSource: "local", message: "Your name, please", mode: "form" });
  expect(events.some((event) => event.type === "elicitation.completed")).toBe(true);
  expect(await session.rpc.mcp.list()).toEqual({ servers: [{ name: "github-mcp-server", status: "connected", source: "builtin" }, { name: "local", status: "connected" }] });
  await session.rpc.mcp.disable({ serverName: "local" });
  expect((await session.rpc.mcp.list()).servers.find((server) => server.name === "local")?.status).toBe("disabled");
  expect(await session.rpc.skills.list()).toEqual({ skills: [] });
});

it("lists and runs slash commands through session.rpc.commands (the 1.0.x names)", async () => {
  world = await startWorld([]);
  client = new CopilotClient({ env: world.env, logLevel: "error" });
  const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approved" }) });
  const { commands } = await session.rpc.commands.list();
  expect(commands.map((command) => command.name)).toEqual(expect.arrayContaining(["compact", "plan", "fleet", "model", "agent"]));
  expect(await session.rpc.commands.execute({ commandName: "plan" })).toEqual({});
  expect(await session.rpc.mode.get()).toEqual({ mode: "plan" });
});

it("answers exit_plan_mode.requested with session.rpc.ui.handlePendingExitPlanMode when no handler is set", async () => {
  world = await startWorld(["plan-mode"]);
  client = new CopilotClient({ env: world.env, logLevel: "error" });
  const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approved" }) });
  await session.rpc.mode.set({ mode: "plan" });
  const answers: unknown[] = [];
  session.on("exit_plan_mode.requested", (event) => {
    void session.rpc.ui.handlePendingExitPlanMode({ requestId: event.data.requestId, response: { approved: true, selectedAction: "exit_only" } }).then((answer) => answers.push(answer));
  });
  await session.sendAndWait({ prompt: "Plan the fix" });
  expect(answers).toEqual([{ success: true }]);
  expect(await session.rpc.mode.get()).toEqual({ mode: "interactive" });
});
