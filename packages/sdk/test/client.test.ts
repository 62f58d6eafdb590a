import { ResponseError } from "vscode-jsonrpc/node.js";
import { afterEach, describe, expect, it } from "vitest";
import { approveAll, CopilotClient, type ModelInfo, type SessionLifecycleEvent } from "../src/index.js";
import { parseCliUrl } from "../src/options.js";
import { startFakeRuntime } from "./helpers/fake-runtime.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connect(options: { protocolVersion?: number | undefined; autoRestart?: boolean } = {}) {
  const fake = await startFakeRuntime("protocolVersion" in options ? { protocolVersion: options.protocolVersion } : {});
  const client = new CopilotClient({ cliUrl: fake.url, autoRestart: options.autoRestart });
  cleanups.push(() => fake.close(), () => client.forceStop());
  return { fake, client };
}

describe("options", () => {
  it("rejects contradictory options like the official SDK", () => {
    expect(() => new CopilotClient({ cliUrl: "1234", cliPath: "/bin/x" })).toThrow("cliUrl is mutually exclusive with useStdio and cliPath");
    expect(() => new CopilotClient({ cliUrl: "1234", useStdio: true })).toThrow("cliUrl is mutually exclusive with useStdio and cliPath");
    expect(() => new CopilotClient({ isChildProcess: true, useStdio: false })).toThrow(/isChildProcess must be used in conjunction with useStdio/);
    expect(() => new CopilotClient({ isChildProcess: true, cliUrl: "1234" })).toThrow(/isChildProcess/);
    expect(() => new CopilotClient({ cliUrl: "1234", githubToken: "t" })).toThrow(
      "githubToken and useLoggedInUser cannot be used with cliUrl (external server manages its own auth)",
    );
    expect(() => new CopilotClient({ cliUrl: "1234", useLoggedInUser: false })).toThrow(/cannot be used with cliUrl/);
    expect(() => new CopilotClient({ cliUrl: "a:b:c" })).toThrow(/Invalid cliUrl format/);
    expect(() => new CopilotClient({ cliUrl: "host:99999" })).toThrow("Invalid port in cliUrl: host:99999");
  });

  it("parses every cliUrl form", () => {
    expect(parseCliUrl("8080")).toEqual({ host: "localhost", port: 8080 });
    expect(parseCliUrl("example.com:9000")).toEqual({ host: "example.com", port: 9000 });
    expect(parseCliUrl("http://127.0.0.1:9000")).toEqual({ host: "127.0.0.1", port: 9000 });
    expect(parseCliUrl("https://h:1")).toEqual({ host: "h", port: 1 });
    expect(parseCliUrl(":7")).toEqual({ host: "localhost", port: 7 });
  });

  it("starts disconnected and does nothing until used", () => {
    const client = new CopilotClient({ cliUrl: "1" });
    expect(client.getState()).toBe("disconnected");
    expect(() => client.rpc).toThrow("Client is not connected. Call start() first.");
    return expect(client.ping()).rejects.toThrow("Client not connected");
  });
});

describe("protocol version", () => {
  it("accepts versions 2 and 3 and records the negotiated one", async () => {
    const { client } = await connect({ protocolVersion: 2 });
    await client.start();
    expect(client.getState()).toBe("connected");
    expect(client.protocolVersion).toBe(2);
  });

  it.each([
    [1, "but server reports version 1"],
    [4, "but server reports version 4"],
    [undefined, "but server does not report a protocol version"],
  ])("rejects version %s", async (version, message) => {
    const { client } = await connect({ protocolVersion: version });
    await expect(client.start()).rejects.toThrow(`SDK protocol version mismatch: SDK supports versions 2-3, ${message}`);
    expect(client.getState()).toBe("error");
  });

  it("opens with connect { token } (the connectionToken option) and does not ping a runtime that knows connect", async () => {
    const fake = await startFakeRuntime();
    fake.handle("connect", () => ({ ok: true, protocolVersion: 3, version: "0.0.0-fake" }));
    const client = new CopilotClient({ cliUrl: fake.url, connectionToken: "shared-secret" });
    cleanups.push(() => fake.close(), () => client.forceStop());
    await client.start();
    expect(fake.requests.map((request) => request.method)).toEqual(["connect"]);
    expect(fake.requestsFor("connect")[0]).toEqual({ token: "shared-secret" });
    expect(client.protocolVersion).toBe(3);
  });

  it("fails to start with the runtime's error when connect is refused, without falling back to ping", async () => {
    const fake = await startFakeRuntime();
    fake.handle("connect", () => {
      throw new ResponseError(-32008, "Not authenticated: invalid connection token");
    });
    const client = new CopilotClient({ cliUrl: fake.url, connectionToken: "wrong" });
    cleanups.push(() => fake.close(), () => client.forceStop());
    await expect(client.start()).rejects.toThrow("Not authenticated: invalid connection token");
    expect(fake.requests.map((request) => request.method)).toEqual(["connect"]);
  });

  it("rejects an empty connectionToken like the official SDK 1.0", () => {
    expect(() => new CopilotClient({ cliUrl: "1234", connectionToken: "" })).toThrow("connectionToken must be a non-empty string");
  });

  it("fails to start when nothing listens at cliUrl", async () => {
    const { fake, client } = await connect();
    await fake.close();
    await expect(client.start()).rejects.toThrow(/Failed to connect to CLI server/);
  });
});

describe("server-scoped calls", () => {
  it("ping, status, auth, last id, foreground and rpc", async () => {
    const { fake, client } = await connect();
    await client.start();
    fake.handle("session.getLastId", () => ({ sessionId: "last" }));
    fake.handle("session.getForeground", () => ({ sessionId: "fg" }));
    fake.handle("session.setForeground", (params) => (params.sessionId === "ok" ? { success: true } : { success: false, error: "no UI" }));
    fake.handle("tools.list", () => ({ tools: [{ name: "bash", description: "Run" }] }));

    expect((await client.ping("hi")).message).toBe("pong: hi");
    expect(await client.getStatus()).toEqual({ version: "0.0.0-fake", protocolVersion: 3 });
    expect((await client.getAuthStatus()).isAuthenticated).toBe(true);
    expect(await client.getLastSessionId()).toBe("last");
    expect(await client.getForegroundSessionId()).toBe("fg");
    await client.setForegroundSessionId("ok");
    await expect(client.setForegroundSessionId("nope")).rejects.toThrow("no UI");
    expect(await client.rpc.tools.list({ model: "m" })).toEqual({ tools: [{ name: "bash", description: "Run" }] });
    expect(fake.requestsFor("tools.list")).toEqual([{ model: "m" }]);
  });

  it("lists sessions with Date times and passes the filter", async () => {
    const { fake, client } = await connect();
    await client.start();
    fake.handle("session.list", () => ({
      sessions: [{ sessionId: "a", startTime: "2025-01-02T03:04:05.000Z", modifiedTime: "2025-01-03T00:00:00.000Z", summary: "hi", isRemote: false, context: { cwd: "/w" } }],
    }));
    const sessions = await client.listSessions({ cwd: "/w" });
    expect(sessions).toEqual([
      { sessionId: "a", startTime: new Date("2025-01-02T03:04:05.000Z"), modifiedTime: new Date("2025-01-03T00:00:00.000Z"), summary: "hi", isRemote: false, context: { cwd: "/w" } },
    ]);
    expect(fake.requestsFor("session.list")).toEqual([{ filter: { cwd: "/w" } }]);
  });

  it("deleteSession throws with the runtime's error", async () => {
    const { fake, client } = await connect();
    await client.start();
    fake.handle("session.delete", () => ({ success: false, error: "Error: Session file not found for x" }));
    await expect(client.deleteSession("x")).rejects.toThrow("Failed to delete session x: Error: Session file not found for x");
  });
});

describe("listModels", () => {
  it("calls models.list once, caches, returns copies, and clears the cache on stop", async () => {
    const { fake, client } = await connect();
    await client.start();
    const [first, second] = await Promise.all([client.listModels(), client.listModels()]);
    expect(first?.map((model) => model.id)).toEqual(["fake-model"]);
    expect(second).toEqual(first);
    first?.push({ id: "mutated" } as ModelInfo);
    expect(await client.listModels()).toHaveLength(1);
    expect(fake.requestsFor("models.list")).toHaveLength(1);

    await client.stop();
    await client.start();
    await client.listModels();
    expect(fake.requestsFor("models.list")).toHaveLength(2);
  });

  it("uses onListModels instead of the runtime, also cached", async () => {
    const { fake } = await connect();
    let calls = 0;
    const model = { id: "byok", name: "BYOK", capabilities: { supports: {}, limits: { max_context_window_tokens: 8 } } };
    const client = new CopilotClient({ cliUrl: fake.url, onListModels: () => (calls++, [model]) });
    expect(await client.listModels()).toEqual([model]);
    expect(await client.listModels()).toEqual([model]);
    expect(calls).toBe(1);
    expect(fake.requestsFor("models.list")).toHaveLength(0);
  });
});

describe("stop", () => {
  it("disconnects every session and returns no errors when all goes well", async () => {
    const { fake, client } = await connect();
    await client.createSession({ sessionId: "a", onPermissionRequest: approveAll });
    await client.createSession({ sessionId: "b", onPermissionRequest: approveAll });
    expect(await client.stop()).toEqual([]);
    expect(fake.requestsFor("session.destroy")).toEqual([{ sessionId: "a" }, { sessionId: "b" }]);
    expect(client.getState()).toBe("disconnected");
  });

  it("returns errors instead of throwing, after three attempts per session", async () => {
    const { fake, client } = await connect();
    await client.createSession({ sessionId: "a", onPermissionRequest: approveAll });
    fake.handle("session.destroy", () => {
      throw new Error("destroy failed");
    });
    const errors = await client.stop();
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/^Failed to disconnect session a after 3 attempts: .*destroy failed/);
    expect(fake.requestsFor("session.destroy")).toHaveLength(3);
    expect(client.getState()).toBe("disconnected");
  });

  it("forceStop sends nothing", async () => {
    const { fake, client } = await connect();
    await client.createSession({ sessionId: "a", onPermissionRequest: approveAll });
    await client.forceStop();
    expect(fake.requestsFor("session.destroy")).toHaveLength(0);
    expect(client.getState()).toBe("disconnected");
  });
});

describe("lifecycle events", () => {
  it("delivers typed and wildcard lifecycle handlers until unsubscribed", async () => {
    const { fake, client } = await connect();
    await client.start();
    const created: string[] = [];
    const all: SessionLifecycleEvent[] = [];
    const offCreated = client.on("session.created", (event) => created.push(event.sessionId));
    client.on((event) => all.push(event));
    client.on(() => {
      throw new Error("isolated");
    });
    fake.notify("session.lifecycle", { type: "session.created", sessionId: "a", metadata: { startTime: "t", modifiedTime: "t" } });
    fake.notify("session.lifecycle", { type: "session.deleted", sessionId: "a" });
    await client.ping();
    offCreated();
    fake.notify("session.lifecycle", { type: "session.created", sessionId: "b" });
    await client.ping();
    expect(created).toEqual(["a"]);
    expect(all.map((event) => `${event.type}:${event.sessionId}`)).toEqual(["session.created:a", "session.deleted:a", "session.created:b"]);
  });
});

describe("connection loss", () => {
  it("reconnects when autoRestart is on", async () => {
    const { fake, client } = await connect();
    await client.start();
    fake.dropConnection();
    await expect.poll(() => fake.connectionCount()).toBe(2);
    await expect.poll(() => client.getState()).toBe("connected");
    expect((await client.ping()).message).toBe("pong");
  });

  it("goes to disconnected when autoRestart is off", async () => {
    const { fake, client } = await connect({ autoRestart: false });
    await client.start();
    fake.dropConnection();
    await expect.poll(() => client.getState()).toBe("disconnected");
    expect(fake.connectionCount()).toBe(1);
  });
});
