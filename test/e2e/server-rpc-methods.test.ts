/**
 * The server-scoped methods of the 1.0.x protocol, driven through the official 1.0.x SDK against
 * the real `tandem`: stored sessions (`sessions.*`), remote control (always off), `session.remote.*`,
 * sessionless discovery (`skills/agents/instructions/mcp`), user settings, secret filtering,
 * the agent registry gate, extension-only methods, delegated model responses and TCP token refusals.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient as V1Client, RuntimeConnection, approveAll } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { ErrorCodes } from "@tandem/protocol/errors";

const { NotAvailable, InvalidParams } = ErrorCodes;

const SessionNotFound = -32001;
const SessionBusy = -32002;

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown> | unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.dispose();
  world = undefined;
});

/** The official SDK 1.0.x over stdio, started, and stopped after the test. */
async function v1Client(env: Record<string, string>): Promise<V1Client> {
  const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env, logLevel: "error" });
  cleanups.push(() => client.forceStop());
  await client.start();
  return client;
}

/** The JSON-RPC error a call fails with (fails the test when it succeeds). */
async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  return call.then(
    (result) => {
      throw new Error(`expected an error, got ${JSON.stringify(result)}`);
    },
    (error: { code: number; message: string }) => ({ code: error.code, message: error.message }),
  );
}

function mustWorld(): TestWorld {
  if (!world) throw new Error("no world");
  return world;
}

function sessionDir(sessionId: string): string {
  return join(mustWorld().home, "session-state", sessionId);
}

function persistedEvents(sessionId: string): Array<{ type: string; data: Record<string, unknown> }> {
  const file = join(sessionDir(sessionId), "events.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
}

function folder(...parts: string[]): string {
  const path = join(mustWorld().home, ...parts);
  mkdirSync(path, { recursive: true });
  return path;
}

describe("sessions.* on stored sessions", () => {
  it("saves, closes, releases, measures, finds, enriches, prunes (dry run) and bulk-deletes a session", async () => {
    world = await startWorld([]);
    const client = await v1Client(world.env);
    const cwd = folder("project-a");
    const session = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: cwd });
    const { sessionId } = session;
    await session.log("ready to save", { level: "warning" });

    await client.rpc.sessions.save({ sessionId });
    expect(persistedEvents(sessionId).some((event) => event.type === "session.warning" && event.data.message === "ready to save")).toBe(true);
    expect(readFileSync(join(sessionDir(sessionId), "workspace.yaml"), "utf8")).toContain(cwd);

    expect((await client.rpc.sessions.checkInUse({ sessionIds: [sessionId, "no-such-session"] })).inUse).toEqual([sessionId]);
    expect((await rpcError(client.rpc.sessions.releaseLock({ sessionId }))).code).toBe(SessionBusy);

    await client.rpc.sessions.close({ sessionId });
    expect((await client.rpc.sessions.checkInUse({ sessionIds: [sessionId] })).inUse).toEqual([]);
    await expect(client.rpc.sessions.releaseLock({ sessionId })).resolves.toEqual({});
    // Closed, it can still be saved (nothing to write), while an unknown id is refused.
    await expect(client.rpc.sessions.save({ sessionId })).resolves.toEqual({});
    expect((await rpcError(client.rpc.sessions.save({ sessionId: "no-such-session" }))).code).toBe(SessionNotFound);

    expect(await client.rpc.sessions.findByPrefix({ prefix: sessionId.slice(0, 8) })).toEqual({ sessionId });
    expect(await client.rpc.sessions.findByPrefix({ prefix: "zzzz-not-a-prefix" })).toEqual({});
    expect(await client.rpc.sessions.findByTaskId({ taskId: "any-task" })).toEqual({});

    const sizes = (await client.rpc.sessions.getSizes()).sizes;
    const eventsBytes = readFileSync(join(sessionDir(sessionId), "events.jsonl")).length;
    expect(sizes[sessionId]).toBeGreaterThanOrEqual(eventsBytes);

    const [enriched] = (
      await client.rpc.sessions.enrichMetadata({
        sessions: [{ sessionId, startTime: "2000-01-01T00:00:00.000Z", modifiedTime: "2000-01-01T00:00:00.000Z", isRemote: false }],
      })
    ).sessions;
    expect(enriched?.context?.cwd).toBe(cwd);
    expect(enriched?.startTime).not.toBe("2000-01-01T00:00:00.000Z");

    const prune = await client.rpc.sessions.pruneOld({ olderThanDays: 0, dryRun: true });
    expect(prune).toMatchObject({ dryRun: true, deleted: [], candidates: [sessionId] });
    expect(prune.freedBytes).toBe(sizes[sessionId]);
    expect(existsSync(sessionDir(sessionId))).toBe(true);
    expect((await client.rpc.sessions.pruneOld({ olderThanDays: 0, dryRun: true, excludeSessionIds: [sessionId] })).skipped).toEqual([sessionId]);

    const deleted = await client.rpc.sessions.bulkDelete({ sessionIds: [sessionId, "no-such-session"] });
    expect(deleted.freedBytes).toEqual({ [sessionId]: sizes[sessionId], "no-such-session": 0 });
    expect(existsSync(sessionDir(sessionId))).toBe(false);
  });

  it("lists, finds the last session of a folder and opens it; connect to a remote session is not available", async () => {
    world = await startWorld(["plain-reply"]);
    const client = await v1Client(world.env);
    const cwd = folder("project-b");
    expect(await client.rpc.sessions.open({ kind: "resumeLast", context: { cwd } })).toEqual({ status: "not_found" });

    const session = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: cwd });
    await session.sendAndWait({ prompt: "Say hello" });
    await session.disconnect();

    const listed = await client.rpc.sessions.list({ filter: { cwd } });
    expect(listed.sessions.map((entry) => entry.sessionId)).toEqual([session.sessionId]);
    expect(listed.sessions[0]).toMatchObject({ summary: "Say hello", isRemote: false, context: { cwd } });
    expect((await client.rpc.sessions.list({ filter: { cwd }, metadataLimit: 0 })).sessions[0]?.summary).toBeUndefined();
    expect((await client.rpc.sessions.list({ source: "remote" })).sessions).toEqual([]);
    expect(await client.rpc.sessions.getLastForContext({ context: { cwd } })).toEqual({ sessionId: session.sessionId });
    expect(await client.rpc.sessions.getLastForContext({ context: { cwd: folder("elsewhere") } })).toEqual({});

    expect(await client.rpc.sessions.open({ kind: "resumeLast", context: { cwd } })).toEqual({ status: "resumed", sessionId: session.sessionId });
    expect((await client.rpc.sessions.checkInUse({ sessionIds: [session.sessionId] })).inUse).toEqual([session.sessionId]);

    const refused = await rpcError(client.rpc.sessions.connect({ sessionId: "remote-1234" }));
    expect(refused.code).toBe(NotAvailable);
    expect(refused.message).toContain("remote-1234");
    expect(await client.rpc.sessions.open({ kind: "resume", sessionId: "no-such-session" })).toEqual({ status: "not_found" });
    expect((await rpcError(client.rpc.sessions.open({ kind: "remote", remoteSessionId: "r-1" } as never))).code).toBe(NotAvailable);

    // Tandem loads no plugins or hook files: an empty plugin list is accepted, any other refused.
    expect(await client.rpc.sessions.setAdditionalPlugins({ plugins: [] })).toEqual({});
    expect((await rpcError(client.rpc.sessions.setAdditionalPlugins({ plugins: [{ name: "p" }] as never }))).code).toBe(NotAvailable);
    expect(await client.rpc.sessions.reloadPluginHooks({ sessionId: session.sessionId, deferRepoHooks: true })).toEqual({});
    expect((await rpcError(client.rpc.sessions.reloadPluginHooks({ sessionId: "no-such-session" }))).code).toBe(SessionNotFound);
    expect(await client.rpc.sessions.loadDeferredRepoHooks({ sessionId: session.sessionId })).toEqual({ startupPrompts: [], hookCount: 0 });
  });
});

describe("remote control and session.remote.*", () => {
  it("reports remote control off, refuses to start it, and records the session's remote steerability", async () => {
    world = await startWorld([]);
    const client = await v1Client(world.env);
    const session = await client.createSession({ onPermissionRequest: approveAll });

    expect(await client.rpc.sessions.getRemoteControlStatus()).toEqual({ status: { state: "off" } });
    expect(await client.rpc.sessions.setRemoteControlSteering({ enabled: true })).toEqual({ status: { state: "off" } });
    expect(await client.rpc.sessions.stopRemoteControl({})).toEqual({ status: { state: "off" }, stopped: false });
    expect(await client.rpc.sessions.transferRemoteControl({ toSessionId: session.sessionId })).toEqual({ status: { state: "off" }, transferred: false });
    const config = { remote: false, explicit: false, silent: true, steerable: false };
    expect((await rpcError(client.rpc.sessions.startRemoteControl({ sessionId: "no-such-session", config }))).code).toBe(SessionNotFound);
    expect((await rpcError(client.rpc.sessions.startRemoteControl({ sessionId: session.sessionId, config }))).code).toBe(NotAvailable);

    expect(await session.rpc.remote.enable({ mode: "off" })).toEqual({ remoteSteerable: false });
    expect((await rpcError(session.rpc.remote.enable({ mode: "on" }))).code).toBe(NotAvailable);
    await session.rpc.remote.disable();

    const seen: boolean[] = [];
    session.on("session.remote_steerable_changed", (event) => seen.push(event.data.remoteSteerable));
    await session.rpc.remote.notifySteerableChanged({ remoteSteerable: true });
    await session.rpc.remote.notifySteerableChanged({ remoteSteerable: false });
    await waitFor(() => seen.length === 2, "both steerability events");
    expect(seen).toEqual([true, false]);
    await client.rpc.sessions.save({ sessionId: session.sessionId });
    const persisted = persistedEvents(session.sessionId).filter((event) => event.type === "session.remote_steerable_changed");
    expect(persisted.map((event) => event.data.remoteSteerable)).toEqual([true, false]);
  });
});

describe("sessionless discovery and user settings", () => {
  it("discovers the projects' skills, agents and instructions; disabled skills come from the user settings", async () => {
    world = await startWorld([]);
    const client = await v1Client(world.env);
    const project = folder("repo");
    mkdirSync(join(project, ".github", "skills", "release-notes"), { recursive: true });
    writeFileSync(join(project, ".github", "skills", "release-notes", "SKILL.md"), "---\nname: release-notes\ndescription: Writes release notes.\n---\nSteps.\n");
    mkdirSync(join(project, ".github", "agents"), { recursive: true });
    writeFileSync(join(project, ".github", "agents", "reviewer.agent.md"), "---\ndescription: Reviews diffs.\ntools: [view]\n---\nReview carefully.\n");
    writeFileSync(join(project, "AGENTS.md"), "Use tabs.\n");
    const extra = folder("extra-skills", "lint");
    writeFileSync(join(extra, "SKILL.md"), "---\nname: lint\ndescription: Lints.\n---\n");

    const skillPaths = (await client.rpc.skills.getDiscoveryPaths({ projectPaths: [project], excludeHostSkills: true })).paths;
    expect(skillPaths).toEqual([{ path: join(project, ".github", "skills"), scope: "project", preferredForCreation: true, projectPath: project }]);
    const skills = (await client.rpc.skills.discover({ projectPaths: [project], skillDirectories: [join(world.home, "extra-skills")], excludeHostSkills: true })).skills;
    expect(skills.map((skill) => [skill.name, skill.description, skill.enabled, skill.projectPath])).toEqual([
      ["release-notes", "Writes release notes.", true, project],
      ["lint", "Lints.", true, undefined],
    ]);

    await client.rpc.skills.config.setDisabledSkills({ disabledSkills: ["lint"] });
    expect(JSON.parse(readFileSync(join(world.home, "config.json"), "utf8"))).toEqual({ disabledSkills: ["lint"] });
    const afterDisable = (await client.rpc.skills.discover({ projectPaths: [project], skillDirectories: [join(world.home, "extra-skills")], excludeHostSkills: true })).skills;
    expect(afterDisable.map((skill) => [skill.name, skill.enabled])).toEqual([
      ["release-notes", true],
      ["lint", false],
    ]);

    // A new session starts with the user's disabled skills turned off too.
    const session = await client.createSession({ onPermissionRequest: approveAll, skillDirectories: [join(world.home, "extra-skills")] });
    expect((await session.rpc.skills.list()).skills.map((skill) => [skill.name, skill.enabled])).toEqual([["lint", false]]);

    const agents = (await client.rpc.agents.discover({ projectPaths: [project], excludeHostAgents: true })).agents;
    expect(agents).toEqual([expect.objectContaining({ name: "reviewer", description: "Reviews diffs.", tools: ["view"], path: join(project, ".github", "agents", "reviewer.agent.md") })]);
    const agentPaths = (await client.rpc.agents.getDiscoveryPaths({ projectPaths: [project] })).paths;
    expect(agentPaths.map((path) => path.path)).toEqual([join(project, ".github", "agents"), join(world.home, "agents")]);

    const sources = (await client.rpc.instructions.discover({ projectPaths: [project] })).sources;
    expect(sources).toEqual([expect.objectContaining({ label: "AGENTS.md", sourcePath: join(project, "AGENTS.md"), content: "Use tabs.\n", projectPath: project })]);
    const instructionPaths = (await client.rpc.instructions.getDiscoveryPaths({ projectPaths: [project] })).paths;
    expect(instructionPaths.map((path) => path.path)).toContain(join(project, ".github", "copilot-instructions.md"));

    expect(await client.rpc.mcp.discover({ workingDirectory: project })).toEqual({ servers: [] });
  });

  it("gets, sets, reloads and clears user settings in <home>/config.json, beside trustedFolders, which it never writes", async () => {
    world = await startWorld([]);
    const client = await v1Client(world.env);
    const settingsFile = join(world.home, "config.json");
    writeFileSync(settingsFile, JSON.stringify({ trustedFolders: [folder("trusted")] }));
    const before = await client.rpc.user.settings.get();
    expect(before.settings.discoverProjectSkills).toEqual({ value: true, default: true, isDefault: true });

    expect(await client.rpc.user.settings.set({ settings: { discoverProjectSkills: false } })).toEqual({ shadowedKeys: [] });
    expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toEqual({ trustedFolders: [folder("trusted")], discoverProjectSkills: false });
    expect((await client.rpc.user.settings.get()).settings.discoverProjectSkills).toEqual({ value: false, default: true, isDefault: false });
    // The setting is in effect: project skill folders are no longer discovered.
    expect((await client.rpc.skills.getDiscoveryPaths({ projectPaths: [folder("p")], excludeHostSkills: true })).paths).toEqual([]);

    // Edited by hand: seen after a reload.
    writeFileSync(settingsFile, JSON.stringify({ discoverProjectSkills: true, disabledSkills: ["x"], somethingElse: 1 }));
    await client.rpc.user.settings.reload();
    expect((await client.rpc.user.settings.get()).settings.disabledSkills).toEqual({ value: ["x"], default: [], isDefault: false });

    await client.rpc.user.settings.set({ settings: { disabledSkills: null } });
    expect((await client.rpc.user.settings.get()).settings.disabledSkills?.isDefault).toBe(true);
    expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toEqual({ discoverProjectSkills: true, somethingElse: 1 });

    expect((await rpcError(client.rpc.user.settings.set({ settings: { noSuchSetting: true } }))).code).toBe(InvalidParams);
    // Trusting a folder is the user's own edit of the file, never a client's request.
    expect((await rpcError(client.rpc.user.settings.set({ settings: { trustedFolders: ["/"] } }))).code).toBe(InvalidParams);
    expect((await rpcError(client.rpc.user.settings.set({ settings: { discoverProjectSkills: "yes" } }))).code).toBe(InvalidParams);
    expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toEqual({ discoverProjectSkills: true, somethingElse: 1 });
  });
});

describe("secrets, gates and small server methods", () => {
  it("redacts filtered secret values from the events clients receive and from the persisted log", async () => {
    world = await startWorld([]);
    const client = await v1Client(world.env);
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const secret = "s3cr3t-value-0123456789";
    expect(await client.rpc.secrets.addFilterValues({ values: [secret] })).toEqual({ ok: true });

    const messages: string[] = [];
    session.on("session.warning", (event) => messages.push(event.data.message));
    await session.log(`the token is ${secret}, quoted "${secret}"`, { level: "warning" });
    await waitFor(() => messages.length === 1, "the log event");
    expect(messages[0]).toBe('the token is ******, quoted "******"');
    await client.rpc.sessions.save({ sessionId: session.sessionId });
    const eventsText = readFileSync(join(sessionDir(session.sessionId), "events.jsonl"), "utf8");
    expect(eventsText).toContain("the token is ******");
    expect(eventsText).not.toContain(secret);
  });

  it("closes the agent registry gate, refuses extension-only calls from an application, accepts no orphan model response", async () => {
    world = await startWorld([]);
    const client = await v1Client(world.env);
    const session = await client.createSession({ onPermissionRequest: approveAll });

    const spawn = await rpcError(client.rpc.agentRegistry.spawn({ cwd: world.home }));
    expect(spawn.code).toBe(NotAvailable);
    expect(spawn.message).toContain("agentRegistry.spawn is not enabled");

    const attachments = await rpcError(session.rpc.extensions.sendAttachmentsToMessage({ attachments: [] }));
    expect(attachments.message).toMatch(/is for extensions/);

    const start = await client.rpc.llmInference.httpResponseStart({ requestId: "none", status: 200, headers: {} });
    expect(start).toEqual({ accepted: false });
    expect(await client.rpc.llmInference.httpResponseChunk({ requestId: "none", data: "", end: true })).toEqual({ accepted: false });

    // A session is open: it keeps its state where it is, so the application cannot take over the file system now.
    const sessionFs = await rpcError(client.rpc.sessionFs.setProvider({ initialCwd: "/", sessionStatePath: "/state", conventions: "posix" }));
    expect(sessionFs.code).toBe(ErrorCodes.InvalidRequest);
    expect(sessionFs.message).toMatch(/must come before any session is opened/);
    // Called as the official SDK calls it without a model: `tools.list()`.
    const tools = (await (client.rpc.tools.list as () => ReturnType<typeof client.rpc.tools.list>)()).tools;
    expect(tools.map((tool) => tool.name)).toContain("view");
  });

  it("refuses a wrong or missing TCP connection token with AUTHENTICATION_FAILED", async () => {
    world = await startWorld([]);
    const good = new V1Client({ connection: RuntimeConnection.forTcp({ connectionToken: "right-token", path: tandemBin }), env: world.env, logLevel: "error" });
    cleanups.push(() => good.forceStop());
    await good.start();
    const port = (good as unknown as { runtimePort: number }).runtimePort;

    for (const connectionToken of ["wrong", undefined]) {
      const other = new V1Client({ connection: RuntimeConnection.forUri(`localhost:${port}`, connectionToken ? { connectionToken } : {}) });
      cleanups.push(() => other.forceStop());
      const refused = await rpcError(other.start());
      expect(refused.message).toMatch(/AUTHENTICATION_FAILED: not authenticated: (invalid connection token|this runtime requires a connection token)/);
    }
    expect((await good.ping("still here")).message).toBe("pong: still here");
  });
});

describe("a session's credentials", () => {
  it("uses the session's own GitHub token for its model calls and reports it in gitHubAuth.getStatus", async () => {
    world = await startWorld(["plain-reply"]);
    const client = await v1Client(world.env);
    const own = await client.createSession({ onPermissionRequest: approveAll, gitHubToken: "session-token-abc" });
    const shared = await client.createSession({ onPermissionRequest: approveAll });

    expect(await own.rpc.gitHubAuth.getStatus()).toMatchObject({ isAuthenticated: true, authType: "token", host: world.modelUrl });
    expect(await shared.rpc.gitHubAuth.getStatus()).toMatchObject({ isAuthenticated: true, authType: "env", host: world.modelUrl });

    await own.sendAndWait({ prompt: "Say hello" });
    const chat = world.model.requests.filter((request) => request.path.endsWith("/chat/completions"));
    expect(chat.map((request) => request.headers.authorization)).toEqual(["Bearer session-token-abc"]);
  });

  it("creates a session with its own token even when the runtime has none, and one without any that reports no GitHub token", async () => {
    world = await startWorld([]);
    const { GH_TOKEN: _runtimeToken, ...withoutToken } = world.env;
    const client = await v1Client(withoutToken);
    const own = await client.createSession({ onPermissionRequest: approveAll, gitHubToken: "session-token-only" });
    expect((await own.rpc.gitHubAuth.getStatus()).isAuthenticated).toBe(true);
    const none = await client.createSession({ onPermissionRequest: approveAll });
    expect(await none.rpc.gitHubAuth.getStatus()).toMatchObject({ isAuthenticated: false, statusMessage: expect.stringMatching(/no GitHub token/i) });
  });

  it("hands out the provider endpoint only when the runtime allows it", async () => {
    world = await startWorld([]);
    const closed = await v1Client(world.env);
    const closedSession = await closed.createSession({ onPermissionRequest: approveAll });
    const refused = await rpcError(closedSession.rpc.provider.getEndpoint({}));
    expect(refused.code).toBe(NotAvailable);
    expect(refused.message).toContain("COPILOT_ALLOW_GET_PROVIDER_ENDPOINT=true");

    const client = await v1Client({ ...world.env, COPILOT_ALLOW_GET_PROVIDER_ENDPOINT: "true" });
    const byok = await client.createSession({
      onPermissionRequest: approveAll,
      provider: { type: "anthropic", baseUrl: "https://llm.example.test", apiKey: "byok-key", headers: { "X-Team": "a" } },
    });
    expect(await byok.rpc.provider.getEndpoint({})).toEqual({ type: "anthropic", baseUrl: "https://llm.example.test", apiKey: "byok-key", headers: { "X-Team": "a", "x-api-key": "byok-key" } });

    const copilot = await client.createSession({ onPermissionRequest: approveAll, gitHubToken: "session-token-xyz" });
    const endpoint = await copilot.rpc.provider.getEndpoint({});
    expect(endpoint).toMatchObject({ type: "openai", wireApi: "completions", baseUrl: world.modelUrl, apiKey: "session-token-xyz" });
    expect(endpoint.headers.Authorization).toBe("Bearer session-token-xyz");
    expect(endpoint.headers["Copilot-Integration-Id"]).toBe("tandem");
  });
});
