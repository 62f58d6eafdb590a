/**
 * What the current official SDK (1.0.x) needs beyond 0.2.0, through real clients against the real
 * `tandem`: result shapes served per client (a client that opened with `connect` gets 1.0's: `ping`
 * time as an ISO string, `session.mode.get` a bare mode, `session.mode.set` an outcome), `ping`
 * with `message: null`, `session.detach` on a shared session, `runtime.shutdown` on `stop()`, the
 * renamed namespaces under both names, and -32601 `Unhandled method <name>` for every method Tandem
 * does not implement (never a hang).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { approveAll } from "@github/copilot-sdk";
import { CopilotClient as V1Client, RuntimeConnection, approveAll as v1ApproveAll } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { officialClient, rawConnection, tandemClient } from "../helpers/official-client.js";
import { RawClient } from "../helpers/raw-client.js";
import { RawTcpClient, startTcpRuntime, type TcpRuntime } from "../helpers/tcp.js";

const MethodNotFound = -32601;
const ShuttingDown = -32000;
const TOKEN = "current-sdk-token-0123456789";
const isoTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown> | unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.dispose();
  world = undefined;
});

/** Registers a client (or runtime) to stop after the test. */
function later<T extends { stop(): Promise<unknown> }>(stoppable: T): T {
  cleanups.push(() => stoppable.stop());
  return stoppable;
}

/** Starts a client (ping does not start one by itself). */
async function started<T extends { start(): Promise<void> }>(client: T): Promise<T> {
  await client.start();
  return client;
}

/** The official SDK 1.0.x as an application uses it (no test adapter): `RuntimeConnection.forStdio({ path })`. */
function v1Client(env: Record<string, string>): V1Client {
  return later(new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env, logLevel: "error" }));
}

/** The persisted event types of a session. */
function persistedTypes(sessionId: string): string[] {
  if (!world) throw new Error("no world");
  const file = join(world.home, "session-state", sessionId, "events.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

describe("result shapes per client", () => {
  it("ping: epoch ms for 0.2.0 and raw clients, an ISO string for 1.0.x over stdio and TCP; ours reads either", async () => {
    world = await startWorld([]);
    const before = Date.now();

    const legacy = await (await started(later(officialClient(world.env)))).ping("a");
    expect(legacy).toMatchObject({ message: "pong: a", protocolVersion: 3 });
    expect(typeof legacy.timestamp).toBe("number");

    const current = await (await started(v1Client(world.env))).ping("b");
    expect(current).toMatchObject({ message: "pong: b", protocolVersion: 3 });
    expect(current.timestamp).toMatch(isoTime);
    expect(Date.parse(current.timestamp)).toBeGreaterThanOrEqual(before - 1000);

    // forTcp (the README's recipe) spawns the runtime with the connection token: `connect` is
    // answered by the TCP handshake, before the JSON-RPC connection exists.
    const tcpConnection = RuntimeConnection.forTcp({ path: tandemBin, connectionToken: TOKEN });
    const overTcp = await (await started(later(new V1Client({ connection: tcpConnection, env: world.env, logLevel: "error" })))).ping("c");
    expect(overTcp.timestamp).toMatch(isoTime);

    const ours = await (await started(later(tandemClient(world.env)))).ping("d");
    expect(ours).toMatchObject({ message: "pong: d", protocolVersion: 3 });
    expect(typeof ours.timestamp).toBe("number");
    expect(ours.timestamp).toBeGreaterThanOrEqual(before - 1000);
  });

  it("ping with message: null (the Python SDK sends it) is a plain pong, before and after connect", async () => {
    world = await startWorld([]);
    const raw = new RawClient(world.env);
    cleanups.push(() => raw.close(true));
    const first = await raw.request("ping", { message: null });
    expect(first.error).toBeUndefined();
    expect(first.result).toMatchObject({ message: "pong", protocolVersion: 3, timestamp: expect.any(Number) });

    const current = new RawClient(world.env);
    cleanups.push(() => current.close(true));
    expect((await current.request("connect", {})).result).toMatchObject({ ok: true });
    const pong = await current.request("ping", { message: null });
    expect(pong.result).toMatchObject({ message: "pong", timestamp: expect.stringMatching(isoTime) });
  });

  it("session.mode.get / set and skills.reload: 1.0.x gets its shapes, 0.2.0 keeps {mode}", async () => {
    world = await startWorld([]);
    const current = await v1Client(world.env).createSession({ onPermissionRequest: v1ApproveAll });
    expect(await current.rpc.mode.get()).toBe("interactive");
    expect(await current.rpc.mode.set({ mode: "plan" })).toEqual({ status: "unchanged", modelChanged: false, modeApplied: true });
    expect(await current.rpc.mode.get()).toBe("plan");
    expect(await current.rpc.skills.reload()).toEqual({ warnings: [], errors: [] });

    const legacy = await later(officialClient(world.env)).createSession({ onPermissionRequest: approveAll });
    expect(await legacy.rpc.mode.get()).toEqual({ mode: "interactive" });
    expect(await legacy.rpc.mode.set({ mode: "autopilot" })).toEqual({ mode: "autopilot" });
    expect(await legacy.rpc.skills.reload()).toEqual({});

    const ours = await later(tandemClient(world.env)).createSession({ onPermissionRequest: approveAll });
    expect(await ours.rpc.mode.set({ mode: "plan" })).toEqual({ mode: "plan" });
    expect(await ours.rpc.mode.get()).toEqual({ mode: "plan" });
  });
});

describe("renamed namespaces and methods Tandem does not implement", () => {
  it("answers session.workspaces.* and session.workspace.* alike, and history.compact like compaction.compact", async () => {
    world = await startWorld([]);
    const client = v1Client(world.env);
    const session = await client.createSession({ onPermissionRequest: v1ApproveAll });
    expect(await client.getSessionMetadata(session.sessionId)).toBeUndefined();
    await session.rpc.workspaces.createFile({ path: "notes.md", content: "one\n" });
    const connection = rawConnection(client);
    await connection.sendRequest("session.workspace.createFile", { sessionId: session.sessionId, path: "old.md", content: "two\n" });
    expect(await session.rpc.workspaces.listFiles()).toEqual({ files: ["notes.md", "old.md"] });
    expect(await connection.sendRequest("session.workspace.listFiles", { sessionId: session.sessionId })).toEqual({ files: ["notes.md", "old.md"] });
    expect(await session.rpc.workspaces.readFile({ path: "old.md" })).toEqual({ content: "two\n" });

    expect(await session.rpc.history.compact()).toEqual({ success: true, tokensRemoved: 0, messagesRemoved: 0 });
    expect(await connection.sendRequest("session.compaction.compact", { sessionId: session.sessionId })).toEqual({ success: true, tokensRemoved: 0, messagesRemoved: 0 });
  });

  it("answers every method of the 1.0.x protocol at once: a result, or an error; -32601 always names the method", async () => {
    world = await startWorld([]);
    const client = v1Client(world.env);
    const session = await client.createSession({ onPermissionRequest: v1ApproveAll });
    const generated = readFileSync(fileURLToPath(new URL("../../node_modules/copilot-sdk-v1/dist/generated/rpc.js", import.meta.url)), "utf8");
    // Methods that end the session or the runtime, or start work, are tested on their own.
    const skipped = new Set([
      ...["connect", "runtime.shutdown", "session.detach", "session.destroy", "session.delete", "session.shutdown", "session.suspend"],
      ...["session.send", "session.fleet.start", "sessions.close", "sessions.delete", "sessions.bulkDelete", "sessions.pruneOld"],
    ]);
    const methods = [...new Set([...generated.matchAll(/sendRequest\("([\w.]+)"/g)].map((match) => match[1] as string))].filter((method) => !skipped.has(method));
    expect(methods.length).toBeGreaterThan(300);

    const connection = rawConnection(client);
    const answers = await Promise.all(
      methods.map(async (method) => {
        const answer = await connection.sendRequest(method, { sessionId: session.sessionId }).then(
          () => ({ method, code: 0, message: "" }),
          (error: { code: number; message: string }) => ({ method, code: error.code, message: error.message }),
        );
        return answer;
      }),
    );
    const unhandled = answers.filter((answer) => answer.code === MethodNotFound);
    expect(unhandled.filter((answer) => answer.message !== `Unhandled method ${answer.method}`)).toEqual([]);
    // Methods the protocol lists but Tandem does not implement answer as unknown ones do.
    expect(unhandled.map((answer) => answer.method)).toEqual(expect.arrayContaining(["session.queue.moveItem"]));
    // "Not available" is kept for what needs GitHub's hosted service (remote sessions, remote control),
    // for the quota when no GitHub API is configured to ask (a custom COPILOT_API_URL, as here), for the
    // provider endpoint, which the runtime hands out only when allowed, and for reloading MCP servers or
    // extensions of a session that has none (no mcpServers, no extension folder), and for agent
    // factories, an experimental feature switched off unless COPILOT_CLI_ENABLED_FEATURE_FLAGS names it.
    const notAvailableHere = new Set(["account.getQuota", "sessions.connect", "sessions.startRemoteControl", "session.provider.getEndpoint", "session.mcp.reload", "session.extensions.reload", "session.mcp.oauth.login", "session.factory.listRuns"]);
    expect(answers.filter((answer) => answer.code === -32005 && !notAvailableHere.has(answer.method))).toEqual([]);
    // The session is still served afterwards.
    expect(await session.rpc.mode.get()).toBe("interactive");
  });
});

describe("session.detach", () => {
  async function tcpRuntime(): Promise<TcpRuntime> {
    if (!world) throw new Error("no world");
    return later(await startTcpRuntime({ ...world.env, COPILOT_CONNECTION_TOKEN: TOKEN }));
  }

  function v1OverTcp(port: number): V1Client {
    return later(new V1Client({ connection: RuntimeConnection.forUri(`127.0.0.1:${port}`, { connectionToken: TOKEN }), logLevel: "error" }));
  }

  it("a 1.0.x client leaves a shared session (disconnect); the other keeps it; the last one out releases it", async () => {
    world = await startWorld(["plain-reply"]);
    const runtime = await tcpRuntime();
    const first = await v1OverTcp(runtime.port).createSession({ onPermissionRequest: v1ApproveAll });
    const second = await v1OverTcp(runtime.port).resumeSession(first.sessionId, { onPermissionRequest: v1ApproveAll });

    // A client that is not attached detaches nothing.
    const outsider = await RawTcpClient.connect(runtime.port);
    cleanups.push(() => outsider.close());
    await outsider.request("connect", { token: TOKEN });
    expect((await outsider.request("session.detach", { sessionId: first.sessionId })).result).toEqual({ success: true });
    expect((await outsider.request("session.detach", { sessionId: "no-such-session" })).result).toEqual({ success: true });

    let firstSawEvents = 0;
    await first.disconnect();
    first.on(() => firstSawEvents++);
    expect(persistedTypes(first.sessionId)).not.toContain("session.shutdown");

    const reply = await second.sendAndWait({ prompt: "still there?" });
    expect(reply?.data.content).toBe("Hello from the scripted model.");
    expect(firstSawEvents).toBe(0);

    await second.disconnect();
    await waitFor(() => persistedTypes(second.sessionId).includes("session.shutdown"), "the released session's shutdown event");
    // Released, not deleted: it is listed and can be resumed.
    const metadata = await (await started(v1OverTcp(runtime.port))).getSessionMetadata(first.sessionId);
    expect(metadata).toMatchObject({ sessionId: first.sessionId, summary: "still there?", isRemote: false });
    expect(metadata?.startTime).toBeInstanceOf(Date);
    const again = await v1OverTcp(runtime.port).resumeSession(first.sessionId, { onPermissionRequest: v1ApproveAll });
    expect((await again.getEvents()).some((event) => event.type === "assistant.message")).toBe(true);
  });
});

describe("runtime.shutdown", () => {
  it("1.0.x stop() ends cleanly: sessions are detached and the runtime shuts down without errors", async () => {
    world = await startWorld(["plain-reply"]);
    const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world.env, logLevel: "error" });
    const session = await client.createSession({ onPermissionRequest: v1ApproveAll });
    await session.sendAndWait({ prompt: "hi" });
    expect(await client.stop()).toEqual([]);
    expect(persistedTypes(session.sessionId).at(-1)).toBe("session.shutdown");
  });

  it("writes every session's end, refuses later requests, and exits once the asking client has gone", async () => {
    world = await startWorld(["plain-reply"]);
    const runtime = await startTcpRuntime(world.env);
    cleanups.push(() => runtime.stop());
    const client = await RawTcpClient.connect(runtime.port);
    cleanups.push(() => client.close());
    const created = (await client.request("session.create", {})).result as { sessionId: string };
    await client.request("session.send", { sessionId: created.sessionId, prompt: "hi" });
    const idle = (message: { method?: string; params?: unknown }) => message.method === "session.event" && (message.params as { event: { type: string } }).event.type === "session.idle";
    await waitFor(() => client.received.some(idle), "the reply");

    const answer = await client.request("runtime.shutdown", {});
    expect(answer).toMatchObject({ result: null });
    expect(persistedTypes(created.sessionId)).toContain("session.shutdown");
    const refused = await client.request("ping", {});
    expect(refused.error).toMatchObject({ code: ShuttingDown, message: expect.stringMatching(/shutting down/) });

    client.close();
    await waitFor(() => runtime.child.exitCode !== null, "the runtime to exit");
    expect(runtime.child.exitCode).toBe(0);
  });
});
