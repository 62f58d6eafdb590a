/**
 * The JSON-RPC edge defends itself: broken framing closes the connection (with a logged reason),
 * an oversized frame is refused before it is buffered, messages that are not JSON-RPC 2.0 get
 * -32600, and params nested too deep get -32602 without reaching the session.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { frame } from "../helpers/frames.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";
import { startTcpRuntime, type TcpRuntime } from "../helpers/tcp.js";

let world: TestWorld | undefined;
let client: RawClient | undefined;
let runtime: TcpRuntime | undefined;

afterEach(async () => {
  await client?.close(true);
  await runtime?.stop();
  await world?.dispose();
  client = undefined;
  runtime = undefined;
  world = undefined;
});

/** TCP runtimes log warnings and worse, like the stdio ones `RawClient` starts. */
const warningsOnly = { args: ["--log-level", "warning"] };

/** 10,000 levels of arrays: far beyond the edge's limit of 100. */
const deeplyNested = "[".repeat(10_000) + "]".repeat(10_000);

function exitOf(child: ChildProcess, timeoutMs = 5_000): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the runtime did not exit")), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** Waits for the runtime's log (its stderr, read asynchronously) to mention `text`. */
async function logged(stderr: () => string, text: string | RegExp): Promise<void> {
  const found = () => (typeof text === "string" ? stderr().includes(text) : text.test(stderr()));
  await waitFor(found, "the log line", 5_000).catch(() => undefined);
  if (typeof text === "string") expect(stderr()).toContain(text);
  else expect(stderr()).toMatch(text);
}

const isEvent = (type: string) => (message: WireMessage) =>
  message.method === "session.event" && (message.params as { event: { type: string } }).event.type === type;

/** Sends a prompt and waits for the turn's reply text. */
async function turn(raw: RawClient, sessionId: string, prompt: string): Promise<string> {
  const sent = await raw.request("session.send", { sessionId, prompt });
  expect(sent.error).toBeUndefined();
  const reply = await raw.waitFor(isEvent("assistant.message"));
  await raw.waitFor(isEvent("session.idle"));
  return (reply.params as { event: { data: { content: string } } }).event.data.content;
}

describe("broken framing over stdio", () => {
  it.each([
    ["a non-numeric Content-Length", "Content-Length: lots\r\n\r\n{}", "Content-Length must be a non-negative integer"],
    ["a missing Content-Length", "Content-Type: application/json\r\n\r\n{}", "no Content-Length header"],
    ["a Content-Length too small for its body", 'Content-Length: 5\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"ping"}Content-Length: 2\r\n\r\n{}', "malformed header line"],
    ["a declared length of 400 MiB", "Content-Length: 419430400\r\n\r\n{", "over the limit of 104857600 bytes"],
  ])("ends the runtime on %s, logging why", async (_, bytes, reason) => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    expect((await client.request("ping", { message: "before" })).result).toBeDefined();
    client.writeRaw(bytes);
    await exitOf(client.child);
    await logged(() => client!.stderr, "its framing is broken");
    await logged(() => client!.stderr, reason);
    const goodbye = await client.waitFor((message) => message.error?.message.startsWith("Closing the connection") === true, 3_000);
    expect(goodbye).toMatchObject({ id: null, error: { code: -32700 } });
  });
});

describe("broken framing over TCP", () => {
  it("closes only the offending socket; another client keeps working", async () => {
    world = await startWorld(["plain-reply"]);
    runtime = await startTcpRuntime(world.env, warningsOnly);
    const good = await runtime.connect();
    const bad = await runtime.connect();
    expect((await bad.request("ping", { message: "hi" })).result).toBeDefined();
    bad.writeRaw("Content-Length: 12abc\r\n\r\n{}");
    await bad.waitClosed(5_000);
    await logged(() => runtime!.stderr, /client \d+: closing the connection, its framing is broken: Content-Length must be a non-negative integer, got "12abc"/);
    expect((await good.request("ping", { message: "still here" })).result).toMatchObject({ message: "pong: still here" });
    good.close();
  });

  it("closes a socket that sends two Content-Length headers", async () => {
    world = await startWorld(["plain-reply"]);
    runtime = await startTcpRuntime(world.env, warningsOnly);
    const socket = await runtime.connect();
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    socket.writeRaw(`Content-Length: 2\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    await socket.waitClosed(5_000);
    await logged(() => runtime!.stderr, "more than one Content-Length header");
  });

  it("refuses a 400 MiB frame from its header: 200 MiB streamed at it are never buffered", async () => {
    world = await startWorld(["plain-reply"]);
    runtime = await startTcpRuntime(world.env, warningsOnly);
    const watcher = await runtime.connect();
    expect((await watcher.request("ping")).result).toBeDefined();
    const before = runtime.rssBytes();
    const socket = await runtime.connect();
    socket.writeRaw("Content-Length: 419430400\r\n\r\n");
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    for (let sent = 0; sent < 200 && !socket.isClosed; sent++) {
      if (!socket.socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.socket.once("drain", resolve)), socket.closed]);
    }
    const grown = runtime.rssBytes() - before;
    expect(grown).toBeLessThan(32 * 1024 * 1024);
    await socket.waitClosed(5_000);
    await logged(() => runtime!.stderr, "Content-Length 419430400 is over the limit of 104857600 bytes");
    expect((await watcher.request("ping", { message: "after" })).result).toMatchObject({ message: "pong: after" });
    watcher.close();
  });

  it("honours TANDEM_MAX_MESSAGE_BYTES", async () => {
    world = await startWorld(["plain-reply"], { TANDEM_MAX_MESSAGE_BYTES: "4096" });
    runtime = await startTcpRuntime(world.env, warningsOnly);
    const socket = await runtime.connect();
    expect((await socket.request("ping", { message: "x".repeat(3000) })).result).toBeDefined();
    socket.writeFrame(JSON.stringify({ jsonrpc: "2.0", id: 99, method: "ping", params: { message: "x".repeat(5000) } }));
    await socket.waitClosed(5_000);
    await logged(() => runtime!.stderr, "over the limit of 4096 bytes (TANDEM_MAX_MESSAGE_BYTES)");
  });

  it("refuses to start with a TANDEM_MAX_MESSAGE_BYTES that is not a byte count", () => {
    const run = spawnSync(process.execPath, [tandemBin, "--stdio"], { env: { PATH: process.env.PATH ?? "", TANDEM_MAX_MESSAGE_BYTES: "10MB" }, encoding: "utf8" });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('TANDEM_MAX_MESSAGE_BYTES must be a positive whole number of bytes, got "10MB"');
  });

  it("reads a frame that arrives in many tiny writes", async () => {
    world = await startWorld(["plain-reply"]);
    runtime = await startTcpRuntime(world.env, warningsOnly);
    const socket = await runtime.connect();
    const body = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping", params: { message: "slow ✓" } });
    const bytes = Buffer.from(frame(body));
    for (let index = 0; index < bytes.length; index += 3) {
      socket.writeRaw(bytes.subarray(index, index + 3));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect((await socket.waitFor((message) => message.id === 5)).result).toMatchObject({ message: "pong: slow ✓" });
    socket.close();
  });
});

describe("messages that are not JSON-RPC 2.0 requests", () => {
  it("answers batches, non-objects, non-string methods and object ids with -32600", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    const cases: Array<[string, string | number | null, string]> = [
      ["[]", null, "an empty batch"],
      [JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]), null, "batches are not supported"],
      ['"ping"', null, "must be a JSON object"],
      ["17", null, "must be a JSON object"],
      ['{"jsonrpc":"2.0","id":"m","method":42}', "m", '"method" must be a string'],
      ['{"jsonrpc":"2.0","id":{"nested":true},"method":"ping"}', null, '"id" must be a string or a number'],
    ];
    for (const [body, id, text] of cases) {
      const already = client.received.length;
      client.writeFrame(body);
      const answer = await client.waitFor((message) => client!.received.indexOf(message) >= already && message.error !== undefined, 3_000);
      expect(answer, body).toMatchObject({ id, error: { code: -32600 } });
      expect(answer.error?.message, body).toContain(text);
    }
    expect((await client.request("ping", { message: "fine" })).result).toMatchObject({ message: "pong: fine" });
  });

  it("answers a body in another charset with a parse error and keeps serving", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping", params: { message: "caf\u00e9" } });
    client.writeRaw(`Content-Length: ${body.length}\r\nContent-Type: application/vscode-jsonrpc; charset=latin1\r\n\r\n`);
    client.writeRaw(Buffer.from(body, "latin1"));
    const answer = await client.waitFor((message) => message.error !== undefined, 3_000);
    expect(answer).toMatchObject({ id: null, error: { code: -32700, message: expect.stringContaining('unsupported charset "latin1"') } });
    expect((await client.request("ping", { message: "utf-8 only" })).result).toBeDefined();
  });

  it("ignores a response to a request the runtime never made", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    client.writeFrame(JSON.stringify({ jsonrpc: "2.0", id: 424242, result: { approved: true } }));
    expect((await client.request("ping", { message: "ok" })).result).toMatchObject({ message: "pong: ok" });
    expect(client.received.filter((message) => message.id === 424242)).toEqual([]);
  });
});

describe("params nested too deep", () => {
  it("refuses a 10k-deep attachment with -32602, and the session then completes a normal turn", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    const attachment = `{"type":"file","path":"/tmp/notes.txt","extra":${deeplyNested}}`;
    client.writeFrame(`{"jsonrpc":"2.0","id":900,"method":"session.send","params":{"sessionId":"${sessionId}","prompt":"look","attachments":[${attachment}]}}`);
    const refused = await client.waitFor((message) => message.id === 900, 5_000);
    expect(refused.error).toMatchObject({ code: -32602, message: expect.stringContaining("nested deeper than 100 levels") });
    expect(await turn(client, sessionId, "hello")).toBe("Hello from the scripted model.");
    expect(client.stderr).not.toContain("unhandled rejection");
  });

  it("refuses a custom tool with 10k-deep parameters in session.create, and later sessions work", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    const tool = `{"name":"deep_tool","description":"d","parameters":{"type":"object","properties":{"a":${deeplyNested}}}}`;
    client.writeFrame(`{"jsonrpc":"2.0","id":901,"method":"session.create","params":{"tools":[${tool}]}}`);
    const refused = await client.waitFor((message) => message.id === 901, 5_000);
    expect(refused.error).toMatchObject({ code: -32602, message: expect.stringContaining("100 levels") });
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    expect(await turn(client, sessionId, "hello")).toBe("Hello from the scripted model.");
  });

  it("refuses a custom tool with 10k-deep parameters in session.resume, and the session keeps working", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    const tool = `{"name":"deep_tool","parameters":{"type":"object","properties":{"a":${deeplyNested}}}}`;
    client.writeFrame(`{"jsonrpc":"2.0","id":902,"method":"session.resume","params":{"sessionId":"${sessionId}","tools":[${tool}]}}`);
    const refused = await client.waitFor((message) => message.id === 902, 5_000);
    expect(refused.error).toMatchObject({ code: -32602 });
    expect(await turn(client, sessionId, "hello")).toBe("Hello from the scripted model.");
  });

  it("accepts a tool schema nested 40 levels deep", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    let schema: Record<string, unknown> = { type: "string" };
    for (let level = 0; level < 40; level++) schema = { type: "object", properties: { inner: schema } };
    const created = await client.request("session.create", { tools: [{ name: "nested_tool", description: "n", parameters: schema }] });
    expect(created.error).toBeUndefined();
  });
});
