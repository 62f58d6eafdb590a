import { afterEach, describe, expect, it } from "vitest";
import type { McpServerConfig } from "@tandem/protocol";
import { McpManager } from "../../src/mcp/manager.js";
import { ErrorCodes } from "../../src/errors.js";
import type { McpToolOutcome } from "../../src/mcp/results.js";
import { fixtureTools, pixelPng } from "../../../../test/fixtures/mcp/fixture-server.mjs";
import { FakeHost, FixtureLog, processAlive, stdioConfig, toolContext, waitFor } from "./helpers.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A started manager over the given configs, disposed after the test. */
async function startManager(configs: Record<string, McpServerConfig>, options: ConstructorParameters<typeof McpManager>[2] = {}) {
  const log = new FixtureLog();
  const host = new FakeHost(log.dir);
  const manager = new McpManager(configs, host, { connectTimeoutMs: 10_000, ...options });
  cleanups.push(() => log.remove(), () => manager.dispose());
  await manager.start();
  return { manager, host, log };
}

function newLog(): FixtureLog {
  const log = new FixtureLog();
  cleanups.push(() => log.remove());
  return log;
}

function tool(manager: McpManager, name: string) {
  const found = manager.findTool(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

describe("McpManager over stdio", () => {
  it("lists {server}-{tool} tools with the server's schema unchanged, and reports the servers", async () => {
    const log = newLog();
    const { manager, host } = await startManager({ local: stdioConfig(log) });

    const tools = manager.tools();
    expect(tools.map((entry) => entry.name)).toEqual(fixtureTools.map((entry) => `local-${entry.name}`));
    expect(tools[0]!.parameters).toEqual(fixtureTools[0]!.inputSchema);
    expect(tools[0]!.parameters).toHaveProperty("$schema");
    expect(tools[0]!.description).toBe("Echoes its text back.");
    expect(tools[0]!.startData).toEqual({ mcpServerName: "local", mcpToolName: "echo" });
    // Lookups return the same objects until the server lists its tools again.
    expect(manager.tools()[0]).toBe(tools[0]);
    expect(manager.findTool("local-echo")).toBe(tools[0]);
    expect(manager.list()).toEqual([{ name: "local", status: "connected" }]);
    expect(host.events.map((event) => event.type)).toEqual(["session.mcp_server_status_changed", "session.mcp_servers_loaded"]);
    expect(host.eventsOf("session.mcp_server_status_changed")).toEqual([{ serverName: "local", status: "connected" }]);
    expect(host.eventsOf("session.mcp_servers_loaded")).toEqual([{ servers: [{ name: "local", status: "connected" }] }]);
    expect(host.toolsChangedCount).toBe(1);
    // The server runs in the session's working directory by default.
    expect(log.of("start")[0]!.cwd).toBe(host.workingDirectory);
  });

  it("applies the tools allow-list (bare or prefixed names) and passes env", async () => {
    const log = newLog();
    const { manager } = await startManager({
      local: stdioConfig(log, { tools: ["echo", "local-add"], env: { MCP_FIXTURE_ENV: "from-config" } }),
      none: stdioConfig(log, { tools: [] }),
    });
    expect(manager.tools().map((entry) => entry.name)).toEqual(["local-echo", "local-add"]);
    expect(manager.findTool("local-slow")).toBeUndefined();
    expect(log.of("start").map((entry) => entry.env ?? null).sort()).toEqual(["from-config", null]);
  });

  it("asks the mcp permission, calls the tool and maps text results", async () => {
    const log = newLog();
    const { manager, host } = await startManager({ local: stdioConfig(log) });
    const context = toolContext(host);

    const outcome = (await tool(manager, "local-add").execute({ a: 2, b: 3 }, context)) as McpToolOutcome;

    expect(outcome).toEqual({ resultType: "success", textForModel: "5", contents: [{ type: "text", text: "5" }] });
    expect(context.permissionRequests).toEqual([{ kind: "mcp", serverName: "local", toolName: "local-add", toolTitle: "add", args: { a: 2, b: 3 }, readOnly: false }]);

    const readOnlyContext = toolContext(host);
    await tool(manager, "local-read_note").execute({ id: "7" }, readOnlyContext);
    expect(readOnlyContext.permissionRequests[0]).toMatchObject({ toolName: "local-read_note", toolTitle: "read_note", readOnly: true });
  });

  it("never reaches the server when the permission is denied", async () => {
    const log = newLog();
    const { manager, host } = await startManager({ local: stdioConfig(log) });

    const denied = await tool(manager, "local-echo").execute({ text: "hi" }, toolContext(host, { permission: { kind: "denied-interactively-by-user" } }));
    const byRules = await tool(manager, "local-echo").execute(
      { text: "hi" },
      toolContext(host, { permission: { kind: "denied-by-rules", rules: [{ kind: "mcp", argument: "local" }] } }),
    );

    expect(denied).toMatchObject({ resultType: "rejected", textForModel: "The user rejected this tool call." });
    expect(byRules).toMatchObject({ resultType: "denied" });
    expect(log.of("call")).toEqual([]);
    await tool(manager, "local-echo").execute({ text: "now" }, toolContext(host));
    expect(log.of("call").map((entry) => entry.arguments)).toEqual([{ text: "now" }]);
  });

  it("maps images, resources, isError results and JSON-RPC errors", async () => {
    const log = newLog();
    const { manager, host } = await startManager({ local: stdioConfig(log) });

    const image = (await tool(manager, "local-image").execute({}, toolContext(host))) as McpToolOutcome;
    expect(image.resultType).toBe("success");
    expect(image.textForModel).toBe("a pixel");
    expect(image.binaryResults).toEqual([{ type: "image", mimeType: "image/png", data: pixelPng }]);
    expect(image.contents).toHaveLength(2);

    const resources = await tool(manager, "local-resources").execute({}, toolContext(host));
    expect(resources.textForModel).toBe("Resource file:///notes/a.txt:\nalpha\nResource link: b.txt (file:///notes/b.txt) - the second note");

    const failed = await tool(manager, "local-fail").execute({}, toolContext(host));
    expect(failed).toMatchObject({ resultType: "failure", textForModel: "something went wrong", errorMessage: "something went wrong" });

    const thrown = await tool(manager, "local-throw").execute({}, toolContext(host));
    expect(thrown.resultType).toBe("failure");
    expect(thrown.textForModel).toContain("thrown by the server");
    // A JSON-RPC error is not a crash: the server stays connected.
    expect(manager.list()).toEqual([{ name: "local", status: "connected" }]);
  });

  it("turns progress notifications into tool.execution_progress events", async () => {
    const log = newLog();
    const { manager, host } = await startManager({ local: stdioConfig(log) });

    const outcome = await tool(manager, "local-slow").execute({ steps: 3, delayMs: 10 }, toolContext(host, { toolCallId: "call-slow" }));

    expect(outcome.textForModel).toBe("slow done");
    expect(host.eventsOf("tool.execution_progress")).toEqual([
      { toolCallId: "call-slow", progressMessage: "step 1 of 3" },
      { toolCallId: "call-slow", progressMessage: "step 2 of 3" },
      { toolCallId: "call-slow", progressMessage: "step 3 of 3" },
    ]);
  });

  it("reports a crash, withdraws the tools, and restarts the server on the next use", async () => {
    const log = newLog();
    const { manager, host } = await startManager({ local: stdioConfig(log) });
    const firstPid = log.of("start")[0]!.pid as number;
    const changesBefore = host.toolsChangedCount;

    const crashed = await tool(manager, "local-crash").execute({}, toolContext(host));

    expect(crashed.resultType).toBe("failure");
    expect(crashed.textForModel).toContain('The MCP server "local" stopped while running "crash"');
    await waitFor(() => manager.list()[0]!.status === "failed");
    expect(manager.tools()).toEqual([]);
    expect(host.toolsChangedCount).toBe(changesBefore + 1);
    expect(host.eventsOf("session.mcp_server_status_changed").at(-1)).toMatchObject({ serverName: "local", status: "failed" });
    expect(host.eventsOf("session.warning").at(-1)).toMatchObject({ warningType: "mcp" });
    expect(String(host.eventsOf("session.warning").at(-1)!.message)).toContain('MCP server "local" stopped');
    await waitFor(() => !processAlive(firstPid));

    // The model may still call a tool it was offered: that restarts the server.
    const again = await tool(manager, "local-echo").execute({ text: "back" }, toolContext(host));

    expect(again).toMatchObject({ resultType: "success", textForModel: "back" });
    expect(log.of("start")).toHaveLength(2);
    expect(manager.list()).toEqual([{ name: "local", status: "connected" }]);
    expect(manager.tools()).toHaveLength(fixtureTools.length);
    expect(host.eventsOf("session.mcp_server_status_changed").at(-1)).toEqual({ serverName: "local", status: "connected" });
    expect(host.toolsChangedCount).toBe(changesBefore + 2);
  });

  it("times out a hanging call, tells the server, and goes on", async () => {
    const log = newLog();
    const { manager, host } = await startManager({ local: stdioConfig(log, { timeout: 300 }) });

    const started = Date.now();
    const outcome = await tool(manager, "local-hang").execute({}, toolContext(host));

    expect(Date.now() - started).toBeLessThan(3_000);
    expect(outcome).toMatchObject({ resultType: "failure", errorMessage: "MCP tool call timed out" });
    expect(outcome.textForModel).toBe('The MCP server "local" did not answer the call of "hang" within 300 ms.');
    await waitFor(() => log.of("cancelled").length === 1);
    const next = await tool(manager, "local-echo").execute({ text: "still here" }, toolContext(host));
    expect(next.textForModel).toBe("still here");
  });

  it("passes the abort signal to the server", async () => {
    const log = newLog();
    const { manager, host } = await startManager({ local: stdioConfig(log) });
    const controller = new AbortController();

    const running = tool(manager, "local-hang").execute({}, toolContext(host, { signal: controller.signal }));
    await waitFor(() => log.of("call").length === 1);
    controller.abort();

    await expect(running).rejects.toBeDefined();
    await waitFor(() => log.of("cancelled").length === 1);
  });

  it("reports servers that fail or hang on start with a warning, and starts the others", async () => {
    const log = newLog();
    const started = Date.now();
    const { manager, host } = await startManager(
      {
        good: stdioConfig(log),
        exits: stdioConfig(log, { env: { MCP_FIXTURE_MODE: "exit-on-start" } }),
        hangs: stdioConfig(log, { env: { MCP_FIXTURE_MODE: "hang-on-start" } }),
        missing: { command: "/nonexistent/mcp-server", args: [], tools: ["*"] },
      },
      // Long enough for a Node server to start on a loaded 2-core machine; the hanging one still times out.
      { connectTimeoutMs: 5_000 },
    );

    expect(Date.now() - started).toBeLessThan(15_000);
    const statuses = Object.fromEntries(manager.list().map((entry) => [entry.name, entry.status]));
    expect(statuses).toEqual({ good: "connected", exits: "failed", hangs: "failed", missing: "failed" });
    expect(manager.list().find((entry) => entry.name === "hangs")!.error).toContain("timed out");
    // A local server's last stderr lines explain its failure.
    expect(manager.list().find((entry) => entry.name === "exits")!.error).toContain("stderr: fixture: exiting on start");
    expect(manager.tools().every((entry) => entry.name.startsWith("good-"))).toBe(true);
    expect(host.eventsOf("session.warning").map((warning) => warning.warningType)).toEqual(["mcp", "mcp", "mcp"]);
    expect(host.eventsOf("session.mcp_server_status_changed")).toHaveLength(4);
    expect(host.events.at(-1)).toEqual({ type: "session.mcp_servers_loaded", data: { servers: manager.list() } });
    expect(manager.list().map(({ name, status }) => ({ name, status }))).toEqual([
      { name: "good", status: "connected" },
      { name: "exits", status: "failed" },
      { name: "hangs", status: "failed" },
      { name: "missing", status: "failed" },
    ]);
    expect(manager.list().find((entry) => entry.name === "missing")!.error).toContain("ENOENT");
    // A server that never connected has no tools to restart it with.
    expect(manager.findTool("exits-echo")).toBeUndefined();
  });

  it("disables, enables and reloads servers", async () => {
    const log = newLog();
    const { manager, host } = await startManager({ local: stdioConfig(log) });
    const firstPid = log.of("start")[0]!.pid as number;

    await manager.disable("local");
    expect(manager.list()).toEqual([{ name: "local", status: "disabled" }]);
    expect(manager.tools()).toEqual([]);
    expect(manager.findTool("local-echo")).toBeUndefined();
    expect(host.eventsOf("session.mcp_server_status_changed").at(-1)).toEqual({ serverName: "local", status: "disabled" });
    await waitFor(() => !processAlive(firstPid));

    await manager.enable("local");
    expect(manager.list()).toEqual([{ name: "local", status: "connected" }]);
    expect(manager.tools()).toHaveLength(fixtureTools.length);
    expect(log.of("start")).toHaveLength(2);

    const loadedBefore = host.eventsOf("session.mcp_servers_loaded").length;
    await manager.reload();
    expect(log.of("start")).toHaveLength(3);
    expect(manager.list()).toEqual([{ name: "local", status: "connected" }]);
    expect(host.eventsOf("session.mcp_servers_loaded")).toHaveLength(loadedBefore + 1);
    const echo = await tool(manager, "local-echo").execute({ text: "reloaded" }, toolContext(host));
    expect(echo.textForModel).toBe("reloaded");

    await expect(manager.enable("nope")).rejects.toThrow("MCP server not found: nope");
  });

  it("round-trips an elicitation through the host, naming the tool call", async () => {
    const log = newLog();
    const { manager, host } = await startManager({ local: stdioConfig(log) });
    host.elicitAnswer = async () => ({ action: "accept", content: { name: "Ada" } });

    const outcome = await tool(manager, "local-elicit").execute({ message: "Who are you?" }, toolContext(host, { toolCallId: "call-e" }));

    expect(outcome.textForModel).toBe("hello Ada");
    expect(host.elicitations).toEqual([
      {
        serverName: "local",
        toolCallId: "call-e",
        message: "Who are you?",
        requestedSchema: { type: "object", properties: { name: { type: "string", title: "Name" } }, required: ["name"] },
      },
    ]);

    host.elicitAnswer = async () => ({ action: "decline" });
    const declined = await tool(manager, "local-elicit").execute({}, toolContext(host));
    expect(declined.textForModel).toBe("elicitation decline");

    host.elicitAnswer = async () => {
      throw new Error("no client");
    };
    const unanswered = await tool(manager, "local-elicit").execute({}, toolContext(host));
    expect(unanswered.textForModel).toBe("elicitation cancel");
  });

  it("follows the server's tool list changes", async () => {
    const log = newLog();
    const { manager, host } = await startManager({ local: stdioConfig(log) });
    const changesBefore = host.toolsChangedCount;

    await tool(manager, "local-add_tool").execute({}, toolContext(host));

    await waitFor(() => manager.tools().some((entry) => entry.name === "local-late"));
    expect(host.toolsChangedCount).toBe(changesBefore + 1);
    const late = await tool(manager, "local-late").execute({}, toolContext(host));
    expect(late.textForModel).toBe("late tool ran");
  });

  it("stops local servers on dispose and refuses calls afterwards", async () => {
    const log = newLog();
    const { manager, host } = await startManager({ local: stdioConfig(log) });
    const echo = tool(manager, "local-echo");
    const pid = log.of("start")[0]!.pid as number;
    const eventCount = host.events.length;

    await manager.dispose();

    await waitFor(() => !processAlive(pid));
    expect(host.events).toHaveLength(eventCount);
    const outcome = await echo.execute({ text: "late" }, toolContext(host));
    expect(outcome.resultType).toBe("failure");
    expect(outcome.textForModel).toContain("not available");
  });
});

describe("McpManager's built-in servers", () => {
  it("join when the host starts when told to: absent before (not listed, not removable, no host), first in the list after", async () => {
    const builtinLog = newLog();
    const configuredLog = newLog();
    const host = new FakeHost(builtinLog.dir);
    const configs = { runtime: stdioConfig(builtinLog), app: stdioConfig(configuredLog) };
    const manager = new McpManager(configs, host, { connectTimeoutMs: 10_000, builtinServers: ["runtime"], builtinsJoinAtStart: true });
    cleanups.push(() => manager.dispose());

    expect(manager.list()).toEqual([{ name: "app", status: "pending" }]);
    expect(manager.hasStarted).toBe(false);
    expect(await manager.removeBuiltin("runtime")).toBe(false);
    await expect(manager.enable("runtime")).rejects.toThrow("MCP server not found: runtime");

    const started = manager.start();
    // Joined as the start begins, before any server is connected.
    expect(manager.list().map((server) => server.name)).toEqual(["runtime", "app"]);
    await started;
    expect(manager.hasStarted).toBe(true);
    expect(manager.list()).toEqual([{ name: "runtime", status: "connected", source: "builtin" }, { name: "app", status: "connected" }]);
    expect(builtinLog.of("start")).toHaveLength(1);
    expect(await manager.removeBuiltin("runtime")).toBe(true);
    expect(manager.list()).toEqual([{ name: "app", status: "connected" }]);
  });

  it("without configured servers, the host is missing until the start, and the error says the built-in ones wait for it", async () => {
    const log = newLog();
    const manager = new McpManager({ runtime: stdioConfig(log) }, new FakeHost(log.dir), { connectTimeoutMs: 10_000, builtinServers: ["runtime"], builtinsJoinAtStart: true });
    cleanups.push(() => manager.dispose());
    expect(manager.hasServers).toBe(false);
    await expect(manager.disable("runtime")).rejects.toMatchObject({ code: ErrorCodes.NotAvailable, message: expect.stringMatching(/^No MCP host initialized: .*the runtime's own \(runtime\) join at the session's first message/), data: { waitingServers: ["runtime"] } });
    await expect(manager.reload()).rejects.toThrow(/^MCP config reload not available: /);
    expect(() => manager.requireHost("MCP host is not available")).toThrow(/^MCP host is not available: /);
    expect(log.of("start")).toEqual([]);

    await manager.start();
    expect(manager.hasServers).toBe(true);
    expect(() => manager.requireHost()).not.toThrow();
    await manager.disable("runtime");
    expect(manager.list()).toEqual([{ name: "runtime", status: "disabled", source: "builtin" }]);
  });
});
