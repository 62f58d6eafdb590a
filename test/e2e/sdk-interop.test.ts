/**
 * The same scenarios through every client against the real `tandem` process and the scripted model
 * server: the official `@github/copilot-sdk@0.2.0` (drop-in, via `cliPath`), the official 1.0.x
 * (via `RuntimeConnection.forStdio` / `forTcp`) and our `@tandem/sdk` (which starts the runtime it
 * depends on by default).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CopilotClient, SessionEvent } from "@github/copilot-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { clientVariants } from "../helpers/official-client.js";

let world: TestWorld | undefined;
const clients: CopilotClient[] = [];

afterEach(async () => {
  for (const each of clients.splice(0)) await each.stop();
  await world?.dispose();
  world = undefined;
});

function persistedLines(sessionId: string): Array<{ type: string; id: string; parentId: string | null }> {
  if (!world) throw new Error("no world");
  return readFileSync(join(world.home, "session-state", sessionId, "events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

describe.each(clientVariants)("$sdk against tandem", ({ make, approveAll }) => {
  function client(options: { useStdio?: boolean } = {}): CopilotClient {
    if (!world) throw new Error("no world");
    const created = make(world.env, { transport: options.useStdio === false ? "tcp" : "stdio", cwd: world.home });
    clients.push(created);
    return created;
  }

  it("gets a plain reply over stdio, with the event envelope and order of the protocol", async () => {
    world = await startWorld(["plain-reply"]);
    const copilot = client();
    const session = await copilot.createSession({ onPermissionRequest: approveAll });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));

    const reply = await session.sendAndWait({ prompt: "Say hello" });
    expect(reply?.data.content).toBe("Hello from the scripted model.");

    const types = events.map((event) => event.type);
    const order = ["user.message", "assistant.turn_start", "assistant.usage", "assistant.message", "assistant.turn_end", "session.idle"];
    const positions = order.map((type) => types.indexOf(type as SessionEvent["type"]));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    for (let index = 1; index < events.length; index++) expect(events[index]?.parentId).toBe(events[index - 1]?.id);
    expect(events.find((event) => event.type === "session.idle")?.ephemeral).toBe(true);
    const usage = events.find((event) => event.type === "assistant.usage");
    expect(usage?.data).toMatchObject({ inputTokens: 12, outputTokens: 6 });

    // The second turn sends the whole history to the model.
    const second = await session.sendAndWait({ prompt: "And again" });
    expect(second?.data.content).toBe("Second answer, with the whole history in view.");
    const lastRequest = world.model.requests.at(-1);
    const messages = (lastRequest?.body as { messages: Array<{ role: string; content: unknown }> }).messages;
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(lastRequest?.headers.authorization).toBe("Bearer test-token");

    // Persisted: non-ephemeral events only, linked, in order.
    await session.disconnect();
    const lines = persistedLines(session.sessionId);
    expect(lines[0]?.type).toBe("session.start");
    expect(lines.some((line) => line.type === "session.idle")).toBe(false);
    expect(lines.filter((line) => line.type === "user.message")).toHaveLength(2);
    expect(lines.at(-1)?.type).toBe("session.shutdown");
  });

  it("streams deltas that concatenate to the final message", async () => {
    world = await startWorld(["streaming-reply"]);
    const session = await client().createSession({ onPermissionRequest: approveAll, streaming: true });
    const deltas: string[] = [];
    const order: Array<{ type: string; size?: number }> = [];
    session.on("assistant.message_delta", (event) => {
      deltas.push(event.data.deltaContent);
      order.push({ type: event.type });
    });
    session.on("assistant.streaming_delta", (event) => order.push({ type: event.type, size: event.data.totalResponseSizeBytes }));
    const reply = await session.sendAndWait({ prompt: "stream please" });
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join("")).toBe(reply?.data.content);
    expect(reply?.data.content).toContain("Streaming works");
    // As the reference runtime does: every model chunk gives a streaming_delta (cumulative bytes)
    // just before its message_delta.
    order.forEach((entry, index) => {
      if (entry.type === "assistant.message_delta") expect(order[index - 1]?.type).toBe("assistant.streaming_delta");
    });
    const sizes = order.flatMap((entry) => (entry.size === undefined ? [] : [entry.size]));
    expect(sizes.length).toBeGreaterThanOrEqual(deltas.length);
    expect(sizes.every((size, index) => index === 0 || size > sizes[index - 1]!)).toBe(true);
    expect((world.model.requests[0]?.body as { stream?: boolean }).stream).toBe(true);
  });

  it("runs a custom tool after a permission request and feeds the result back", async () => {
    world = await startWorld(["custom-tool"]);
    const permissionKinds: string[] = [];
    const calls: unknown[] = [];
    const session = await client().createSession({
      onPermissionRequest: (request) => {
        permissionKinds.push(request.kind);
        return { kind: "approved" };
      },
      tools: [
        {
          name: "get_weather",
          description: "Weather for a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          handler: async (args) => {
            calls.push(args);
            return { temperature: 72, city: "Paris" };
          },
        },
      ],
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "Weather in Paris?" });
    expect(reply?.data.content).toBe("It is 72 degrees in Paris.");
    expect(calls).toEqual([{ city: "Paris" }]);
    expect(permissionKinds).toEqual(["custom-tool"]);
    const toolFlow = events
      .map((event) => event.type)
      .filter((type) => type.startsWith("tool.") || type.startsWith("permission.") || type.startsWith("external_tool."));
    expect(toolFlow).toEqual([
      "tool.execution_start",
      "permission.requested",
      "permission.completed",
      "external_tool.requested",
      "external_tool.completed",
      "tool.execution_complete",
    ]);
    const complete = events.find((event) => event.type === "tool.execution_complete");
    expect(complete?.data).toMatchObject({ toolCallId: "call_weather_1", success: true });
    const turns = events.filter((event) => event.type === "assistant.turn_start").map((event) => event.data.turnId);
    expect(turns).toEqual(["0", "1"]);
    expect(world.model.requests.every((request) => !request.expectationError)).toBe(true);
    const toolMessage = (world.model.requests[1]?.body as { messages: Array<{ role: string; content: string }> }).messages.at(-1);
    expect(toolMessage?.role).toBe("tool");
    expect(JSON.parse(toolMessage?.content ?? "{}")).toEqual({ temperature: 72, city: "Paris" });
  });

  it("tells the model about a denied permission and never runs the tool", async () => {
    world = await startWorld(["tool-denied"]);
    let ran = false;
    const session = await client().createSession({
      onPermissionRequest: () => ({ kind: "denied-by-rules", rules: [{ kind: "custom-tool", argument: "read_secret" }] }),
      tools: [{ name: "read_secret", description: "Reads a secret", handler: () => ((ran = true), "the secret") }],
    });
    const reply = await session.sendAndWait({ prompt: "Read the secret" });
    expect(ran).toBe(false);
    expect(reply?.data.content).toBe("I was not allowed to read the secret.");
    const toolResult = (world.model.requests[1]?.body as { messages: Array<{ role: string; content: string }> }).messages.at(-1);
    expect(toolResult?.content).toContain("denied");
    expect(toolResult?.content).toContain("read_secret");
  });

  it("ends the turn when the user rejects a tool call outright", async () => {
    world = await startWorld(["tool-denied"]);
    let ran = false;
    const session = await client().createSession({
      onPermissionRequest: () => ({ kind: "denied-interactively-by-user" }),
      tools: [{ name: "read_secret", description: "Reads a secret", handler: () => ((ran = true), "the secret") }],
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.sendAndWait({ prompt: "Read the secret" });
    expect(ran).toBe(false);
    expect(world.model.requests).toHaveLength(1);
    const complete = events.find((event) => event.type === "tool.execution_complete");
    expect(complete?.data).toMatchObject({ success: false, error: { code: "rejected" } });
  });

  it("reports a tool handler that throws to the model, and the session goes on", async () => {
    world = await startWorld(["tool-throws"]);
    const session = await client().createSession({
      onPermissionRequest: approveAll,
      tools: [
        {
          name: "flaky",
          description: "Always fails",
          handler: () => {
            throw new Error("database is on fire");
          },
        },
      ],
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "Use the flaky tool" });
    expect(reply?.data.content).toBe("The tool failed; I will report it.");
    const complete = events.find((event) => event.type === "tool.execution_complete");
    expect(complete?.data).toMatchObject({ success: false, error: { message: "database is on fire", code: "failure" } });
  });

  it("works over TCP as well as stdio", async () => {
    world = await startWorld(["plain-reply"]);
    const copilot = client({ useStdio: false });
    await copilot.start();
    const pong = await copilot.ping("tcp");
    expect(pong.message).toBe("pong: tcp");
    expect(pong.protocolVersion).toBe(3);
    const session = await copilot.createSession({ onPermissionRequest: approveAll });
    const reply = await session.sendAndWait({ prompt: "over tcp" });
    expect(reply?.data.content).toBe("Hello from the scripted model.");
  });

  it("resumes a session from a new client and runtime process, with the history intact", async () => {
    world = await startWorld(["plain-reply"]);
    const first = client();
    const session = await first.createSession({ onPermissionRequest: approveAll });
    await session.sendAndWait({ prompt: "Remember the number 42" });
    const sessionId = session.sessionId;
    await first.stop();

    const second = client();
    await second.start();
    expect(await second.getLastSessionId()).toBe(sessionId);
    const listed = await second.listSessions();
    expect(listed.map((item) => item.sessionId)).toContain(sessionId);
    expect(listed.find((item) => item.sessionId === sessionId)?.summary).toBe("Remember the number 42");

    const resumed = await second.resumeSession(sessionId, { onPermissionRequest: approveAll });
    const history = await resumed.getMessages();
    expect(history.filter((event) => event.type === "user.message").map((event) => event.data.content)).toEqual(["Remember the number 42"]);
    expect(history.at(-1)?.type).toBe("session.resume");
    const reply = await resumed.sendAndWait({ prompt: "What was the number?" });
    expect(reply?.data.content).toBe("Second answer, with the whole history in view.");
    const messages = (world.model.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages;
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(messages[1]?.content).toContain("Remember the number 42");
  });

  it("turns a failing model server into session.error and stays usable", async () => {
    world = await startWorld(["server-error"]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    const errors: SessionEvent[] = [];
    let idles = 0;
    session.on("session.error", (event) => errors.push(event));
    session.on("session.idle", () => idles++);
    await expect(session.sendAndWait({ prompt: "first try" })).rejects.toThrow(/upstream exploded/);
    // session.error comes before that run's session.idle; wait for it before sending again.
    await waitFor(() => idles === 1, "the failed run to go idle");
    expect(errors[0]?.data).toMatchObject({ errorType: "provider", statusCode: 500 });
    expect(world.model.requests).toHaveLength(4);
    const reply = await session.sendAndWait({ prompt: "second try" });
    expect(reply?.data.content).toBe("Recovered after the outage.");
  });
});
