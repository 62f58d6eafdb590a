/**
 * Server and session methods through the official SDK: auth and model discovery in Copilot API
 * mode, BYOK precedence, abort, logging, foreground, delete, and the runtime's command line.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, approveAll, type SessionEvent } from "@github/copilot-sdk";
import { ModelServer } from "@tandem/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { scriptsDir, startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { startTcpRuntime } from "../helpers/tcp.js";

let world: TestWorld | undefined;
const clients: CopilotClient[] = [];
const servers: ModelServer[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop();
  for (const server of servers.splice(0)) await server.stop();
  await world?.dispose();
});

function client(options: ConstructorParameters<typeof CopilotClient>[0] = {}): CopilotClient {
  if (!world) throw new Error("no world");
  const created = new CopilotClient({ cliPath: tandemBin, env: world.env, logLevel: "error", ...options });
  clients.push(created);
  return created;
}

describe("server methods", () => {
  it("reports status, auth and the models of the Copilot API, with the token from --auth-token-env", async () => {
    world = await startWorld(["plain-reply"]);
    const env = { ...world.env };
    delete env.GH_TOKEN;
    const copilot = client({ env, githubToken: "token-from-sdk" });
    await copilot.start();
    expect(await copilot.getStatus()).toMatchObject({ version: "0.1.0", protocolVersion: 3 });
    expect(await copilot.getAuthStatus()).toMatchObject({ isAuthenticated: true });
    const models = await copilot.listModels();
    expect(models.map((model) => model.id)).toEqual(["gpt-4.1", "claude-sonnet-4"]);
    expect(models[0]?.capabilities.limits.max_context_window_tokens).toBeGreaterThan(0);
    const session = await copilot.createSession({ onPermissionRequest: approveAll, model: "claude-sonnet-4" });
    await session.sendAndWait({ prompt: "hi" });
    const chat = world.model.requests.find((request) => request.path.endsWith("/chat/completions"));
    expect(chat?.headers.authorization).toBe("Bearer token-from-sdk");
    expect((chat?.body as { model: string }).model).toBe("claude-sonnet-4");
    expect(world.model.modelListRequests[0]?.headers.authorization).toBe("Bearer token-from-sdk");
  });

  it("keeps the token an SDK hands the runtime out of the commands the model runs", async () => {
    world = await startWorld(["bash-secret-env"]);
    const env = { ...world.env };
    delete env.GH_TOKEN;
    const copilot = client({ env, githubToken: "token-from-sdk" });
    const session = await copilot.createSession({ onPermissionRequest: approveAll });
    await session.sendAndWait({ prompt: "show the environment" });
    const chats = world.model.requests.filter((request) => request.path.endsWith("/chat/completions"));
    expect(chats.at(-1)?.headers.authorization).toBe("Bearer token-from-sdk");
    const toolMessage = (chats.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages.find((message) => message.role === "tool");
    expect(toolMessage?.content).toContain("sdk:[] conn:[] path:[set]");
  });

  it("answers account.getQuota with a clear not-available error", async () => {
    world = await startWorld(["plain-reply"]);
    const copilot = client();
    await copilot.start();
    await expect(copilot.rpc.account.getQuota()).rejects.toThrow(/not available/i);
  });

  it("prefers a BYOK provider from session.create over COPILOT_API_URL", async () => {
    world = await startWorld(["plain-reply"]);
    const byok = new ModelServer();
    servers.push(byok);
    byok.loadScriptFile(join(scriptsDir, "byok.yaml"));
    const { url } = await byok.start();
    const session = await client().createSession({
      onPermissionRequest: approveAll,
      model: "my-local-model",
      provider: { type: "openai", baseUrl: url, apiKey: "sk-byok" },
    });
    const reply = await session.sendAndWait({ prompt: "hi" });
    expect(reply?.data.content).toBe("Answered by the BYOK provider.");
    expect(world.model.requests).toHaveLength(0);
    expect(byok.requests[0]?.headers.authorization).toBe("Bearer sk-byok");
    expect((byok.requests[0]?.body as { model: string }).model).toBe("my-local-model");
  });

  it("creates a session when COPILOT_API_URL is set without a token (as the official runtime does) and fails its first turn with one NotConfigured session.error saying what to set", async () => {
    world = await startWorld(["plain-reply"]);
    const { GH_TOKEN: _token, ...withoutToken } = world.env;
    const copilot = client({ env: withoutToken });
    const session = await copilot.createSession({ onPermissionRequest: approveAll });
    const errors: Array<{ errorType: string; message: string }> = [];
    session.on("session.error", (event) => errors.push(event.data));
    await expect(session.sendAndWait({ prompt: "hi" })).rejects.toThrow(/COPILOT_API_URL is set \(http:\/\/127\.0\.0\.1:\d+\) but no GitHub token is: set COPILOT_GITHUB_TOKEN, GH_TOKEN or GITHUB_TOKEN/);
    expect(errors).toEqual([expect.objectContaining({ errorType: "authentication" })]);
    expect(world.model.requests).toHaveLength(0);
    const byok = new ModelServer();
    servers.push(byok);
    byok.loadScriptFile(join(scriptsDir, "byok.yaml"));
    const { url } = await byok.start();
    const withProvider = await copilot.createSession({ onPermissionRequest: approveAll, provider: { type: "openai", baseUrl: url, apiKey: "sk-byok" } });
    expect((await withProvider.sendAndWait({ prompt: "hi" }))?.data.content).toBe("Answered by the BYOK provider.");
  });

  it("with no provider configured at all, creates the session (as the official runtime does) and fails its first turn with one NotConfigured session.error saying what to set", async () => {
    world = await startWorld(["plain-reply"]);
    const { GH_TOKEN: _token, COPILOT_API_URL: _url, ...unconfigured } = world.env;
    const copilot = client({ env: unconfigured });
    const session = await copilot.createSession({ onPermissionRequest: approveAll });
    const errors: Array<{ errorType: string; message: string }> = [];
    session.on("session.error", (event) => errors.push(event.data));
    await expect(session.sendAndWait({ prompt: "hi" })).rejects.toThrow(/No model provider is configured: set COPILOT_API_URL with a GitHub token/);
    expect(errors).toHaveLength(1);
    // A clear message, not a stack trace.
    expect(errors[0]).toMatchObject({ errorType: "authentication", message: expect.stringMatching(/^No model provider is configured/) });
    expect(errors[0]).not.toHaveProperty("stack");
    // The session is still usable with a provider of its own.
    const byok = new ModelServer();
    servers.push(byok);
    byok.loadScriptFile(join(scriptsDir, "byok.yaml"));
    const { url } = await byok.start();
    const withProvider = await copilot.createSession({ onPermissionRequest: approveAll, provider: { type: "openai", baseUrl: url, apiKey: "sk-byok" } });
    expect((await withProvider.sendAndWait({ prompt: "hi" }))?.data.content).toBe("Answered by the BYOK provider.");
  });

  it("resumes a session without its own provider when COPILOT_API_URL is set without a token; its next turn fails with NotConfigured and sends nothing", async () => {
    world = await startWorld(["plain-reply"]);
    const first = client();
    const created = await first.createSession({ onPermissionRequest: approveAll });
    await created.sendAndWait({ prompt: "hi" });
    await first.stop();
    const requestsBefore = world.model.requests.length;

    const { GH_TOKEN: _token, ...withoutToken } = world.env;
    const copilot = client({ env: withoutToken });
    const resumed = await copilot.resumeSession(created.sessionId, { onPermissionRequest: approveAll });
    expect(resumed.sessionId).toBe(created.sessionId);
    await expect(resumed.sendAndWait({ prompt: "again" })).rejects.toThrow(/COPILOT_API_URL is set \(http:\/\/127\.0\.0\.1:\d+\) but no GitHub token is/);
    expect(world.model.requests).toHaveLength(requestsBefore);
  });
});

describe("session methods", () => {
  it("aborts a hanging model call: abort then idle, and the session stays usable", async () => {
    world = await startWorld(["hang-then-reply"]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.send({ prompt: "this will hang" });
    await waitFor(() => world?.model.requests.length === 1, "the model request");
    await session.abort();
    await waitFor(() => events.some((event) => event.type === "session.idle"), "idle after abort");
    const types = events.map((event) => event.type);
    expect(types.indexOf("abort")).toBeGreaterThan(-1);
    expect(types.indexOf("abort")).toBeLessThan(types.indexOf("session.idle"));
    expect(events.find((event) => event.type === "abort")?.data).toEqual({ reason: "user initiated" });
    // As 1.0.10 (0.2.0's runtime): the turn the abort interrupted gets no assistant.turn_end.
    expect(types.filter((type) => type === "assistant.turn_start")).toHaveLength(types.filter((type) => type === "assistant.turn_end").length + 1);
    const reply = await session.sendAndWait({ prompt: "again" });
    expect(reply?.data.content).toBe("Back after the abort.");
  });

  it("aborts a tool that never answers; the model later sees it as interrupted", async () => {
    world = await startWorld(["custom-tool"]);
    let started = false;
    const session = await client().createSession({
      onPermissionRequest: approveAll,
      tools: [{ name: "get_weather", description: "never returns", handler: () => ((started = true), new Promise(() => undefined)) }],
    });
    const idle = new Promise<void>((resolve) => session.on("session.idle", () => resolve()));
    await session.send({ prompt: "weather" });
    await waitFor(() => started, "the tool to start");
    await session.abort();
    await idle;
    await session.sendAndWait({ prompt: "never mind" });
    const messages = (world.model.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages;
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(messages[3]?.content).toMatch(/interrupted/);
  });

  it("logs to the timeline, sets the foreground session, deletes sessions", async () => {
    world = await startWorld(["plain-reply"]);
    const copilot = client();
    const session = await copilot.createSession({ onPermissionRequest: approveAll });
    const infos: SessionEvent[] = [];
    session.on((event) => {
      if (event.type === "session.info" || event.type === "session.warning") infos.push(event);
    });
    await session.log("hello timeline");
    await session.log("careful", { level: "warning" });
    await waitFor(() => infos.length === 2, "log events");
    expect(infos.map((event) => event.data)).toEqual([
      { infoType: "notification", message: "hello timeline" },
      { warningType: "notification", message: "careful" },
    ]);
    await copilot.setForegroundSessionId(session.sessionId);
    expect(await copilot.getForegroundSessionId()).toBe(session.sessionId);
    await session.sendAndWait({ prompt: "keep me" });
    expect(await session.rpc.model.getCurrent()).toEqual({ modelId: "gpt-4.1" });

    const sessionDir = join(world.home, "session-state", session.sessionId);
    expect(readFileSync(join(sessionDir, "workspace.yaml"), "utf8")).toContain('summary: "keep me"');
    await copilot.deleteSession(session.sessionId);
    expect(existsSync(sessionDir)).toBe(false);
    expect(await copilot.listSessions()).toEqual([]);
    await expect(copilot.deleteSession(session.sessionId)).rejects.toThrow(/not found/i);
  });
});

describe("workspace files", () => {
  it("creates, lists and reads session workspace files, and refuses paths outside them", async () => {
    world = await startWorld(["plain-reply"]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    await session.rpc.workspace.createFile({ path: "notes/todo.md", content: "- ship it\n" });
    await session.rpc.workspace.createFile({ path: "a.txt", content: "a" });
    expect(await session.rpc.workspace.listFiles()).toEqual({ files: ["a.txt", "notes/todo.md"] });
    expect(await session.rpc.workspace.readFile({ path: "notes/todo.md" })).toEqual({ content: "- ship it\n" });
    expect(existsSync(join(world.home, "session-state", session.sessionId, "files", "notes", "todo.md"))).toBe(true);
    await expect(session.rpc.workspace.readFile({ path: "../workspace.yaml" })).rejects.toThrow(/must stay inside/);
    await expect(session.rpc.workspace.createFile({ path: "../../escape.txt", content: "x" })).rejects.toThrow(/must stay inside/);
    await expect(session.rpc.workspace.readFile({ path: "missing.txt" })).rejects.toThrow(/not found/);
    expect(existsSync(join(world.home, "session-state", "escape.txt"))).toBe(false);
  });
});

describe("lifecycle and logs", () => {
  it("notifies session.created, session.updated and session.deleted", async () => {
    world = await startWorld(["plain-reply"]);
    const copilot = client();
    const seen: Array<{ type: string; sessionId: string }> = [];
    copilot.on((event) => seen.push({ type: event.type, sessionId: event.sessionId }));
    const session = await copilot.createSession({ onPermissionRequest: approveAll });
    await session.sendAndWait({ prompt: "hello" });
    await waitFor(() => seen.some((event) => event.type === "session.updated"), "session.updated");
    await copilot.deleteSession(session.sessionId);
    await waitFor(() => seen.some((event) => event.type === "session.deleted"), "session.deleted");
    expect(seen.find((event) => event.type === "session.created")?.sessionId).toBe(session.sessionId);
    expect(seen.filter((event) => event.sessionId !== session.sessionId)).toEqual([]);
  });

  it("sends session.updated at most once per session per 100 ms, and always after the last change", async () => {
    world = await startWorld(["many-replies"]);
    const copilot = client();
    const updates: number[] = [];
    const session = await copilot.createSession({ onPermissionRequest: approveAll });
    copilot.on((event) => {
      if (event.type === "session.updated" && event.sessionId === session.sessionId) updates.push(Date.now());
    });
    let lastTurnEnd = 0;
    session.on("assistant.turn_end", () => (lastTurnEnd = Date.now()));
    const started = Date.now();
    for (let index = 0; index < 5; index++) await session.sendAndWait({ prompt: `message ${index}` });
    const busyMs = Date.now() - started;
    // The notification after the last change comes at the end of its 100 ms window.
    await waitFor(() => (updates.at(-1) ?? 0) >= lastTurnEnd, "a session.updated after the last turn");
    // Five runs emit dozens of persisted events; one notification per 100 ms window at most.
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates.length).toBeLessThanOrEqual(Math.ceil((busyMs + 100) / 100) + 1);
    expect(updates.at(-1)).toBeGreaterThanOrEqual(lastTurnEnd);
    for (let index = 1; index < updates.length; index++) expect(updates[index]! - updates[index - 1]!).toBeGreaterThanOrEqual(90);
  });

  it("writes logs to --log-file and keeps stdout for JSON-RPC frames only", async () => {
    world = await startWorld(["server-error"]);
    const logFile = join(world.home, "tandem.log");
    const copilot = client({ cliArgs: ["--log-file", logFile], logLevel: "warning", env: { ...world.env, TANDEM_MAX_RETRIES: "0" } });
    const session = await copilot.createSession({ onPermissionRequest: approveAll });
    await expect(session.sendAndWait({ prompt: "fail please" })).rejects.toThrow(/upstream exploded/);
    await waitFor(() => existsSync(logFile) && readFileSync(logFile, "utf8").includes("model call failed"), "the log line");
    expect(readFileSync(logFile, "utf8")).toMatch(/\[WARNING\] \[sessionId=\S+ interactionId=\S+\] model call failed: Model request failed \(HTTP 500\)/);
  });
});

describe("start-up", () => {
  it("answers ping without loading the runtime, and adopts that client once another request loads it", async () => {
    world = await startWorld(["plain-reply"]);
    const runtime = await startTcpRuntime(world.env, { args: ["--log-level", "debug"] });
    try {
      const cliUrl = runtime.cliUrl;
      const watcher = new CopilotClient({ cliUrl, logLevel: "error" });
      clients.push(watcher);
      const seen: Array<{ type: string; sessionId: string }> = [];
      watcher.on((event) => seen.push({ type: event.type, sessionId: event.sessionId }));
      await watcher.start();
      expect((await watcher.ping("first")).message).toBe("pong: first");
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(runtime.stderr).not.toContain("runtime loaded");

      const creator = new CopilotClient({ cliUrl, logLevel: "error" });
      clients.push(creator);
      const session = await creator.createSession({ onPermissionRequest: approveAll });
      expect(runtime.stderr).toMatch(/runtime loaded in \d+ ms/);
      await waitFor(() => seen.some((event) => event.type === "session.created"), "session.created on the first client");
      expect(seen.find((event) => event.type === "session.created")?.sessionId).toBe(session.sessionId);
    } finally {
      // Clients first: a request in flight when the runtime goes away is never answered, and the
      // official SDK 0.2.0 waits for it without a time limit.
      for (const client of clients.splice(0)) await client.forceStop();
      await runtime.stop("SIGTERM");
    }
  });
});

describe("command line", () => {
  it("prints help and version, refuses unknown flags, rejects bad values", () => {
    const help = spawnSync(process.execPath, [tandemBin, "--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("--stdio");
    const version = spawnSync(process.execPath, [tandemBin, "--version"], { encoding: "utf8" });
    expect(version.stdout.trim()).toBe("0.1.0");
    const bad = spawnSync(process.execPath, [tandemBin, "--log-level", "loud"], { encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--log-level must be one of");
    const unknown = spawnSync(process.execPath, [tandemBin, "--stdio", "--frobnicate"], { encoding: "utf8", input: "" });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown flag --frobnicate");
    expect(unknown.stdout).toBe("");
  });
});
