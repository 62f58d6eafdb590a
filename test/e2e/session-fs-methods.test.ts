/**
 * `sessionFs.setProvider` through the official SDK 1.0.x against the real `tandem`: once the
 * application provides the session file system, a session's event log, `workspace.yaml`, checkpoint
 * index and plan are written to it (and nothing of the session to the runtime's home); a new runtime
 * process whose client provides the same file system resumes the session from it; the `sql` tool
 * runs through the provider's sqlite handler; the provider's failures, silence and disconnecting
 * become `PersistenceFailed`;
 * registration is refused once sessions are open.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ErrorCodes } from "@tandem/protocol/errors";
import { approveAll, CopilotClient, defineTool, RuntimeConnection, type SessionEvent, type SessionFsConfig, type SessionFsFileInfo, type SessionFsProvider } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { startTcpRuntime } from "../helpers/tcp.js";

const statePath = "/app/session-state";
const TOKEN = "session-fs-token-0123456789";
const config: SessionFsConfig = { initialCwd: "/", sessionStatePath: statePath, conventions: "posix" };

let world: TestWorld | undefined;
const clients: CopilotClient[] = [];
const cleanups: Array<() => Promise<unknown> | unknown> = [];

afterEach(async () => {
  for (const client of clients.splice(0).reverse()) await client.stop().catch(() => undefined);
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.dispose();
  world = undefined;
});

/** An application on the official SDK 1.0.x; `sessionFs: null` for one that provides no file system. */
function client(env: Record<string, string>, sessionFs: SessionFsConfig | null = config): CopilotClient {
  const made = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env, logLevel: "error", ...(sessionFs ? { sessionFs } : {}) });
  clients.push(made);
  return made;
}

/** An error thrown the way Node's file system throws a missing path. */
function missing(path: string): Error {
  return Object.assign(new Error(`no such file: ${path}`), { code: "ENOENT" });
}

/**
 * The application's file system: files and folders in memory, each session in its own namespace
 * (`/<session id><path>`), strict like a real one (writing into a missing folder fails).
 */
class MemoryFileSystem {
  readonly files = new Map<string, string>();
  readonly folders = new Set<string>(["/"]);

  providerFor(sessionId: string, overrides: Partial<SessionFsProvider> = {}): SessionFsProvider {
    const at = (path: string): string => `/${sessionId}${path}`;
    const parentOf = (path: string): string => path.slice(0, path.lastIndexOf("/")) || "/";
    const needParent = (path: string): void => {
      if (!this.folders.has(parentOf(path))) throw missing(parentOf(path));
    };
    const provider: SessionFsProvider = {
      readFile: async (path) => {
        const content = this.files.get(at(path));
        if (content === undefined) throw missing(path);
        return content;
      },
      writeFile: async (path, content) => {
        needParent(at(path));
        this.files.set(at(path), content);
      },
      appendFile: async (path, content) => {
        needParent(at(path));
        this.files.set(at(path), (this.files.get(at(path)) ?? "") + content);
      },
      exists: async (path) => this.files.has(at(path)) || this.folders.has(at(path)),
      stat: async (path): Promise<SessionFsFileInfo> => {
        const content = this.files.get(at(path));
        if (content === undefined && !this.folders.has(at(path))) throw missing(path);
        const now = new Date().toISOString();
        return { isFile: content !== undefined, isDirectory: content === undefined, size: content?.length ?? 0, mtime: now, birthtime: now };
      },
      mkdir: async (path, recursive) => {
        const parts = at(path).split("/").filter(Boolean);
        for (let index = 1; index <= parts.length; index++) {
          const folder = `/${parts.slice(0, index).join("/")}`;
          if (!this.folders.has(folder) && index < parts.length && !recursive) throw missing(folder);
          this.folders.add(folder);
        }
      },
      readdir: async (path) => (await provider.readdirWithTypes(path)).map((entry) => entry.name),
      readdirWithTypes: async (path) => {
        const folder = at(path);
        if (!this.folders.has(folder)) throw missing(path);
        const children = new Map<string, "file" | "directory">();
        for (const file of this.files.keys()) if (parentOf(file) === folder) children.set(file.slice(folder.length + 1), "file");
        for (const child of this.folders) if (child !== folder && parentOf(child) === folder) children.set(child.slice(folder.length + 1), "directory");
        return [...children].map(([name, type]) => ({ name, type }));
      },
      rm: async (path) => {
        const target = at(path);
        for (const file of [...this.files.keys()]) if (file === target || file.startsWith(`${target}/`)) this.files.delete(file);
        for (const folder of [...this.folders]) if (folder === target || folder.startsWith(`${target}/`)) this.folders.delete(folder);
      },
      rename: async (source, destination) => {
        const content = this.files.get(at(source));
        if (content === undefined) throw missing(source);
        this.files.delete(at(source));
        this.files.set(at(destination), content);
      },
      ...overrides,
    };
    return provider;
  }

  read(sessionId: string, name: string): string | undefined {
    return this.files.get(`/${sessionId}${statePath}/${name}`);
  }
}

describe("sessionFs.setProvider", () => {
  it("answers success, and sessions then live in the application's file system, not in the runtime's home", { timeout: 60_000 }, async () => {
    world = await startWorld(["session-fs-turns"]);
    const memory = new MemoryFileSystem();
    const app = client(world.env, null);
    await app.start();
    expect(await app.rpc.sessionFs.setProvider({ ...config })).toEqual({ success: true });

    const appWithProvider = client(world.env);
    const session = await appWithProvider.createSession({ onPermissionRequest: approveAll, createSessionFsProvider: (opened) => memory.providerFor(opened.sessionId) });
    const reply = await session.sendAndWait({ prompt: "Where do you keep this?" });
    expect(reply?.data.content).toBe("First answer, kept in the application's file system.");
    await session.rpc.plan.update({ content: "# Plan\n\n1. keep state in the app" });
    const { sessionId } = session;
    await session.disconnect();

    const events = (memory.read(sessionId, "events.jsonl") ?? "").trim().split("\n").map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
    expect(events[0]?.type).toBe("session.start");
    expect(events.find((event) => event.type === "user.message")?.data.content).toBe("Where do you keep this?");
    expect(events.find((event) => event.type === "assistant.message")?.data.content).toBe("First answer, kept in the application's file system.");
    expect(memory.read(sessionId, "workspace.yaml")).toContain(`id: "${sessionId}"`);
    expect(memory.read(sessionId, "checkpoints/index.md")).toContain("# Checkpoints");
    expect(memory.read(sessionId, "plan.md")).toBe("# Plan\n\n1. keep state in the app");
    expect(existsSync(join(world.home, "session-state", sessionId))).toBe(false);
  });

  it("a new runtime process whose client provides the same file system resumes the session from it", { timeout: 60_000 }, async () => {
    world = await startWorld(["session-fs-turns"]);
    const memory = new MemoryFileSystem();
    const first = client(world.env);
    const created = await first.createSession({ onPermissionRequest: approveAll, createSessionFsProvider: (opened) => memory.providerFor(opened.sessionId) });
    await created.sendAndWait({ prompt: "Remember this turn." });
    const { sessionId } = created;
    await first.stop();

    const second = client(world.env);
    const resumed = await second.resumeSession(sessionId, { onPermissionRequest: approveAll, createSessionFsProvider: (opened) => memory.providerFor(opened.sessionId) });
    const history = await resumed.getEvents();
    expect(history.filter((event) => event.type === "user.message").map((event) => event.data.content)).toEqual(["Remember this turn."]);
    const reply = await resumed.sendAndWait({ prompt: "And again?" });
    expect(reply?.data.content).toBe("Second answer, after the resume.");

    // The model saw the first turn, read back from the application's file system.
    const lastCall = world.model.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
    expect(JSON.stringify(lastCall.messages)).toContain("Remember this turn.");
    const turnEnds = (): number => (memory.read(sessionId, "events.jsonl") ?? "").split('"type":"assistant.turn_end"').length - 1;
    await waitFor(() => turnEnds() === 2, "both turns in the application's file system");
    const stored = memory.read(sessionId, "events.jsonl") ?? "";
    expect(stored).toContain("Remember this turn.");
    expect(stored).toContain("Second answer, after the resume.");

    // The persisted log pages through the application's file system, in order, small page by page.
    const storedIds = stored.trim().split("\n").map((line) => (JSON.parse(line) as { id: string }).id);
    const paged: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await resumed.rpc.eventLog.read({ max: 3, ...(cursor ? { cursor } : {}) });
      paged.push(...page.events.map((event) => event.id));
      cursor = page.cursor;
      if (!page.hasMore) break;
    }
    expect(paged).toEqual(storedIds);
    expect(existsSync(join(world.home, "session-state", sessionId))).toBe(false);
  });

  it("the sql tool runs through the provider's sqlite handler", { timeout: 60_000 }, async () => {
    world = await startWorld(["session-fs-sql"]);
    const memory = new MemoryFileSystem();
    const calls: Array<{ queryType: string; query: string }> = [];
    const app = client(world.env, { ...config, capabilities: { sqlite: true } });
    const session = await app.createSession({
      onPermissionRequest: approveAll,
      createSessionFsProvider: (opened) =>
        memory.providerFor(opened.sessionId, {
          sqlite: {
            // The application's database: it answers what a real one would for these statements.
            query: async (queryType, query) => {
              calls.push({ queryType, query });
              if (queryType === "run") return { rows: [], columns: [], rowsAffected: 1, lastInsertRowid: 41 };
              if (queryType === "query" && query.includes("FROM items")) return { rows: [{ id: "a1", name: "Widget" }], columns: ["id", "name"], rowsAffected: 0 };
              return { rows: [], columns: [], rowsAffected: 0 };
            },
            exists: async () => calls.length > 0,
          },
        }),
    });
    const reply = await session.sendAndWait({ prompt: "Keep a table of items." });
    expect(reply?.data.content).toBe("The row is there.");
    const { sessionId } = session;
    await session.disconnect();

    expect(calls.find((call) => call.query.startsWith("CREATE TABLE items"))?.queryType).toBe("exec");
    expect(calls.find((call) => call.query.startsWith("INSERT INTO items"))?.queryType).toBe("run");
    expect(calls.find((call) => call.query.startsWith("SELECT id, name FROM items"))?.queryType).toBe("query");
    // Every step's expectation held: the model read the handler's answers (row id 41, the Widget row).
    expect(world.model.requests.filter((request) => request.expectationError !== undefined)).toEqual([]);
    expect(existsSync(join(world.home, "session-state", sessionId))).toBe(false);
  });

  it("an application tool's output too long for the model is kept whole in the session's temp folder there, and the model reads its path and a preview", { timeout: 60_000 }, async () => {
    world = await startWorld(["session-fs-large-output"]);
    const memory = new MemoryFileSystem();
    const big = `${"y".repeat(20)}${"x".repeat(99_980)}`;
    const app = client(world.env);
    const session = await app.createSession({
      onPermissionRequest: approveAll,
      createSessionFsProvider: (opened) => memory.providerFor(opened.sessionId),
      tools: [defineTool("get_big_string", { description: "Returns a large string", handler: async () => big })],
    });
    expect((await session.sendAndWait({ prompt: "Fetch the big string." }))?.data.content).toBe("DONE");

    const toolMessage = (world.model.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages.find((message) => message.role === "tool");
    const saved = /saved whole at: (\S+)/.exec(toolMessage?.content ?? "")?.[1];
    expect(saved).toMatch(new RegExp(`^${statePath}/temp/\\d+-tool-output-[a-z0-9]+\\.txt$`));
    expect(toolMessage?.content).toContain(`Its first 500 characters:\n${big.slice(0, 500)}`);
    expect(toolMessage?.content.length).toBeLessThan(1_000);
    expect(memory.files.get(`/${session.sessionId}${saved}`)).toBe(big);
    await session.disconnect();
  });

  it("a provider that fails to store events ends the turn with a persistence error naming the file, and sends are refused with PersistenceFailed", { timeout: 60_000 }, async () => {
    world = await startWorld(["session-fs-failing"]);
    const memory = new MemoryFileSystem();
    const app = client(world.env);
    const session = await app.createSession({
      onPermissionRequest: approveAll,
      createSessionFsProvider: (opened) =>
        memory.providerFor(opened.sessionId, {
          appendFile: async () => {
            throw new Error("the app's disk is full");
          },
        }),
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    // Its user.message could not be stored, so the send is not acknowledged.
    await expect(session.send({ prompt: "Store this, please." })).rejects.toMatchObject({ code: ErrorCodes.PersistenceFailed });
    await waitFor(() => events.some((event) => event.type === "session.error"), "the persistence error", 30_000);
    const error = events.find((event) => event.type === "session.error");
    expect(error?.data).toMatchObject({ errorType: "persistence" });
    expect(String(error?.data.message)).toContain(`${statePath}/events.jsonl`);
    expect(String(error?.data.message)).toContain("the app's disk is full");

    await expect(session.send({ prompt: "And this?" })).rejects.toMatchObject({ code: ErrorCodes.PersistenceFailed });
  });

  it("a provider that never answers fails the write after TANDEM_SESSION_FS_TIMEOUT_MS with PersistenceFailed, never a hang", { timeout: 60_000 }, async () => {
    world = await startWorld(["session-fs-failing"], { TANDEM_SESSION_FS_TIMEOUT_MS: "1500" });
    const memory = new MemoryFileSystem();
    const app = client(world.env);
    const session = await app.createSession({
      onPermissionRequest: approveAll,
      createSessionFsProvider: (opened) => memory.providerFor(opened.sessionId, { appendFile: () => new Promise<void>(() => undefined) }),
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.send({ prompt: "Store this, please." }).catch(() => undefined);
    await waitFor(() => events.some((event) => event.type === "session.error"), "the persistence error", 30_000);
    const error = events.find((event) => event.type === "session.error");
    expect(error?.data).toMatchObject({ errorType: "persistence" });
    expect(String(error?.data.message)).toContain("the client did not answer sessionFs.appendFile within 1500 ms");
    await expect(session.send({ prompt: "And this?" })).rejects.toMatchObject({ code: ErrorCodes.PersistenceFailed });
  });

  it("when the providing client disconnects, its session's writes fail with PersistenceFailed and new sessions use the runtime's own store", { timeout: 60_000 }, async () => {
    world = await startWorld(["session-fs-provider-gone"]);
    const runtime = await startTcpRuntime({ ...world.env, COPILOT_CONNECTION_TOKEN: TOKEN });
    cleanups.push(() => runtime.stop());
    const overTcp = (sessionFs: SessionFsConfig | null): CopilotClient => {
      const made = new CopilotClient({ connection: RuntimeConnection.forUri(`127.0.0.1:${runtime.port}`, { connectionToken: TOKEN }), logLevel: "error", ...(sessionFs ? { sessionFs } : {}) });
      clients.push(made);
      return made;
    };
    const memory = new MemoryFileSystem();
    const provider = overTcp(config);
    const created = await provider.createSession({ onPermissionRequest: approveAll, createSessionFsProvider: (opened) => memory.providerFor(opened.sessionId) });
    await created.sendAndWait({ prompt: "Keep this in the app." });
    const { sessionId } = created;

    const other = overTcp(null);
    const joined = await other.resumeSession(sessionId, { onPermissionRequest: approveAll });
    const events: SessionEvent[] = [];
    joined.on((event) => events.push(event));
    await provider.forceStop();

    // The next write finds the provider gone: events still held from the join, or this message's.
    await joined.send({ prompt: "Where does this go?" }).catch(() => undefined);
    await waitFor(() => events.some((event) => event.type === "session.error"), "the persistence error", 30_000);
    const error = events.find((event) => event.type === "session.error");
    expect(error?.data).toMatchObject({ errorType: "persistence" });
    expect(String(error?.data.message)).toContain("the client that provides the session file system disconnected");
    await expect(joined.send({ prompt: "And this?" })).rejects.toMatchObject({ code: ErrorCodes.PersistenceFailed });
    // Nothing of the session was written anywhere else.
    expect(existsSync(join(world.home, "session-state", sessionId))).toBe(false);

    const local = await other.createSession({ onPermissionRequest: approveAll });
    await local.sendAndWait({ prompt: "Keep this here." });
    await waitFor(() => existsSync(join(world!.home, "session-state", local.sessionId, "events.jsonl")), "the new session's events file in the runtime's home");
  });

  it("is refused while a session is open, with an error that says why", { timeout: 60_000 }, async () => {
    world = await startWorld([]);
    const app = client(world.env, null);
    await app.createSession({ onPermissionRequest: approveAll });
    await expect(app.rpc.sessionFs.setProvider({ ...config })).rejects.toMatchObject({
      code: ErrorCodes.InvalidRequest,
      message: expect.stringContaining("before any session is opened"),
    });
  });
});
