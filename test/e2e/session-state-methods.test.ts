/**
 * Session-scoped state methods of the official SDK 1.0.x, through its typed `session.rpc.*`
 * against the built runtime and the testkit's model server: shutdown, metadata and the working
 * directory, context measurements, the reasoning effort, automatic names, usage, instruction
 * sources, the session's identity, the model list and providers added at runtime, and what a
 * hosted service alone could offer (answered honestly).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ModelServer } from "@tandem/testkit";
import { CopilotClient as V1Client, RuntimeConnection, approveAll, type CopilotSession, type SessionEvent } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { scriptsDir, startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  await world?.dispose();
  world = undefined;
});

type SessionConfig = Parameters<V1Client["createSession"]>[0];

/**
 * Starts the model server and the runtime (through the official SDK 1.0.x) and opens a session;
 * `config` gets the test's home (for folders the session needs before it opens).
 */
async function open(config: (home: string) => SessionConfig = () => ({ onPermissionRequest: approveAll })): Promise<{ client: V1Client; session: CopilotSession; events: SessionEvent[] }> {
  world = await startWorld([]);
  world.model.loadScriptFiles(join(scriptsDir, "session-state-methods.yaml"));
  const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world.env, logLevel: "error" });
  cleanups.push(() => client.stop());
  const session = await client.createSession(config(world.home));
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  return { client, session, events };
}

/** A folder of its own under the test's home. */
function folder(name: string): string {
  const path = join(world!.home, name);
  mkdirSync(path, { recursive: true });
  return path;
}

/** The JSON-RPC error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<{ code?: number; message: string }> {
  return promise.then(
    () => ({ message: "resolved" }),
    (error: { code?: number; message: string }) => ({ code: error.code, message: error.message }),
  );
}

describe("session state", () => {
  it("session.shutdown ends the session with session.shutdown saying why; it is gone afterwards", async () => {
    const { session, events } = await open();
    await session.rpc.shutdown({ type: "error", reason: "the host is going away" });
    await waitFor(() => events.some((event) => event.type === "session.shutdown"), "session.shutdown");
    const shutdown = events.find((event) => event.type === "session.shutdown");
    expect(shutdown?.data).toMatchObject({ shutdownType: "error", errorReason: "the host is going away" });
    expect((await rejection(session.rpc.mode.get())).message).toMatch(/Session not found/);
  });

  it("metadata: a snapshot of the live session; the working directory moves only to an existing absolute folder, and recordContextChange speaks for that folder only", async () => {
    const { session, events } = await open();
    const first = folder("first");
    const snapshot = await session.rpc.metadata.snapshot();
    expect(snapshot).toMatchObject({ sessionId: session.sessionId, currentMode: "interactive", isRemote: false, alreadyInUse: false, workspace: { id: session.sessionId } });
    expect(Date.parse(snapshot.startTime)).not.toBeNaN();
    expect(await session.rpc.metadata.isProcessing()).toEqual({ processing: false });
    expect(await session.rpc.metadata.activity()).toEqual({ hasActiveWork: false, abortable: false });

    const second = folder("second");
    expect((await rejection(session.rpc.metadata.setWorkingDirectory({ workingDirectory: join(second, "missing") }))).code).toBe(-32602);
    expect((await rejection(session.rpc.metadata.setWorkingDirectory({ workingDirectory: "relative/path" }))).code).toBe(-32602);
    expect((await session.rpc.metadata.snapshot()).workingDirectory).toBe(snapshot.workingDirectory);
    expect(await session.rpc.metadata.setWorkingDirectory({ workingDirectory: second })).toEqual({ workingDirectory: second });
    expect((await session.rpc.metadata.snapshot()).workingDirectory).toBe(second);
    const workspaceYaml = readFileSync(join(world!.home, "session-state", session.sessionId, "workspace.yaml"), "utf8");
    expect(workspaceYaml).toContain(`cwd: ${JSON.stringify(second)}`);

    // A report for another folder is ignored; one for the session's folder is recorded.
    await session.rpc.metadata.recordContextChange({ context: { cwd: first, branch: "elsewhere" } });
    await session.rpc.metadata.recordContextChange({ context: { cwd: second, branch: "feature-x", headCommit: "1111111111111111111111111111111111111111" } });
    await waitFor(() => events.some((event) => event.type === "session.context_changed" && event.data.branch === "feature-x"), "the recorded context");
    expect(events.filter((event) => event.type === "session.context_changed" && event.data.branch === "elsewhere")).toEqual([]);

    // session.options.update moves it too.
    const third = folder("third");
    expect(await session.rpc.options.update({ workingDirectory: third })).toEqual({ success: true });
    expect((await session.rpc.metadata.snapshot()).workingDirectory).toBe(third);
  });

  it("names: an automatic title until the user names the session; the user's name wins", async () => {
    const { session, events } = await open();
    expect(await session.rpc.name.setAuto({ summary: "  Fixing the build  " })).toEqual({ applied: true });
    expect(await session.rpc.name.get()).toEqual({ name: "Fixing the build" });
    expect(await session.rpc.name.setAuto({ summary: "A better title" })).toEqual({ applied: true });
    await session.rpc.name.set({ name: "Mine" });
    expect(await session.rpc.name.setAuto({ summary: "Ignored" })).toEqual({ applied: false });
    expect(await session.rpc.name.get()).toEqual({ name: "Mine" });
    expect(events.filter((event) => event.type === "session.title_changed").map((event) => event.data.title)).toEqual(["Fixing the build", "A better title", "Mine"]);
    expect((await session.rpc.metadata.snapshot()).workspace).toMatchObject({ name: "Mine", user_named: true });
  });

  it("reasoning effort, usage and context measurements follow the conversation", async () => {
    const { session } = await open(() => ({ onPermissionRequest: approveAll, model: "gpt-4.1" }));
    expect(await session.rpc.model.setReasoningEffort({ reasoningEffort: "high" })).toEqual({ reasoningEffort: "high" });
    expect(await session.rpc.model.getCurrent()).toMatchObject({ modelId: "gpt-4.1", reasoningEffort: "high" });
    const before = await session.rpc.metadata.recomputeContextTokens({ modelId: "gpt-4.1" });
    expect(before.messagesTokenCount).toBe(0);

    await session.sendAndWait({ prompt: "How are you?" });
    expect((world!.model.requests.at(-1)?.body as { reasoning_effort?: string }).reasoning_effort).toBe("high");

    const usage = await session.rpc.usage.getMetrics();
    expect(usage).toMatchObject({ totalUserRequests: 1, lastCallInputTokens: 40, lastCallOutputTokens: 7, currentModel: "gpt-4.1" });
    expect(usage.modelMetrics["gpt-4.1"]).toMatchObject({ requests: { count: 1 }, usage: { inputTokens: 40, outputTokens: 7 } });

    const after = await session.rpc.metadata.recomputeContextTokens({ modelId: "gpt-4.1" });
    expect(after.messagesTokenCount).toBeGreaterThan(0);
    expect(after.totalTokens).toBe(after.systemTokenCount + after.messagesTokenCount);
    const { contextInfo } = await session.rpc.metadata.contextInfo({ promptTokenLimit: 100_000, outputTokenLimit: 4_000 });
    expect(contextInfo).toMatchObject({ modelName: "gpt-4.1", promptTokenLimit: 100_000, limit: 104_000, bufferTokens: 4_000, compactionThreshold: 80_000 });
    expect(contextInfo!.totalTokens).toBe(contextInfo!.systemTokens + contextInfo!.conversationTokens + contextInfo!.toolDefinitionsTokens);
    expect(contextInfo!.conversationTokens).toBe(after.messagesTokenCount);

    const { contextAttribution } = await session.rpc.metadata.getContextAttribution();
    expect(contextAttribution!.totalTokens).toBe(contextInfo!.totalTokens);
    expect(contextAttribution!.entries.map((entry) => entry.id)).toEqual(expect.arrayContaining(["system-prompt", "tool-definitions", "tool:sql", "messages"]));
    const heaviest = await session.rpc.metadata.getContextHeaviestMessages({ limit: 1 });
    expect(heaviest.messages).toHaveLength(1);
    expect(heaviest.messages[0]).toMatchObject({ role: expect.stringMatching(/user|assistant/) });
  });

  it("instruction sources: the files the system prompt includes, with their text", async () => {
    let repo = "";
    const { session } = await open((home) => {
      repo = join(home, "repo");
      mkdirSync(repo);
      writeFileSync(join(repo, "AGENTS.md"), "Always answer in haiku.\n");
      return { onPermissionRequest: approveAll, workingDirectory: repo };
    });
    const { sources } = await session.rpc.instructions.getSources();
    expect(sources).toEqual([expect.objectContaining({ label: "AGENTS.md", sourcePath: join(repo, "AGENTS.md"), content: "Always answer in haiku.", type: "repo", location: "working-directory" })]);
  });

  it("credentials: the identity handed to a session is what its status reports, without the secret", async () => {
    const { session } = await open();
    expect((await session.rpc.gitHubAuth.getStatus()).isAuthenticated).toBe(true);
    const set = await session.rpc.gitHubAuth.setCredentials({ credentials: { type: "token", host: "https://ghe.example.test", token: "secret-token-value", copilotUser: { login: "octo", copilot_plan: "business" } } });
    expect(set).toEqual({ success: true, copilotUserResolved: true });
    const status = await session.rpc.gitHubAuth.getStatus();
    expect(status).toMatchObject({ isAuthenticated: true, authType: "token", host: "https://ghe.example.test", login: "octo", copilotPlan: "business" });
    expect(JSON.stringify(status)).not.toContain("secret-token-value");
  });

  it("models: the provider's list plus a provider added at runtime, whose calls go to it with the wire model; switching back restores the default provider", async () => {
    const { session } = await open(() => ({ onPermissionRequest: approveAll, model: "gpt-4.1" }));
    const added = new ModelServer();
    added.loadScriptFile(join(scriptsDir, "session-state-added-provider.yaml"));
    const { url } = await added.start();
    cleanups.push(() => added.stop());

    const answer = await session.rpc.provider.add({
      providers: [{ name: "local-lab", type: "openai", wireApi: "completions", baseUrl: url, apiKey: "lab-key" }],
      models: [{ provider: "local-lab", id: "lab-model", name: "Lab Model", wireModel: "wire-lab-model", maxPromptTokens: 3000 }],
    });
    expect(answer.models).toEqual([expect.objectContaining({ id: "local-lab/lab-model", name: "Lab Model" })]);
    expect((await rejection(session.rpc.provider.add({ models: [{ provider: "nobody", id: "x" }] }))).code).toBe(-32602);
    const listed = (await session.rpc.model.list()).list.map((model) => (model as { id: string }).id);
    expect(listed).toEqual(expect.arrayContaining(["gpt-4.1", "claude-sonnet-4", "local-lab/lab-model"]));

    expect(await session.rpc.model.switchTo({ modelId: "local-lab/lab-model" })).toEqual({ modelId: "local-lab/lab-model" });
    const reply = await session.sendAndWait({ prompt: "Who answers?" });
    expect(reply?.data.content).toBe("Answer from the added provider.");
    expect(added.requests).toHaveLength(1);
    expect(added.requests[0]?.body).toMatchObject({ model: "wire-lab-model" });
    expect(added.requests[0]?.headers.authorization).toBe("Bearer lab-key");

    await session.rpc.model.switchTo({ modelId: "gpt-4.1" });
    const before = world!.model.requests.length;
    expect((await session.sendAndWait({ prompt: "And now?" }))?.data.content).toBe("Second plain answer.");
    expect(world!.model.requests.length).toBe(before + 1);
    expect(added.requests).toHaveLength(1);
  });

  it("what only a hosted service could offer is answered honestly", async () => {
    const { session } = await open();
    // The session's one server is the GitHub MCP server (Copilot API mode), a remote one: it joins
    // when the servers are first listed (or at the first message), and Tandem runs no OAuth flow for it.
    const beforeJoining = await rejection(session.rpc.mcp.oauth.login({ serverName: "github-mcp-server" }));
    expect(beforeJoining.code).toBe(-32005);
    expect(beforeJoining.message).toMatch(/^MCP host is not available: .*the runtime's own \(github-mcp-server\) join at the session's first message/);
    expect((await session.rpc.mcp.list()).servers.map((server) => server.name)).toEqual(["github-mcp-server"]);
    const oauth = await rejection(session.rpc.mcp.oauth.login({ serverName: "github-mcp-server" }));
    expect(oauth.code).toBe(-32005);
    expect(oauth.message).toMatch(/MCP OAuth login is not available for "github-mcp-server"/);
    expect(await session.rpc.visibility.get()).toEqual({ synced: false });
    expect(await session.rpc.visibility.set({ status: "repo" })).toEqual({ synced: false });
    expect(await session.rpc.completions.getTriggerCharacters()).toEqual({ triggerCharacters: [] });
    expect(await session.rpc.completions.request({ text: "Use @", offset: 5 })).toEqual({ items: [] });
    expect(await session.rpc.plugins.list()).toEqual({ plugins: [] });
    expect(await session.rpc.telemetry.getEngagementId()).toEqual({ engagementId: session.sessionId });
  });

  it("fork and workspace files refuse what they cannot do, saying why", async () => {
    const { client, session } = await open();
    for (const path of ["../escaped.txt", "nested/../../../escaped.txt"]) {
      expect((await rejection(session.rpc.workspaces.createFile({ path, content: "x" }))).message).toMatch(/workspace files directory/);
    }
    await session.sendAndWait({ prompt: "Hello" });
    const bogus = "00000000-0000-4000-8000-000000000000";
    const forked = await rejection(client.rpc.sessions.fork({ sessionId: session.sessionId, toEventId: bogus }));
    expect(forked.message).toContain(`Event ${bogus} not found`);
    const missing = await rejection(client.rpc.sessions.fork({ sessionId: "no-such-session" }));
    expect(missing.message).toMatch(/not found or has no persisted events/);
    expect(existsSync(join(world!.home, "session-state", "no-such-session"))).toBe(false);
  });
});
