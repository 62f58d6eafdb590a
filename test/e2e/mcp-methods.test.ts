/**
 * `session.mcp.*` beyond list/enable/disable/reload and `mcp.config.*`, through the official SDK
 * 1.0.x against the built runtime with a real stdio MCP server: one server's tools and process
 * (listTools, isServerRunning, stop/start/restart), the env value mode as the server sees it,
 * sampling on the session's model (the scripted model server), OAuth login, tokens the application
 * provides for an OAuth-protected HTTP server, MCP Apps,
 * the errors of a session without MCP servers, the preMcpToolCall hook's `_meta`, mcpServers given
 * at resume, plugin folders' servers and disabledMcpServers, defaultAgent.excludedTools, and the user's MCP configuration file.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CopilotClient, RuntimeConnection, approveAll, defineTool, type CopilotSession, type MCPServerConfig } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startHttpFixture } from "../fixtures/mcp/http-server.mjs";
import { startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";
import { ErrorCodes } from "@tandem/protocol/errors";

const { NotAvailable, InvalidParams } = ErrorCodes;

const fixturesDir = fileURLToPath(new URL("../fixtures/mcp/", import.meta.url));
const stdioServer = join(fixturesDir, "stdio-server.mjs");

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

async function setUp(env: Record<string, string> = {}): Promise<{ client: CopilotClient; logFile: string }> {
  world = await startWorld(["plain-reply"], env);
  for (const script of ["mcp-meta-hook", "mcp-sampling"]) world.model.loadScriptFile(join(fixturesDir, `${script}.yaml`));
  scratch = mkdtempSync(join(tmpdir(), "tandem-mcp-methods-"));
  client = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world.env, logLevel: "error" });
  return { client, logFile: join(scratch, "server.jsonl") };
}

function localServer(logFile: string, env: Record<string, string> = {}): MCPServerConfig {
  return { type: "local", command: process.execPath, args: [stdioServer], env: { MCP_FIXTURE_LOG: logFile, ...env }, tools: ["*"] } as MCPServerConfig;
}

function serverLog(logFile: string): Array<Record<string, unknown>> {
  try {
    return readFileSync(logFile, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  } catch {
    return [];
  }
}

/** Polls until `check` holds (each poll is a real RPC round trip), or fails naming `what`. */
async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function statusOf(session: CopilotSession, serverName: string): Promise<string | undefined> {
  return (await session.rpc.mcp.list()).servers.find((server) => server.name === serverName)?.status;
}

async function connected(session: CopilotSession, serverName: string): Promise<void> {
  await until(async () => (await statusOf(session, serverName)) === "connected", `${serverName} to connect`);
}

/** The JSON-RPC error a call failed with. */
async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    return { code: (error as { code: number }).code, message: (error as Error).message };
  }
  throw new Error("the call succeeded");
}

describe("one server's tools and process", () => {
  it("lists a connected server's tools, reports it running, stops, starts and restarts it", async () => {
    const { client, logFile } = await setUp();
    const session = await client.createSession({ onPermissionRequest: approveAll, mcpServers: { local: localServer(logFile) } });
    await connected(session, "local");

    const { tools } = await session.rpc.mcp.listTools({ serverName: "local" });
    expect(tools.map((tool) => tool.name)).toContain("echo");
    expect(tools.find((tool) => tool.name === "echo")?.description).toBe("Echoes its text back.");
    expect((await session.rpc.mcp.isServerRunning({ serverName: "local" })).running).toBe(true);
    expect((await session.rpc.mcp.isServerRunning({ serverName: "nowhere" })).running).toBe(false);
    const notConnected = await rpcError(session.rpc.mcp.listTools({ serverName: "nowhere" }));
    expect(notConnected.code).toBe(NotAvailable);
    expect(notConnected.message).toContain('MCP server "nowhere" is not connected');

    const firstPid = serverLog(logFile).find((entry) => entry.event === "start")?.pid as number;
    await session.rpc.mcp.stopServer({ serverName: "local" });
    expect((await session.rpc.mcp.isServerRunning({ serverName: "local" })).running).toBe(false);
    expect(await statusOf(session, "local")).toBe("disabled");
    expect((await rpcError(session.rpc.mcp.listTools({ serverName: "local" }))).message).toContain("is not connected (its status is disabled)");

    await session.rpc.mcp.startServer({ serverName: "local" });
    expect((await session.rpc.mcp.isServerRunning({ serverName: "local" })).running).toBe(true);
    await session.rpc.mcp.restartServer({ serverName: "local" });
    expect((await session.rpc.mcp.isServerRunning({ serverName: "local" })).running).toBe(true);
    const pids = serverLog(logFile).filter((entry) => entry.event === "start").map((entry) => entry.pid);
    expect(pids).toHaveLength(3);
    expect(new Set(pids).size).toBe(3);
    expect(pids[0]).toBe(firstPid);
    await session.disconnect();
  });

  it("reads env values as written, or from the runtime's environment in indirect mode", async () => {
    const { client, logFile } = await setUp({ FIXTURE_SECRET: "from-the-runtime" });
    const session = await client.createSession({ onPermissionRequest: approveAll, mcpServers: { local: localServer(logFile, { MCP_FIXTURE_ENV: "${FIXTURE_SECRET}" }) } });
    await connected(session, "local");
    expect(serverLog(logFile).filter((entry) => entry.event === "start").map((entry) => entry.env)).toEqual(["${FIXTURE_SECRET}"]);

    expect(await session.rpc.mcp.setEnvValueMode({ mode: "indirect" })).toEqual({ mode: "indirect" });
    await session.rpc.mcp.restartServer({ serverName: "local" });
    expect(await session.rpc.mcp.setEnvValueMode({ mode: "direct" })).toEqual({ mode: "direct" });
    await session.rpc.mcp.restartServer({ serverName: "local" });
    expect(serverLog(logFile).filter((entry) => entry.event === "start").map((entry) => entry.env)).toEqual(["${FIXTURE_SECRET}", "from-the-runtime", "${FIXTURE_SECRET}"]);

    await session.disconnect();
  });
});

describe("sampling", () => {
  it("runs a sampling request on the session's model, fails an invalid one, and cancels only running ones", async () => {
    const { client, logFile } = await setUp();
    const session = await client.createSession({ onPermissionRequest: approveAll, mcpServers: { local: localServer(logFile) } });
    await connected(session, "local");

    const answered = await session.rpc.mcp.executeSampling({
      requestId: "sampling-1",
      serverName: "local",
      mcpRequestId: 7,
      request: { messages: [{ role: "user", content: { type: "text", text: "Sampling question: what is 2+2?" } }], systemPrompt: "Answer briefly.", maxTokens: 20 },
    });
    expect(answered).toMatchObject({ action: "success", result: { role: "assistant", content: { type: "text", text: "Four." } } });
    const modelCall = world!.model.requests.find((request) => request.scriptName === "mcp-sampling");
    expect(JSON.stringify(modelCall?.body)).toContain("Answer briefly.");

    const invalid = await session.rpc.mcp.executeSampling({ requestId: "sampling-2", serverName: "local", mcpRequestId: "x", request: {} });
    expect(invalid.action).toBe("failure");
    expect(invalid.error).toBe('Invalid sampling request from MCP server "local": it has no messages');
    expect((await session.rpc.mcp.cancelSamplingExecution({ requestId: "sampling-1" })).cancelled).toBe(false);
    const unknownServer = await rpcError(session.rpc.mcp.executeSampling({ requestId: "s3", serverName: "nowhere", mcpRequestId: 1, request: {} }));
    expect(unknownServer.code).toBe(InvalidParams);
    await session.disconnect();
  });
});

describe("errors that say what is missing", () => {
  it("a session without MCP servers: enable, disable, reload and OAuth login are not available", async () => {
    const { client } = await setUp();
    // Its own (non-Copilot) provider: no GitHub MCP server is added, so it has no servers at all.
    const session = await client.createSession({ onPermissionRequest: approveAll, provider: { type: "openai", baseUrl: world!.modelUrl } });
    for (const call of [session.rpc.mcp.enable({ serverName: "x" }), session.rpc.mcp.disable({ serverName: "x" })]) {
      expect(await rpcError(call)).toEqual({ code: NotAvailable, message: expect.stringContaining("No MCP host initialized: this session has no MCP servers configured") });
    }
    expect(await rpcError(session.rpc.mcp.reload())).toEqual({ code: NotAvailable, message: expect.stringContaining("MCP config reload not available") });
    expect(await rpcError(session.rpc.mcp.oauth.login({ serverName: "x" }))).toEqual({ code: NotAvailable, message: expect.stringContaining("MCP host is not available") });
    await session.disconnect();
  });

  it("OAuth login: unknown and local servers are refused, a remote one is not available", async () => {
    const { client, logFile } = await setUp();
    const remote = { type: "http", url: "http://127.0.0.1:9/mcp", tools: ["*"] } as MCPServerConfig;
    const session = await client.createSession({ onPermissionRequest: approveAll, mcpServers: { local: localServer(logFile), remote } });
    await connected(session, "local");
    expect(await rpcError(session.rpc.mcp.oauth.login({ serverName: "missing" }))).toEqual({ code: InvalidParams, message: expect.stringContaining('MCP server "missing" is not configured') });
    expect(await rpcError(session.rpc.mcp.oauth.login({ serverName: "local" }))).toEqual({ code: InvalidParams, message: expect.stringContaining('MCP server "local" is not a remote server') });
    expect(await rpcError(session.rpc.mcp.oauth.login({ serverName: "remote" }))).toEqual({ code: NotAvailable, message: expect.stringContaining("MCP OAuth login is not available") });
    await session.disconnect();
  });

  it("MCP Apps: the host context round-trips, the diagnosis reads the server, app tools are refused, a resource error is the server's", async () => {
    const { client, logFile } = await setUp({ COPILOT_MCP_APPS: "true" });
    const session = await client.createSession({ onPermissionRequest: approveAll, mcpServers: { local: localServer(logFile), other: localServer(logFile) } });
    await connected(session, "local");
    expect(await session.rpc.mcp.apps.getHostContext()).toEqual({ context: {} });
    await session.rpc.mcp.apps.setHostContext({ context: { theme: "dark", locale: "en-GB", availableDisplayModes: ["inline"] } });
    expect(await session.rpc.mcp.apps.getHostContext()).toEqual({ context: { theme: "dark", locale: "en-GB", availableDisplayModes: ["inline"] } });

    const diagnosis = await session.rpc.mcp.apps.diagnose({ serverName: "local" });
    expect(diagnosis).toEqual({
      capability: { sessionHasMcpApps: false, featureFlagEnabled: true, advertised: false },
      server: { connected: true, toolCount: 12, toolsWithUiMeta: 0, sampleToolNames: [] },
    });
    // Created without enableMcpApps: app views have nothing to call.
    const refused = await rpcError(session.rpc.mcp.apps.listTools({ serverName: "local", originServerName: "local" }));
    expect(refused.code).toBe(NotAvailable);
    expect(refused.message).toContain("The mcp-apps capability is not available in this session");
    // The fixture server has no resources capability: the SDK client says so.
    const resource = await rpcError(session.rpc.mcp.apps.readResource({ serverName: "local", uri: "ui://missing" }));
    expect(resource.code).toBe(NotAvailable);
    expect(resource.message).toContain('MCP server "local" could not read resource ui://missing');
    await session.disconnect();

    const withApps = await client.createSession({ onPermissionRequest: approveAll, enableMcpApps: true, mcpServers: { local: localServer(logFile), other: localServer(logFile) } });
    await connected(withApps, "local");
    expect((await withApps.rpc.mcp.apps.diagnose({ serverName: "local" })).capability.sessionHasMcpApps).toBe(true);
    expect((await withApps.rpc.mcp.apps.listTools({ serverName: "local", originServerName: "local" })).tools.map((tool) => tool.name)).toContain("echo");
    expect(await withApps.rpc.mcp.apps.callTool({ serverName: "local", toolName: "echo", originServerName: "local", arguments: { text: "from the app" } })).toMatchObject({
      content: [{ type: "text", text: "from the app" }],
    });
    const crossServer = await rpcError(withApps.rpc.mcp.apps.callTool({ serverName: "local", toolName: "echo", originServerName: "other" }));
    expect(crossServer).toEqual({ code: InvalidParams, message: expect.stringContaining('An mcp-apps view of "other" may only call tools of its own server') });
    await withApps.disconnect();
  });

  it("OAuth: a Bearer challenge asks the application for a token, retries with it; a declined server needs auth", async () => {
    const { client } = await setUp();
    const protectedServer = await startHttpFixture(0, { acceptedTokens: ["host-token"] });
    try {
      const requests: Array<Record<string, unknown>> = [];
      const session = await client.createSession({
        onPermissionRequest: approveAll,
        onMcpAuthRequest: async (request) => {
          requests.push(request as unknown as Record<string, unknown>);
          return { kind: "token", accessToken: "host-token" };
        },
        mcpServers: { guarded: { type: "http", url: protectedServer.url, tools: ["*"] } as MCPServerConfig },
      });
      await connected(session, "guarded");
      expect(requests).toEqual([
        {
          requestId: expect.any(String),
          serverName: "guarded",
          serverUrl: protectedServer.url,
          reason: "initial",
          wwwAuthenticateParams: { resourceMetadataUrl: `http://127.0.0.1:${protectedServer.port}/.well-known/oauth-protected-resource`, scope: "files.read", error: "invalid_token" },
          resourceMetadata: JSON.stringify({ resource: protectedServer.url, scopes_supported: ["files.read"] }),
        },
      ]);
      expect(protectedServer.requestHeaders.some((headers) => headers.authorization === "Bearer host-token")).toBe(true);
      expect((await session.rpc.mcp.listTools({ serverName: "guarded" })).tools.length).toBe(12);
      // An answer to a request that is no longer pending is refused.
      expect(await session.rpc.mcp.oauth.handlePendingRequest({ requestId: String(requests[0]!.requestId), result: { kind: "cancelled" } })).toEqual({ success: false });
      await session.disconnect();

      const declining = await client.createSession({
        onPermissionRequest: approveAll,
        onMcpAuthRequest: async () => ({ kind: "cancelled" }),
        mcpServers: { guarded: { type: "http", url: protectedServer.url, tools: ["*"] } as MCPServerConfig },
      });
      await until(async () => (await statusOf(declining, "guarded")) === "needs-auth", "the declined server to need auth");
      await declining.disconnect();
    } finally {
      await protectedServer.close();
    }
  });
});

describe("the session's MCP servers", () => {
  it("the preMcpToolCall hook sets, replaces and removes a tool call's _meta", async () => {
    const { client, logFile } = await setUp();
    const answers: Array<Record<string, unknown> | null | undefined> = [{ traceId: "t-1" }, null, undefined];
    const inputs: Array<Record<string, unknown>> = [];
    for (const answer of answers) {
      const session = await client.createSession({
        onPermissionRequest: approveAll,
        mcpServers: { local: localServer(logFile) },
        hooks: {
          onPreMcpToolCall: async (input) => {
            inputs.push(input as unknown as Record<string, unknown>);
            return answer === undefined ? undefined : { metaToUse: answer };
          },
        },
      });
      const reply = await session.sendAndWait({ prompt: "MCP meta hook" }, 30_000);
      expect(reply?.data.content).toBe("The MCP server echoed meta please.");
      await session.disconnect();
    }
    expect(serverLog(logFile).filter((entry) => entry.event === "call-meta").map((entry) => entry.meta)).toEqual([{ traceId: "t-1" }, null, null]);
    expect(inputs).toHaveLength(3);
    expect(inputs[0]).toMatchObject({ serverName: "local", toolName: "echo", arguments: { text: "meta please" }, toolCallId: "call_meta_echo" });
    expect(inputs[0]!.timestamp).toBeInstanceOf(Date);
    expect(typeof inputs[0]!.workingDirectory).toBe("string");
  });

  it("mcpServers given when resuming a live session replace its servers and connect without a turn", async () => {
    const { client, logFile } = await setUp();
    const first = await client.createSession({ onPermissionRequest: approveAll });
    const resumed = await client.resumeSession(first.sessionId, { onPermissionRequest: approveAll, mcpServers: { late: localServer(logFile) } });
    await connected(resumed, "late");
    expect((await resumed.rpc.mcp.listTools({ serverName: "late" })).tools.length).toBe(12);
    await resumed.disconnect();
  });

  it("plugin folders' .mcp.json servers join the session; disabledMcpServers stay disabled on create and on a cold resume", async () => {
    const { client, logFile } = await setUp();
    const plugin = join(scratch!, "plugin");
    mkdirSync(plugin);
    const logs = { control: join(scratch!, "control.jsonl"), off: join(scratch!, "off.jsonl") };
    writeFileSync(
      join(plugin, ".mcp.json"),
      JSON.stringify({ mcpServers: { control: localServer(logs.control), off: localServer(logs.off), broken: { type: "local" } } }),
    );
    const settings = { onPermissionRequest: approveAll, pluginDirectories: [plugin], disabledMcpServers: ["off"], mcpServers: { local: localServer(logFile) } };
    const session = await client.createSession(settings);
    await connected(session, "control");
    await connected(session, "local");
    expect(await statusOf(session, "off")).toBe("disabled");
    expect((await session.rpc.mcp.list()).servers.map((server) => server.name).sort()).toEqual(["control", "github-mcp-server", "local", "off"]);
    await session.sendAndWait({ prompt: "hello" }, 30_000);
    expect(serverLog(logs.off)).toEqual([]);
    const sessionId = session.sessionId;
    await client.stop();

    const resumer = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world!.env, logLevel: "error" });
    try {
      const resumed = await resumer.resumeSession(sessionId, settings);
      await connected(resumed, "control");
      expect(await statusOf(resumed, "off")).toBe("disabled");
      expect(serverLog(logs.control).filter((entry) => entry.event === "start")).toHaveLength(2);
      expect(serverLog(logs.off)).toEqual([]);
      // Enabling it is the application's call.
      await resumed.rpc.mcp.enable({ serverName: "off" });
      expect(await statusOf(resumed, "off")).toBe("connected");
      await resumed.disconnect();
    } finally {
      await resumer.stop();
    }
  });

  it("defaultAgent.excludedTools hides a tool from the main agent's model requests", async () => {
    const { client } = await setUp();
    const secret = defineTool("secret_tool", { description: "A secret tool", parameters: { type: "object", properties: {} }, handler: () => "secret" });
    const session = await client.createSession({ onPermissionRequest: approveAll, tools: [secret], defaultAgent: { excludedTools: ["secret_tool"] } });
    await session.sendAndWait({ prompt: "hello" }, 30_000);
    const offered = world!.model.requests.flatMap((request) => ((request.body as { tools?: Array<{ function?: { name: string } }> }).tools ?? []).map((tool) => tool.function?.name));
    expect(offered).toContain("bash");
    expect(offered).not.toContain("secret_tool");
    await session.disconnect();
  });
});

describe("mcp.config.* (the user's configuration file)", () => {
  it("adds, updates, disables, enables and removes servers in <home>/mcp-config.json; refuses unknown and duplicate names", async () => {
    const { client } = await setUp();
    await client.start();
    const file = join(world!.home, "mcp-config.json");
    expect(await client.rpc.mcp.config.list()).toEqual({ servers: {} });

    await client.rpc.mcp.config.add({ name: "files", config: { type: "local", command: "node", args: ["server.js"] } });
    await client.rpc.mcp.config.add({ name: "web", config: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer x" }, oauthClientId: "id" } as never });
    await client.rpc.mcp.config.update({ name: "files", config: { type: "local", command: "node", args: ["--version"] } });
    await client.rpc.mcp.config.disable({ names: ["web"] });
    const onDisk = JSON.parse(readFileSync(file, "utf8")) as { mcpServers: Record<string, Record<string, unknown>>; disabledServers: string[] };
    expect(onDisk.mcpServers.files).toMatchObject({ command: "node", args: ["--version"] });
    expect(onDisk.mcpServers.web).toMatchObject({ url: "https://example.com/mcp", headers: { Authorization: "Bearer x" }, oauthClientId: "id" });
    expect(onDisk.disabledServers).toEqual(["web"]);
    await client.rpc.mcp.config.enable({ names: ["web"] });
    expect((JSON.parse(readFileSync(file, "utf8")) as { disabledServers: string[] }).disabledServers).toEqual([]);

    expect(await rpcError(client.rpc.mcp.config.add({ name: "files", config: { type: "local", command: "x", args: [] } }))).toEqual({ code: InvalidParams, message: expect.stringContaining('MCP server "files" is already configured') });
    expect(await rpcError(client.rpc.mcp.config.update({ name: "ghost", config: { type: "local", command: "x", args: [] } }))).toEqual({ code: InvalidParams, message: expect.stringContaining('MCP server "ghost" is not configured') });
    expect(await rpcError(client.rpc.mcp.config.disable({ names: ["ghost"] }))).toMatchObject({ code: InvalidParams });

    await client.rpc.mcp.config.remove({ name: "web" });
    await client.rpc.mcp.config.reload();
    expect(Object.keys((await client.rpc.mcp.config.list()).servers)).toEqual(["files"]);
  });
});
