/**
 * Everything the official SDK 1.0.x receives from `tandem` has the type that SDK declares: the
 * interop scenarios (a plain reply over two turns, streaming, an application tool with its
 * permission, a denied and a rejected call, a throwing tool handler, a failing model server, three
 * built-in tools, a file created, a file edited and a URL fetched (each permission request kind
 * Tandem asks: shell, read, write, url, custom-tool, mcp), plan mode (the mode change and its notice),
 * ask_user, attachments (file, directory, selection), a sub-agent, a background shell, the sql tool, an MCP tool, report_intent, an
 * abort, a resume from a new process) run through
 * the real 1.0.x client against the real runtime; every event (as delivered and as `getEvents`
 * returns it) and the results of calls the SDK hands back as they came (ping, status, auth, models,
 * mode, model, name, plan, workspace files, agents, skills, MCP servers) are checked against the
 * installed `copilot-sdk-v1`'s generated types by the TypeScript compiler (`helpers/v1-types.ts`).
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseScript } from "@tandem/testkit";
import { CopilotClient, RuntimeConnection, approveAll, type CopilotSession, type PermissionHandler } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { scriptsDir, startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { weatherTool } from "../helpers/session-events.js";
import { checkAgainstV1Types, type ReceivedValue } from "../helpers/v1-types.js";

let world: TestWorld | undefined;
const stops: Array<() => Promise<unknown>> = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  await world?.dispose();
  world = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What one scenario received: every event and result, labelled, with its declared 1.0.x type. */
class Received {
  readonly values: ReceivedValue[] = [];

  constructor(private readonly scenario: string) {}

  /** Records every event `session` delivers from now on. */
  listen(session: CopilotSession): void {
    session.on((event) => this.values.push({ label: `${this.scenario}: delivered ${event.type}`, type: "SessionEvent", value: event }));
  }

  /** Records `getEvents()` and returns it. */
  async stored(session: CopilotSession): Promise<unknown[]> {
    const events = await session.getEvents();
    for (const event of events) this.values.push({ label: `${this.scenario}: stored ${event.type}`, type: "SessionEvent", value: event });
    return events;
  }

  /** Records a call's result under the type the SDK declares for it. */
  result<T>(call: string, type: string, value: T): T {
    this.values.push({ label: `${this.scenario}: ${call} result`, type, value });
    return value;
  }
}

/** The official 1.0.x client, spawning `tandem` the 1.0 way. */
function client(args: string[] = []): CopilotClient {
  if (!world) throw new Error("no world");
  const created = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: tandemBin, args }), env: world.env, logLevel: "error" });
  stops.push(() => created.stop());
  return created;
}

/** A scratch folder (removed after the test) with the scripts' `__WORKDIR__` put in. */
function workFolder(): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), "tandem-v1-types-")));
  dirs.push(folder);
  return folder;
}

function loadScript(name: string, workdir: string, url = ""): void {
  const path = join(scriptsDir, `${name}.yaml`);
  world?.model.addScript(parseScript(readFileSync(path, "utf8").replaceAll("__WORKDIR__", workdir).replaceAll("__URL__", url), path));
}

/** One send, waited for, with its events delivered and stored. */
async function turn(received: Received, session: CopilotSession, prompt: string): Promise<void> {
  await session.sendAndWait({ prompt }, 30_000);
  await received.stored(session);
}

const mcpFixtures = fileURLToPath(new URL("../fixtures/mcp/", import.meta.url));

const rejectAll: PermissionHandler = () => ({ kind: "reject" });

const scenarios: Array<{ name: string; run(received: Received): Promise<void> }> = [
  {
    name: "plain reply over two turns, with the client and session calls",
    async run(received) {
      world = await startWorld(["plain-reply"]);
      const copilot = client();
      await copilot.start();
      received.result("ping", 'Awaited<ReturnType<CopilotClient["ping"]>>', await copilot.ping("types"));
      received.result("getStatus", 'Awaited<ReturnType<CopilotClient["getStatus"]>>', await copilot.getStatus());
      received.result("getAuthStatus", 'Awaited<ReturnType<CopilotClient["getAuthStatus"]>>', await copilot.getAuthStatus());
      received.result("listModels", 'Awaited<ReturnType<CopilotClient["listModels"]>>', await copilot.listModels());
      const session = await copilot.createSession({ onPermissionRequest: approveAll });
      received.listen(session);
      await received.stored(session);
      received.result("mode.get", 'Awaited<ReturnType<CopilotSession["rpc"]["mode"]["get"]>>', await session.rpc.mode.get());
      received.result("mode.set", 'Awaited<ReturnType<CopilotSession["rpc"]["mode"]["set"]>>', await session.rpc.mode.set({ mode: "interactive" }));
      received.result("model.getCurrent", 'Awaited<ReturnType<CopilotSession["rpc"]["model"]["getCurrent"]>>', await session.rpc.model.getCurrent());
      const rpc = session.rpc;
      received.result("name.get", 'Awaited<ReturnType<CopilotSession["rpc"]["name"]["get"]>>', await rpc.name.get());
      received.result("plan.read", 'Awaited<ReturnType<CopilotSession["rpc"]["plan"]["read"]>>', await rpc.plan.read());
      received.result("workspaces.listFiles", 'Awaited<ReturnType<CopilotSession["rpc"]["workspaces"]["listFiles"]>>', await rpc.workspaces.listFiles());
      received.result("agent.list", 'Awaited<ReturnType<CopilotSession["rpc"]["agent"]["list"]>>', await rpc.agent.list());
      received.result("agent.getCurrent", 'Awaited<ReturnType<CopilotSession["rpc"]["agent"]["getCurrent"]>>', await rpc.agent.getCurrent());
      received.result("skills.list", 'Awaited<ReturnType<CopilotSession["rpc"]["skills"]["list"]>>', await rpc.skills.list());
      received.result("skills.reload", 'Awaited<ReturnType<CopilotSession["rpc"]["skills"]["reload"]>>', await rpc.skills.reload());
      received.result("mcp.list", 'Awaited<ReturnType<CopilotSession["rpc"]["mcp"]["list"]>>', await rpc.mcp.list());
      await turn(received, session, "Say hello");
      await turn(received, session, "And again");
    },
  },
  {
    name: "plan mode: the mode change, the [[PLAN]] prompt and its notice",
    async run(received) {
      world = await startWorld(["plain-reply"]);
      const session = await client().createSession({ onPermissionRequest: approveAll });
      received.listen(session);
      received.result("mode.set", 'Awaited<ReturnType<CopilotSession["rpc"]["mode"]["set"]>>', await session.rpc.mode.set({ mode: "plan" }));
      await turn(received, session, "Plan a change");
      await turn(received, session, "Plan some more");
    },
  },
  {
    name: "ask_user answered by the application",
    async run(received) {
      world = await startWorld(["multiclient-ask"]);
      const session = await client().createSession({ onPermissionRequest: approveAll, onUserInputRequest: () => ({ answer: "blue", wasFreeform: false }) });
      received.listen(session);
      await turn(received, session, "ask through A");
    },
  },
  {
    name: "attachments: a file, a directory and a selection",
    async run(received) {
      world = await startWorld(["plain-reply"]);
      const workdir = workFolder();
      writeFileSync(join(workdir, "app.js"), "const a = 1;\nconst b = 2;\n");
      const session = await client().createSession({ onPermissionRequest: approveAll, workingDirectory: workdir });
      received.listen(session);
      await session.sendAndWait(
        {
          prompt: "Look at these",
          attachments: [
            { type: "file", path: join(workdir, "app.js"), displayName: "app.js" },
            { type: "directory", path: workdir, displayName: "project" },
            { type: "selection", filePath: join(workdir, "app.js"), displayName: "app.js", text: "const b = 2;", selection: { start: { line: 1, character: 0 }, end: { line: 1, character: 12 } } },
          ],
        },
        30_000,
      );
      await received.stored(session);
    },
  },
  {
    name: "streaming",
    async run(received) {
      world = await startWorld(["streaming-reply"]);
      const session = await client().createSession({ onPermissionRequest: approveAll, streaming: true });
      received.listen(session);
      await turn(received, session, "Stream please");
    },
  },
  {
    name: "application tool with a permission",
    async run(received) {
      world = await startWorld(["custom-tool"]);
      const session = await client().createSession({ onPermissionRequest: approveAll, tools: [weatherTool] });
      received.listen(session);
      await turn(received, session, "Weather in Paris?");
    },
  },
  {
    name: "denied and rejected calls",
    async run(received) {
      world = await startWorld(["tool-denied"]);
      const readSecret = { name: "read_secret", description: "Reads a secret", parameters: { type: "object", properties: { key: { type: "string" } } }, handler: () => "x" };
      const denied = await client().createSession({ onPermissionRequest: () => ({ kind: "user-not-available" }), tools: [readSecret] });
      received.listen(denied);
      await turn(received, denied, "Read the secret");
      const rejected = await client().createSession({ onPermissionRequest: rejectAll, tools: [readSecret] });
      received.listen(rejected);
      await turn(received, rejected, "Read the secret");
    },
  },
  {
    name: "a tool handler that throws",
    async run(received) {
      world = await startWorld(["tool-throws"]);
      const flaky = {
        name: "flaky_tool",
        description: "Fails",
        parameters: { type: "object", properties: {} },
        handler: () => {
          throw new Error("boom");
        },
      };
      const session = await client().createSession({ onPermissionRequest: approveAll, tools: [flaky] });
      received.listen(session);
      await turn(received, session, "Use the flaky tool");
    },
  },
  {
    name: "a failing model server",
    async run(received) {
      world = await startWorld(["server-error"], { TANDEM_MAX_RETRIES: "0" });
      const session = await client().createSession({ onPermissionRequest: approveAll });
      received.listen(session);
      await session.sendAndWait({ prompt: "Fail please" }, 30_000).catch(() => undefined);
      await received.stored(session);
    },
  },
  {
    name: "three built-in tools (view, bash, glob)",
    async run(received) {
      world = await startWorld([]);
      const workdir = workFolder();
      loadScript("permission-order", workdir);
      writeFileSync(join(workdir, "data.txt"), "one\n");
      const session = await client().createSession({ onPermissionRequest: approveAll, workingDirectory: workdir });
      received.listen(session);
      await turn(received, session, "Do three things");
    },
  },
  {
    name: "a file created, a file edited and a URL fetched (write and url permission requests)",
    async run(received) {
      world = await startWorld([]);
      const workdir = workFolder();
      loadScript("permission-kinds", workdir, `${world.modelUrl}/models`);
      writeFileSync(join(workdir, "existing.txt"), "old\n");
      const session = await client().createSession({ onPermissionRequest: approveAll, workingDirectory: workdir });
      received.listen(session);
      await turn(received, session, "Please write and fetch");
      const kinds = received.values.flatMap((value) => {
        const event = value.value as { type?: string; data?: { permissionRequest?: { kind?: string } } };
        return value.label.includes("delivered") && event.type === "permission.requested" ? [event.data?.permissionRequest?.kind] : [];
      });
      // Asked all at once: in the order the calls reach their requests, not necessarily call order.
      expect(kinds.sort()).toEqual(["url", "write", "write"]);
    },
  },
  {
    name: "a sub-agent",
    async run(received) {
      world = await startWorld(["explore-agent", "explore-agent-sub"]);
      const session = await client().createSession({ onPermissionRequest: approveAll });
      received.listen(session);
      await turn(received, session, "Please explore the repo");
    },
  },
  {
    name: "a background shell command",
    async run(received) {
      world = await startWorld(["background-shell"]);
      const session = await client().createSession({ onPermissionRequest: approveAll });
      received.listen(session);
      await turn(received, session, "Start it");
      await waitFor(() => received.values.some((value) => value.label.endsWith("delivered session.background_tasks_changed")), "the background notice");
      await turn(received, session, "What happened?");
    },
  },
  {
    name: "the sql tool and its todos",
    async run(received) {
      world = await startWorld(["sql-todos"]);
      const session = await client().createSession({ onPermissionRequest: approveAll });
      received.listen(session);
      await turn(received, session, "Track my todos");
    },
  },
  {
    name: "an MCP server's tool",
    async run(received) {
      world = await startWorld([]);
      world.model.loadScriptFile(join(mcpFixtures, "mcp-echo.yaml"));
      const session = await client().createSession({
        onPermissionRequest: approveAll,
        mcpServers: { local: { command: process.execPath, args: [join(mcpFixtures, "stdio-server.mjs")], tools: ["*"] } },
      });
      received.listen(session);
      await turn(received, session, "Please do the MCP echo");
    },
  },
  {
    name: "report_intent",
    async run(received) {
      world = await startWorld(["report-intent"]);
      const session = await client(["--report-intent", "on"]).createSession({ onPermissionRequest: approveAll });
      received.listen(session);
      await turn(received, session, "What is the weather?");
    },
  },
  {
    name: "an abort, then a resume from a new process",
    async run(received) {
      world = await startWorld(["hang-then-reply"]);
      const session = await client().createSession({ onPermissionRequest: approveAll });
      received.listen(session);
      await session.send({ prompt: "this will hang" });
      await waitFor(() => world?.model.requests.length === 1, "the model request");
      await session.abort();
      await waitFor(() => received.values.some((value) => value.label.endsWith("delivered session.idle")), "idle after the abort");
      await received.stored(session);
      await session.disconnect();

      const resumed = await client().resumeSession(session.sessionId, { onPermissionRequest: approveAll });
      received.listen(resumed);
      await turn(received, resumed, "again");
    },
  },
];

describe("what the official SDK 1.0.x receives has its declared types", () => {
  it.each(scenarios)("$name", async ({ name, run }) => {
    const received = new Received(name);
    await run(received);
    expect(received.values.length).toBeGreaterThan(0);
    const violations = checkAgainstV1Types(received.values);
    expect(violations.map((violation) => `${violation.label}: ${JSON.stringify(violation.value)}\n  ${violation.reason}`)).toEqual([]);
  });
});
