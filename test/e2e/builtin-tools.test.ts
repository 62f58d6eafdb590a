/**
 * Built-in tools through both SDKs (the official 0.2.0 and ours) against the real runtime: create → view → bash in a
 * temporary working directory, a deny-all application that leaves the disk (and the network)
 * untouched, excluded tools never offered to the model, name conflicts with custom tools, and
 * `tools.list`.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient, approveAll, type PermissionRequest, type SessionEvent } from "@github/copilot-sdk";
import { parseScript } from "@tandem/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptsDir, startWorld, type TestWorld } from "../helpers/harness.js";
import { clientVariants, type ClientMaker } from "../helpers/official-client.js";

let world: TestWorld | undefined;
let copilot: CopilotClient | undefined;
let workdir: string;
let server: Server | undefined;

beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-builtin-")));
});

afterEach(async () => {
  await copilot?.stop();
  copilot = undefined;
  await world?.dispose();
  world = undefined;
  if (server) await new Promise((resolve) => server?.close(resolve));
  server = undefined;
  rmSync(workdir, { recursive: true, force: true });
});

/** Loads `test/scripts/<name>.yaml` with its placeholders filled in. */
function loadScript(name: string, values: Record<string, string>): void {
  const path = join(scriptsDir, `${name}.yaml`);
  let text = readFileSync(path, "utf8");
  for (const [key, value] of Object.entries(values)) text = text.replaceAll(key, value);
  world?.model.addScript(parseScript(text, path));
}


type RequestBody = { tools?: Array<{ function: { name: string } }>; messages: Array<{ role: string; content: string }> };
const body = (index: number) => world?.model.requests[index]?.body as RequestBody;

describe.each(clientVariants)("$sdk", ({ sdk, make }: { sdk: string; make: ClientMaker }) => {
  function start(): CopilotClient {
    if (!world) throw new Error("no world");
    copilot = make(world.env);
    return copilot;
  }

  it("creates, views and runs bash in the session's working directory, with permissions and events", async () => {
    world = await startWorld([]);
    loadScript("tools-create-view-bash", { __WORKDIR__: workdir });
    const permissions: PermissionRequest[] = [];
    const session = await start().createSession({
      workingDirectory: workdir,
      onPermissionRequest: (request) => {
        permissions.push(request);
        return { kind: "approved" };
      },
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));

    const reply = await session.sendAndWait({ prompt: "Please write a notes file" });
    expect(reply?.data.content).toBe("notes.txt has 2 lines.");
    expect(world.model.requests.map((request) => request.expectationError)).toEqual([undefined, undefined, undefined, undefined]);
    expect(readFileSync(join(workdir, "notes.txt"), "utf8")).toBe("alpha\nbeta\n");

    const notes = join(workdir, "notes.txt");
    expect(permissions.map((request) => request.kind)).toEqual(["write", "read", "shell"]);
    expect(permissions[0]).toMatchObject({ kind: "write", intention: "Create file", fileName: notes, newFileContents: "alpha\nbeta\n", toolCallId: "call_create" });
    expect(permissions[1]).toMatchObject({ kind: "read", intention: `Read file: ${notes}`, path: notes });
    expect(permissions[2]).toMatchObject({
      kind: "shell",
      fullCommandText: "wc -l < notes.txt && pwd",
      intention: "Count the lines",
      commands: [
        { identifier: "wc -l < notes.txt", readOnly: true },
        { identifier: "pwd", readOnly: true },
      ],
      possiblePaths: [notes],
      hasWriteFileRedirection: false,
      canOfferSessionApproval: false,
    });

    const toolMessages = body(3).messages.filter((message) => message.role === "tool").map((message) => message.content);
    expect(toolMessages).toEqual([`Created file ${notes} with 11 characters`, "1. alpha\n2. beta\n3. ", `2\n${workdir}\n<exited with exit code 0>`]);

    const completions = events.filter((event) => event.type === "tool.execution_complete");
    expect(completions.map((event) => event.data.success)).toEqual([true, true, true]);
    expect((completions[0]?.data.result as { detailedContent?: string }).detailedContent).toContain("+++ b/");
    expect(events.some((event) => event.type === "tool.execution_partial_result")).toBe(true);
    expect(events.find((event) => event.type === "session.info" && event.data.infoType === "file_created")?.data).toMatchObject({ message: notes });
    // The session's code-change totals land in session.shutdown.
    await session.disconnect();
    const lines = readFileSync(join(world.home, "session-state", session.sessionId, "events.jsonl"), "utf8").trim().split("\n");
    const shutdown = JSON.parse(lines.at(-1) ?? "{}") as { type: string; data: { codeChanges: unknown } };
    expect(shutdown.type).toBe("session.shutdown");
    expect(shutdown.data.codeChanges).toEqual({ linesAdded: 2, linesRemoved: 0, filesModified: [notes] });
  });

  it("denies everything: no file is written, no command runs, no URL is fetched", async () => {
    let hits = 0;
    server = createServer((_request, response) => {
      hits++;
      response.end("fetched");
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/secret`;
    world = await startWorld([]);
    loadScript("tools-denied", { __WORKDIR__: workdir, __URL__: url });
    const asked: string[] = [];
    const session = await start().createSession({
      workingDirectory: workdir,
      onPermissionRequest: (request) => {
        asked.push(request.kind);
        return { kind: "denied-interactively-by-user", feedback: "Not in this test" };
      },
    });
    const reply = await session.sendAndWait({ prompt: "Please try everything" });
    expect(reply?.data.content).toBe("Everything was denied.");
    expect(asked.sort()).toEqual(["shell", "url", "write"]);
    expect(readdirSync(workdir)).toEqual([]);
    expect(existsSync(join(workdir, "touched.txt"))).toBe(false);
    expect(hits).toBe(0);
    const toolMessages = body(1).messages.filter((message) => message.role === "tool");
    expect(toolMessages.map((message) => message.content)).toEqual(Array(3).fill("The user rejected this tool call. User feedback: Not in this test"));
  });

  it("shows the command inside a command substitution in the shell permission request", async () => {
    world = await startWorld(["tools-bash-substitution"]);
    writeFileSync(join(workdir, "X"), "keep me");
    const requests: PermissionRequest[] = [];
    const session = await start().createSession({
      workingDirectory: workdir,
      onPermissionRequest: (request) => {
        requests.push(request);
        return { kind: "denied-interactively-by-user", feedback: "It removes X" };
      },
    });
    const reply = await session.sendAndWait({ prompt: "Please echo the file away" });
    expect(reply?.data.content).toBe("Denied.");
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      kind: "shell",
      fullCommandText: "echo $(rm -f X)",
      commands: [
        { identifier: "echo $(rm -f X)", readOnly: false },
        { identifier: "rm -f X", readOnly: false },
      ],
      hasWriteFileRedirection: false,
    });
    expect(readFileSync(join(workdir, "X"), "utf8")).toBe("keep me");
  });

  it("never offers excluded tools, and keeps the built-in order for availableTools", async () => {
    world = await startWorld(["plain-reply"]);
    const client = start();
    const excluded = await client.createSession({ onPermissionRequest: approveAll, excludedTools: ["bash", "web_fetch", "write_bash"] });
    await excluded.sendAndWait({ prompt: "Say hello" });
    const offered = body(0).tools?.map((tool) => tool.function.name) ?? [];
    for (const name of ["bash", "web_fetch", "write_bash"]) expect(offered).not.toContain(name);
    // The reference order (1.0.102): sub-agent tools sit after sql (read_agent, list_agents) and glob (task);
    // report_intent only for 0.2.0 clients (after web_fetch, as their runtime had it), and
    // task_complete only in plan and autopilot mode.
    expect(offered).toEqual([
      "read_bash",
      "stop_bash",
      "list_bash",
      "view",
      "create",
      "edit",
      ...(sdk === "official SDK 0.2.0" ? ["report_intent"] : []),
      "sql",
      "read_agent",
      "list_agents",
      "grep",
      "glob",
      "task",
    ]);

    const allowed = await client.createSession({
      onPermissionRequest: approveAll,
      availableTools: ["view", "bash", "lookup"],
      tools: [{ name: "lookup", description: "Looks things up", parameters: { type: "object", properties: {} }, handler: () => "found" }],
    });
    await allowed.sendAndWait({ prompt: "Say hello" });
    // availableTools applies to every tool, sub-agent tools included.
    expect((body(1).tools ?? []).map((tool) => tool.function.name)).toEqual(["bash", "view", "lookup"]);
  });

  it("refuses a custom tool named like a built-in unless it overrides it", async () => {
    world = await startWorld(["plain-reply"]);
    const client = start();
    const tool = { name: "view", description: "My own view", parameters: { type: "object", properties: {} }, handler: () => "mine" };
    await expect(client.createSession({ onPermissionRequest: approveAll, tools: [tool] })).rejects.toThrow(
      /External tool "view" conflicts with a built-in tool of the same name\. Set overridesBuiltInTool: true/,
    );
    const session = await client.createSession({ onPermissionRequest: approveAll, tools: [{ ...tool, overridesBuiltInTool: true }] });
    await session.sendAndWait({ prompt: "Say hello" });
    const tools = body(0).tools?.map((each) => each.function.name) ?? [];
    expect(tools.indexOf("view")).toBe(5);
    expect(tools.filter((name) => name === "view")).toHaveLength(1);
  });

  it("lists the built-in tools over tools.list", async () => {
    world = await startWorld([]);
    const client = start();
    await client.start();
    const { tools } = await client.rpc.tools.list({});
    expect(tools.map((tool) => tool.name)).toEqual([
      "bash", "write_bash", "read_bash", "stop_bash", "list_bash", "view", "create", "edit", "web_fetch", "ask_user", "sql", "grep", "glob",
      "task_complete",
    ]);
    expect(tools[0]?.parameters).toMatchObject({ type: "object", required: ["command", "description"] });
  });
});
