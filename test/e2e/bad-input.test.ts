/**
 * Bad input gets a clear JSON-RPC error and the runtime keeps serving: malformed frames, unknown
 * methods, unknown sessions, invalid params, answers to requests nobody asked.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, type TestWorld } from "../helpers/harness.js";
import { RawClient } from "../helpers/raw-client.js";

let world: TestWorld | undefined;
let client: RawClient | undefined;

afterEach(async () => {
  await client?.close(true);
  await world?.dispose();
});

describe("bad input over stdio", () => {
  it("answers malformed JSON with a parse error and keeps serving", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    client.writeFrame("{ this is not json");
    const parseError = await client.waitFor((message) => message.error?.code === -32700);
    expect(parseError.id).toBeNull();
    const pong = await client.request("ping", { message: "still alive" });
    expect(pong.result).toMatchObject({ message: "pong: still alive", protocolVersion: 3 });
  });

  it("rejects unknown methods with -32601", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    const response = await client.request("foo.bar", {});
    expect(response.error).toMatchObject({ code: -32601, message: "Unhandled method foo.bar" });
    expect((await client.request("ping")).result).toBeDefined();
  });

  it("reports unknown session ids with a typed error", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    for (const method of ["session.send", "session.getMessages", "session.resume", "session.model.getCurrent"]) {
      const response = await client.request(method, { sessionId: "no-such-session", prompt: "hi" });
      expect(response.error?.code, method).toBe(-32001);
      expect(response.error?.message, method).toBe("Session not found: no-such-session");
    }
    const abort = await client.request("session.abort", { sessionId: "no-such-session" });
    expect(abort.result).toEqual({ success: false, error: "Session not found or not currently active" });
    const deleted = await client.request("session.delete", { sessionId: "no-such-session" });
    expect(deleted.result).toMatchObject({ success: false });
  });

  it("rejects invalid params with -32602 naming the field", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    const badId = await client.request("session.create", { sessionId: 123 });
    expect(badId.error?.code).toBe(-32602);
    expect(badId.error?.message).toContain("sessionId");
    const badTools = await client.request("session.create", { tools: [{ name: "has spaces" }] });
    expect(badTools.error?.code).toBe(-32602);
    expect(badTools.error?.message).toContain("tools");
    const badDirectory = await client.request("session.create", { workingDirectory: "/definitely/not/here" });
    expect(badDirectory.error?.code).toBe(-32602);
    expect(badDirectory.error?.message).toContain("/definitely/not/here");
    const created = await client.request("session.create", {});
    const { sessionId } = created.result as { sessionId: string };
    const noPrompt = await client.request("session.send", { sessionId });
    expect(noPrompt.error?.code).toBe(-32602);
    expect(noPrompt.error?.message).toContain("prompt");
    const badMode = await client.request("session.send", { sessionId, prompt: "x", mode: "sideways" });
    expect(badMode.error?.code).toBe(-32602);
  });

  it("refuses answers to requests that are not pending", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    const tool = await client.request("session.tools.handlePendingToolCall", { sessionId, requestId: "nope", result: "x" });
    expect(tool.result).toMatchObject({ success: false });
    const permission = await client.request("session.permissions.handlePendingPermissionRequest", {
      sessionId,
      requestId: "nope",
      result: { kind: "approved" },
    });
    expect(permission.result).toMatchObject({ success: false });
    const badKind = await client.request("session.permissions.handlePendingPermissionRequest", {
      sessionId,
      requestId: "nope",
      result: { kind: "maybe" },
    });
    expect(badKind.error?.code).toBe(-32602);
  });

  it("serves a real turn after all of that", async () => {
    world = await startWorld(["plain-reply"]);
    client = new RawClient(world.env);
    client.writeFrame("[1,2,");
    await client.request("nope.nope");
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    await client.request("session.send", { sessionId, prompt: "hello" });
    const idle = await client.waitFor(
      (message) => message.method === "session.event" && (message.params as { event: { type: string } }).event.type === "session.idle",
    );
    expect(idle).toBeDefined();
    const message = client.received.find(
      (each) => each.method === "session.event" && (each.params as { event: { type: string } }).event.type === "assistant.message",
    );
    expect((message?.params as { event: { data: { content: string } } }).event.data.content).toBe("Hello from the scripted model.");
  });
});
