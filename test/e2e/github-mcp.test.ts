/**
 * The GitHub MCP server of a session in Copilot API mode, through the official 1.0.x SDK against
 * the real `tandem` and the testkit's Copilot API (which serves `/mcp`): added only when the
 * session's provider is the Copilot API with a GitHub token, sent that token and the session's
 * `githubMcpToolConfig` as headers, contacted first at the first turn or `session.mcp.list`, kept
 * silent by `disabledMcpServers`, and removable with `session.mcp.removeGitHub`. It joins the
 * session at that first turn or listing (before it the session's MCP host does not have it), or at
 * a resume once the session had its first message; an application's own `github` server stands in
 * for it.
 */
import { join } from "node:path";
import { CopilotClient, RuntimeConnection, approveAll, type CopilotSession, type SessionEvent } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { ErrorCodes } from "@tandem/protocol/errors";
import { scriptsDir, startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
let client: CopilotClient | undefined;

afterEach(async () => {
  await client?.stop();
  client = undefined;
  await world?.dispose();
  world = undefined;
});

async function setUp(): Promise<CopilotClient> {
  world = await startWorld(["plain-reply"]);
  world.model.loadScriptFile(join(scriptsDir, "github-mcp.yaml"));
  world.model.githubMcp.tools.push({ name: "get_me", description: "The signed-in GitHub user.", text: "octocat" });
  client = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world.env, logLevel: "error" });
  return client;
}

/** The `/mcp` requests the testkit received. */
function mcpRequests(): Array<{ method: string; headers: Record<string, string>; rpcMethod?: string }> {
  if (!world) throw new Error("no world");
  return world.model.githubMcp.requests;
}

async function statusOf(session: CopilotSession, serverName: string): Promise<{ name: string; status: string; source?: string } | undefined> {
  return (await session.rpc.mcp.list()).servers.find((server) => server.name === serverName);
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("the GitHub MCP server in Copilot API mode", () => {
  it("connects at the first turn with the session's token and tool config, offers its tools and runs them", async () => {
    const runtime = await setUp();
    const session = await runtime.createSession({
      onPermissionRequest: approveAll,
      githubMcpToolConfig: { additionalToolsets: ["actions"], additionalTools: ["get_me"], enableInsidersMode: true },
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.rpc.model.getCurrent();
    expect(mcpRequests()).toEqual([]);

    const reply = await session.sendAndWait({ prompt: "Who am I on GitHub?" }, 30_000);
    expect(reply?.data.content).toBe("You are octocat.");

    const posts = mcpRequests().filter((request) => request.method === "POST");
    expect(posts.map((request) => request.rpcMethod)).toEqual(expect.arrayContaining(["initialize", "notifications/initialized", "tools/list", "tools/call"]));
    for (const request of posts) {
      expect(request.headers).toMatchObject({ authorization: "Bearer test-token", "x-mcp-toolsets": "default,actions", "x-mcp-tools": "get_me", "x-mcp-insiders": "true" });
    }
    const offered = (world!.model.requests[0]?.body as { tools?: Array<{ function: { name: string } }> }).tools?.map((tool) => tool.function.name) ?? [];
    expect(offered.at(-1)).toBe("github-mcp-server-get_me");
    const started = events.find((event) => event.type === "tool.execution_start" && event.data.toolCallId === "call_github_me");
    expect(started?.data).toMatchObject({ toolName: "github-mcp-server-get_me", mcpServerName: "github-mcp-server", mcpToolName: "get_me" });
    expect(await statusOf(session, "github-mcp-server")).toEqual({ name: "github-mcp-server", status: "connected", source: "builtin" });
    await session.disconnect();
  });

  it("connects when the servers are listed, before any turn; enableAllTools asks for every toolset", async () => {
    const runtime = await setUp();
    const session = await runtime.createSession({ onPermissionRequest: approveAll, githubMcpToolConfig: { enableAllTools: true } });
    expect(mcpRequests()).toEqual([]);
    await until(async () => (await statusOf(session, "github-mcp-server"))?.status === "connected", "the GitHub MCP server to connect");
    expect(mcpRequests()[0]).toMatchObject({ method: "POST", rpcMethod: "initialize", headers: { "x-mcp-toolsets": "all" } });
    expect(mcpRequests()[0]?.headers["x-mcp-insiders"]).toBeUndefined();
    expect((await session.rpc.mcp.listTools({ serverName: "github-mcp-server" })).tools).toEqual([{ name: "get_me", description: "The signed-in GitHub user." }]);
    await session.disconnect();
  });

  it("disabledMcpServers lists it as disabled and never contacts it, until the application enables it", async () => {
    const runtime = await setUp();
    const session = await runtime.createSession({ onPermissionRequest: approveAll, githubMcpToolConfig: { enableAllTools: true }, disabledMcpServers: ["github-mcp-server"] });
    expect((await session.sendAndWait({ prompt: "hello" }, 30_000))?.data.content).toBe("Hello from the scripted model.");
    expect(await statusOf(session, "github-mcp-server")).toEqual({ name: "github-mcp-server", status: "disabled", source: "builtin" });
    const offered = (world!.model.requests[0]?.body as { tools?: Array<{ function: { name: string } }> }).tools?.map((tool) => tool.function.name) ?? [];
    expect(offered.filter((name) => name.startsWith("github-mcp-server-"))).toEqual([]);
    expect(mcpRequests()).toEqual([]);

    await session.rpc.mcp.enable({ serverName: "github-mcp-server" });
    expect((await statusOf(session, "github-mcp-server"))?.status).toBe("connected");
    expect(mcpRequests().length).toBeGreaterThan(0);
    await session.disconnect();
  });

  it("session.mcp.removeGitHub stops and unlists it, also after a resume; an application's server of that name stays", async () => {
    const runtime = await setUp();
    const session = await runtime.createSession({ onPermissionRequest: approveAll });
    await until(async () => (await statusOf(session, "github-mcp-server"))?.status === "connected", "the GitHub MCP server to connect");
    expect(await session.rpc.mcp.removeGitHub()).toEqual({ removed: true });
    expect(await session.rpc.mcp.list()).toEqual({ servers: [] });
    expect(await session.rpc.mcp.removeGitHub()).toEqual({ removed: false });
    const requestsAfterRemoval = mcpRequests().length;
    const resumed = await runtime.resumeSession(session.sessionId, { onPermissionRequest: approveAll, githubMcpToolConfig: { enableAllTools: true } });
    expect((await resumed.sendAndWait({ prompt: "hello" }, 30_000))?.data.content).toBe("Hello from the scripted model.");
    expect(await resumed.rpc.mcp.list()).toEqual({ servers: [] });
    expect(mcpRequests()).toHaveLength(requestsAfterRemoval);

    const own = await runtime.createSession({ onPermissionRequest: approveAll, mcpServers: { "github-mcp-server": { type: "http", url: `${world!.modelUrl}/mcp`, headers: { "X-App": "mine" }, tools: ["*"] } } });
    await until(async () => (await statusOf(own, "github-mcp-server"))?.status === "connected", "the application's server to connect");
    expect(await own.rpc.mcp.removeGitHub()).toEqual({ removed: false });
    expect(await own.rpc.mcp.list()).toEqual({ servers: [{ name: "github-mcp-server", status: "connected" }] });
    expect(mcpRequests().at(-1)?.headers).toMatchObject({ "x-app": "mine" });
    expect(mcpRequests().at(-1)?.headers.authorization).toBeUndefined();
    await own.disconnect();
  });

  it("is never added for another provider: a session's own provider, or an OpenAI-compatible default", async () => {
    const runtime = await setUp();
    const copilot = await runtime.createSession({ onPermissionRequest: approveAll });
    expect((await copilot.rpc.mcp.list()).servers.map((server) => server.name)).toEqual(["github-mcp-server"]);
    await until(async () => (await statusOf(copilot, "github-mcp-server"))?.status === "connected", "the Copilot session's GitHub MCP server to connect");
    const copilotRequests = mcpRequests().length;
    const byok = await runtime.createSession({ onPermissionRequest: approveAll, provider: { type: "openai", baseUrl: world!.modelUrl }, githubMcpToolConfig: { enableAllTools: true } });
    expect((await byok.sendAndWait({ prompt: "hello" }, 30_000))?.data.content).toBe("Hello from the scripted model.");
    expect(await byok.rpc.mcp.list()).toEqual({ servers: [] });
    expect(await byok.rpc.mcp.removeGitHub()).toEqual({ removed: false });
    expect(mcpRequests()).toHaveLength(copilotRequests);
    await client!.stop();

    client = new CopilotClient({
      connection: RuntimeConnection.forStdio({ path: tandemBin }),
      env: { PATH: world!.env.PATH!, HOME: world!.home, COPILOT_HOME: world!.home, OPENAI_BASE_URL: world!.modelUrl, GH_TOKEN: "test-token" },
      logLevel: "error",
    });
    const openai = await client.createSession({ onPermissionRequest: approveAll });
    expect((await openai.sendAndWait({ prompt: "hello" }, 30_000))?.data.content).toBe("Hello from the scripted model.");
    expect(await openai.rpc.mcp.list()).toEqual({ servers: [] });
    expect(mcpRequests()).toHaveLength(copilotRequests);
  });
});

async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    return { code: (error as { code: number }).code, message: (error as Error).message };
  }
  throw new Error("the call succeeded");
}

function newClient(): CopilotClient {
  client = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world!.env, logLevel: "error" });
  return client;
}

describe("when the GitHub MCP server joins a session", () => {
  it("at the first message: before it the session's MCP host has no server, so removeGitHub answers false and enable says there is no host", async () => {
    const runtime = await setUp();
    const session = await runtime.createSession({ onPermissionRequest: approveAll });
    expect(await session.rpc.mcp.removeGitHub()).toEqual({ removed: false });
    const noHost = await rpcError(session.rpc.mcp.enable({ serverName: "github-mcp-server" }));
    expect(noHost).toEqual({ code: ErrorCodes.NotAvailable, message: expect.stringContaining("No MCP host initialized") });
    expect(noHost.message).toContain("github-mcp-server");
    expect(noHost.message).toContain("first message");
    expect((await rpcError(session.rpc.mcp.disable({ serverName: "missing-server" }))).message).toContain("No MCP host initialized");
    expect(await session.rpc.mcp.isServerRunning({ serverName: "github-mcp-server" })).toEqual({ running: false });
    expect(mcpRequests()).toEqual([]);

    // The answer "nothing to remove" does not keep it out: it joins at the first message.
    expect((await session.sendAndWait({ prompt: "hello" }, 30_000))?.data.content).toBe("Hello from the scripted model.");
    expect(mcpRequests().length).toBeGreaterThan(0);
    expect(await session.rpc.mcp.isServerRunning({ serverName: "github-mcp-server" })).toEqual({ running: true });
    expect((await rpcError(session.rpc.mcp.enable({ serverName: "missing-server" }))).code).toBe(ErrorCodes.InvalidParams);
    expect(await session.rpc.mcp.removeGitHub()).toEqual({ removed: true });
    expect(await session.rpc.mcp.list()).toEqual({ servers: [] });
    await session.disconnect();
  });

  it("at a resume once the session had its first message; a session resumed before its first message still waits for it", async () => {
    const runtime = await setUp();
    const used = await runtime.createSession({ onPermissionRequest: approveAll });
    expect((await used.sendAndWait({ prompt: "hello" }, 30_000))?.data.content).toBe("Hello from the scripted model.");
    const unused = await runtime.createSession({ onPermissionRequest: approveAll });
    const [usedId, unusedId] = [used.sessionId, unused.sessionId];
    await runtime.stop();

    const resumer = newClient();
    const resumedUnused = await resumer.resumeSession(unusedId, { onPermissionRequest: approveAll });
    expect(await resumedUnused.rpc.mcp.removeGitHub()).toEqual({ removed: false });
    expect((await rpcError(resumedUnused.rpc.mcp.stopServer({ serverName: "github-mcp-server" }))).message).toContain("No MCP host initialized");
    const resumedUsed = await resumer.resumeSession(usedId, { onPermissionRequest: approveAll });
    const requestsBefore = mcpRequests().length;
    // Part of the session from the resume: removable without a listing or a turn, and never contacted.
    expect(await resumedUsed.rpc.mcp.removeGitHub()).toEqual({ removed: true });
    expect(await resumedUsed.rpc.mcp.list()).toEqual({ servers: [] });
    expect(mcpRequests()).toHaveLength(requestsBefore);
  });

  it("never when the application configured its own github server: that one is the session's GitHub server", async () => {
    const runtime = await setUp();
    const session = await runtime.createSession({
      onPermissionRequest: approveAll,
      mcpServers: { github: { type: "http", url: `${world!.modelUrl}/mcp`, headers: { "X-App": "mine" }, tools: ["*"] } },
    });
    expect((await session.sendAndWait({ prompt: "hello" }, 30_000))?.data.content).toBe("Hello from the scripted model.");
    expect(await session.rpc.mcp.list()).toEqual({ servers: [{ name: "github", status: "connected" }] });
    expect(await session.rpc.mcp.removeGitHub()).toEqual({ removed: false });
    expect(await session.rpc.mcp.list()).toEqual({ servers: [{ name: "github", status: "connected" }] });
    const offered = (world!.model.requests[0]?.body as { tools?: Array<{ function: { name: string } }> }).tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toContain("github-get_me");
    expect(offered.filter((name) => name.startsWith("github-mcp-server-"))).toEqual([]);
    expect(mcpRequests().length).toBeGreaterThan(0);
    for (const request of mcpRequests()) expect(request.headers).toMatchObject({ "x-app": "mine" });
    await session.disconnect();
  });
});

describe("MCP servers connect lazily", () => {
  it("configured servers start at the first turn, not at create; one that fails then is reported as before", async () => {
    const runtime = await setUp();
    const session = await runtime.createSession({
      onPermissionRequest: approveAll,
      disabledMcpServers: ["github-mcp-server"],
      mcpServers: {
        docs: { type: "http", url: `${world!.modelUrl}/mcp`, headers: { "X-Client-Session": "lazy" }, tools: ["*"] },
        broken: { type: "local", command: join(scriptsDir, "no-such-mcp-server"), args: [], tools: ["*"] },
      },
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    // A whole turn of another session, whose own GitHub MCP server connects first, happens after
    // this create: the lazy session's server has still not been contacted.
    const other = await runtime.createSession({ onPermissionRequest: approveAll });
    expect((await other.sendAndWait({ prompt: "hello" }, 30_000))?.data.content).toBe("Hello from the scripted model.");
    expect(mcpRequests().length).toBeGreaterThan(0);
    const fromLazySession = () => mcpRequests().filter((request) => request.headers["x-client-session"] === "lazy");
    expect(fromLazySession()).toEqual([]);

    expect((await session.sendAndWait({ prompt: "hello" }, 30_000))?.data.content).toBe("Hello from the scripted model.");
    expect(fromLazySession().length).toBeGreaterThan(0);
    const types = events.map((event) => event.type);
    // Announced by the turn: after the message was queued, before it was recorded.
    const loaded = types.indexOf("session.mcp_servers_loaded");
    expect(loaded).toBeGreaterThan(types.indexOf("pending_messages.modified"));
    expect(loaded).toBeLessThan(types.indexOf("user.message"));
    const warning = events.find((event) => event.type === "session.warning");
    expect(warning?.data).toMatchObject({ warningType: "mcp", message: expect.stringContaining('MCP server "broken" failed to start:') });
    expect(types.indexOf("session.warning")).toBeGreaterThan(types.indexOf("pending_messages.modified"));
    expect(await statusOf(session, "broken")).toMatchObject({ name: "broken", status: "failed", error: expect.any(String) });
    expect(await statusOf(session, "docs")).toEqual({ name: "docs", status: "connected" });
    await session.disconnect();
  });
});
