import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { approveAll, CopilotClient, type CopilotSession, type SessionEvent } from "../src/index.js";
import { startFakeRuntime, type FakeRuntime } from "./helpers/fake-runtime.js";

let fake: FakeRuntime;
let client: CopilotClient;
let session: CopilotSession;

beforeEach(async () => {
  fake = await startFakeRuntime();
  client = new CopilotClient({ cliUrl: fake.url });
  session = await client.createSession({ sessionId: "s", onPermissionRequest: approveAll });
});

afterEach(async () => {
  await client.forceStop();
  await fake.close();
});

/** Lets pending notifications arrive: a request/response round trip is ordered after them. */
const flush = () => client.ping();

describe("session.on", () => {
  it("delivers typed events with narrowed data, and wildcard events, until unsubscribed", async () => {
    const contents: string[] = [];
    const types: string[] = [];
    const offTyped = session.on("assistant.message", (event) => contents.push(event.data.content));
    const offAll = session.on((event) => types.push(event.type));

    fake.emitEvent("s", "assistant.message", { messageId: "m1", content: "hello" });
    fake.emitEvent("s", "session.idle", {}, true);
    fake.emitEvent("other", "assistant.message", { messageId: "m2", content: "not mine" });
    await flush();
    expect(contents).toEqual(["hello"]);
    expect(types).toEqual(["assistant.message", "session.idle"]);

    offTyped();
    offAll();
    fake.emitEvent("s", "assistant.message", { messageId: "m3", content: "after" });
    await flush();
    expect(contents).toEqual(["hello"]);
    expect(types).toHaveLength(2);
  });

  it("isolates a throwing handler from the others", async () => {
    const seen: SessionEvent[] = [];
    session.on("session.idle", () => {
      throw new Error("handler bug");
    });
    session.on(() => {
      throw new Error("another bug");
    });
    session.on((event) => seen.push(event));
    fake.emitEvent("s", "session.idle", {}, true);
    await flush();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ type: "session.idle", ephemeral: true, parentId: null });
  });

  it("stops delivering after disconnect and removes the session from the client", async () => {
    const seen: string[] = [];
    session.on((event) => seen.push(event.type));
    await session.disconnect();
    expect(fake.requestsFor("session.destroy")).toEqual([{ sessionId: "s" }]);
    fake.emitEvent("s", "session.idle", {});
    await flush();
    expect(seen).toEqual([]);
    expect(await client.stop()).toEqual([]);
    expect(fake.requestsFor("session.destroy")).toHaveLength(1);
  });
});

describe("sendAndWait", () => {
  it("resolves with the last assistant.message once the session is idle", async () => {
    fake.handle("session.send", (params) => {
      setTimeout(() => {
        fake.emitEvent("s", "user.message", { content: params.prompt });
        fake.emitEvent("s", "assistant.message", { messageId: "a1", content: "first" });
        fake.emitEvent("s", "assistant.message", { messageId: "a2", content: "second" });
        fake.emitEvent("s", "session.idle", {}, true);
      }, 5);
      return { messageId: "u1" };
    });
    const reply = await session.sendAndWait({ prompt: "hi", attachments: [{ type: "file", path: "/a.txt" }], mode: "immediate" });
    expect(reply?.data.content).toBe("second");
    expect(fake.requestsFor("session.send")[0]).toEqual({
      sessionId: "s",
      prompt: "hi",
      attachments: [{ type: "file", path: "/a.txt" }],
      mode: "immediate",
      // A fresh key per send, repeated only when the send is retried after a lost connection.
      idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it("resolves with undefined when the turn has no assistant message", async () => {
    fake.handle("session.send", () => {
      fake.emitEvent("s", "session.idle", {}, true);
      return { messageId: "u1" };
    });
    await expect(session.sendAndWait({ prompt: "hi" })).resolves.toBeUndefined();
  });

  it("sees events emitted before session.send returns (listener registered first)", async () => {
    fake.handle("session.send", async () => {
      fake.emitEvent("s", "assistant.message", { messageId: "a1", content: "early" });
      fake.emitEvent("s", "session.idle", {}, true);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { messageId: "u1" };
    });
    const reply = await session.sendAndWait({ prompt: "hi" }, 1_000);
    expect(reply?.data.content).toBe("early");
  });

  it("rejects with the message of a session.error", async () => {
    fake.handle("session.send", () => {
      setTimeout(() => fake.emitEvent("s", "session.error", { errorType: "query", message: "Execution failed: quota", stack: "at x" }), 5);
      return { messageId: "u1" };
    });
    const error = await session.sendAndWait({ prompt: "hi" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("Execution failed: quota");
    expect((error as Error).stack).toBe("at x");
  });

  it("rejects with a timeout error naming the timeout", async () => {
    await expect(session.sendAndWait({ prompt: "hi" }, 50)).rejects.toThrow("Timeout after 50ms waiting for session.idle");
  });

  it("removes its listener afterwards", async () => {
    fake.handle("session.send", () => {
      setTimeout(() => fake.emitEvent("s", "session.idle", {}, true), 5);
      return { messageId: "u1" };
    });
    await session.sendAndWait({ prompt: "hi" });
    // A later session.error must not surface anywhere (no unhandled rejection).
    fake.emitEvent("s", "session.error", { errorType: "x", message: "late" });
    await flush();
  });
});

describe("session methods", () => {
  it("send returns the message id; abort, getMessages, setModel and log use the session id", async () => {
    fake.handle("session.send", () => ({ messageId: "mid-7" }));
    fake.handle("session.getMessages", () => ({ events: [{ id: "1", timestamp: "t", parentId: null, type: "session.idle", data: {} }] }));
    expect(await session.send({ prompt: "x" })).toBe("mid-7");
    await session.abort();
    expect(await session.getMessages()).toHaveLength(1);
    await session.setModel("gpt-5", { reasoningEffort: "low" });
    await session.log("hello", { level: "warning", ephemeral: true });
    expect(fake.requestsFor("session.abort")).toEqual([{ sessionId: "s" }]);
    expect(fake.requestsFor("session.getMessages")).toEqual([{ sessionId: "s" }]);
    expect(fake.requestsFor("session.model.switchTo")).toEqual([{ sessionId: "s", modelId: "gpt-5", reasoningEffort: "low" }]);
    expect(fake.requestsFor("session.log")).toEqual([{ sessionId: "s", message: "hello", level: "warning", ephemeral: true }]);
  });

  it("rpc wrappers fill in the session id", async () => {
    fake.handle("session.mode.set", (params) => ({ mode: params.mode }));
    fake.handle("session.plan.read", () => ({ exists: false, content: null, path: null }));
    expect(await session.rpc.mode.set({ mode: "plan" })).toEqual({ mode: "plan" });
    expect(await session.rpc.plan.read()).toEqual({ exists: false, content: null, path: null });
    expect(fake.requestsFor("session.mode.set")).toEqual([{ sessionId: "s", mode: "plan" }]);
    expect(fake.requestsFor("session.plan.read")).toEqual([{ sessionId: "s" }]);
  });

  it("destroy() and await using both disconnect", async () => {
    await session.destroy();
    {
      await using scoped = await client.createSession({ sessionId: "scoped", onPermissionRequest: approveAll });
      expect(scoped.sessionId).toBe("scoped");
    }
    expect(fake.requestsFor("session.destroy")).toEqual([{ sessionId: "s" }, { sessionId: "scoped" }]);
  });
});
