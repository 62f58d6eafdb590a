/**
 * The event stream in the reference runtime's order and shape (the conformance report),
 * seen through the official SDKs' session handlers: `session.start` / `session.resume` reach the
 * handler (they follow the create/resume result), each send gives `pending_messages.modified` twice,
 * the title when the first prompt is accepted, `session.tools_updated {model}` before the
 * `user.message`, the system prompt as a persisted `system.message`, `assistant.usage` before
 * `assistant.message`, `assistant.idle` (1.0.x only) before `session.idle {mode}`, and
 * `session.usage_info` split into system, conversation and tool-definition tokens. How a turn ends
 * and how a sub-agent shows are 1.0.x's here (`generation-events.test.ts` has both generations).
 */
import { approveAll } from "@github/copilot-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { recordEvents, weatherTool, type AnyEvent } from "../helpers/session-events.js";
import { officialClient, officialV1Client, type ClientMaker } from "../helpers/official-client.js";


let world: TestWorld | undefined;
const stops: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await world?.dispose();
  world = undefined;
});

const clients: Array<{ sdk: string; make: ClientMaker; idleTypes: string[] }> = [
  // Neither SDK 0.2.0's schema nor the event reference has `assistant.idle`.
  { sdk: "official SDK 0.2.0", make: officialClient, idleTypes: ["session.idle"] },
  { sdk: "official SDK 1.0.x", make: officialV1Client, idleTypes: ["assistant.idle", "session.idle"] },
];

/** The types between the second `pending_messages.modified` of a send and its `assistant.turn_end` (the idle events follow). */
const oneSend = [
  "pending_messages.modified",
  "pending_messages.modified",
  "session.title_changed",
  "session.tools_updated",
  "user.message",
  "system.message",
  "assistant.turn_start",
  "session.usage_info",
  "assistant.usage",
  "assistant.message",
  "assistant.turn_end",
];

describe.each(clients)("reference event order ($sdk)", ({ make, idleTypes }) => {
  it("session.start reaches the session's handler, then a send gives the reference's sequence", async () => {
    world = await startWorld(["plain-reply"]);
    const client = make(world.env);
    stops.push(() => client.stop());
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const events = recordEvents(session);
    await waitFor(() => events.some((event) => event.type === "session.start"), "session.start at the session's handler");

    await session.sendAndWait({ prompt: "Say hello" });
    await waitFor(() => events.some((event) => event.type === "session.idle"), "session.idle");
    // In Copilot API mode the session's GitHub MCP server connects at its first turn and announces
    // that (session.mcp_*); the reference's sequence is the turn's own events around it.
    const types = events.map((event) => event.type).filter((type) => !type.startsWith("session.mcp_"));
    expect(types.slice(types.indexOf("pending_messages.modified"))).toEqual([...oneSend, ...idleTypes]);
    expect(events.map((event) => event.type).filter((type) => type.startsWith("session.mcp_"))).toEqual(["session.mcp_server_status_changed", "session.mcp_servers_loaded"]);

    const byType = (type: string) => events.find((event) => event.type === type) as AnyEvent;
    expect(byType("session.title_changed").data).toEqual({ title: "Say hello" });
    expect(byType("session.tools_updated").data).toEqual({ model: "gpt-4.1" });
    const system = byType("system.message");
    expect(system.ephemeral).toBeUndefined();
    expect(system.data.role).toBe("system");
    expect(String(system.data.content).length).toBeGreaterThan(100);
    expect(byType("assistant.message").data).toMatchObject({ model: "gpt-4.1", turnId: "0" });
    if (idleTypes.includes("assistant.idle")) expect(byType("assistant.idle").ephemeral).toBe(true);
    expect(byType("session.idle").data).toEqual({ mode: "interactive" });

    const usage = byType("session.usage_info").data as Record<string, number | boolean>;
    expect(usage.isInitial).toBe(true);
    for (const key of ["systemTokens", "conversationTokens", "toolDefinitionsTokens"]) expect(usage[key]).toBeGreaterThan(0);
    expect(Number(usage.systemTokens) + Number(usage.conversationTokens) + Number(usage.toolDefinitionsTokens)).toBe(usage.currentTokens);

    // The second send: no new title; its first usage report is again the initial one (as the reference's).
    events.length = 0;
    await session.sendAndWait({ prompt: "Again" });
    await waitFor(() => events.some((event) => event.type === "session.idle"), "the second session.idle");
    expect(events.map((event) => event.type)).toEqual([...oneSend.filter((type) => type !== "session.title_changed"), ...idleTypes]);
    expect(byType("session.usage_info").data.isInitial).toBe(true);
  });

  it("session.resume reaches the handler of a session resumed by a new client", async () => {
    world = await startWorld(["plain-reply"]);
    const first = make(world.env);
    stops.push(() => first.stop());
    const created = await first.createSession({ onPermissionRequest: approveAll });
    await created.sendAndWait({ prompt: "Say hello" });
    await first.stop();

    const second = make(world.env);
    stops.push(() => second.stop());
    const resumed = await second.resumeSession(created.sessionId, { onPermissionRequest: approveAll });
    const events = recordEvents(resumed);
    await waitFor(() => events.some((event) => event.type === "session.resume"), "session.resume at the session's handler");
    expect(events.find((event) => event.type === "session.resume")?.data).toMatchObject({ eventCount: expect.any(Number) });
  });
});

describe("ends of a turn, as today's reference reports them (SDK 1.0.x)", () => {
  it("a rejected tool call: the reference's error text, then abort and a cancellation notice before idle", async () => {
    world = await startWorld(["tool-denied"]);
    const client = officialV1Client(world.env);
    stops.push(() => client.stop());
    const session = await client.createSession({
      onPermissionRequest: () => ({ kind: "denied-interactively-by-user" }),
      tools: [{ name: "read_secret", description: "Reads a secret", parameters: { type: "object", properties: { key: { type: "string" } } }, handler: () => "42" }],
    });
    const events = recordEvents(session);
    await session.sendAndWait({ prompt: "Read the launch codes" });
    await waitFor(() => events.some((event) => event.type === "session.idle"), "session.idle");

    const complete = events.find((event) => event.type === "tool.execution_complete");
    expect(complete?.data.error).toEqual({ message: "The user rejected this tool call.", code: "rejected" });
    const types = events.map((event) => event.type);
    expect(types.slice(types.indexOf("tool.execution_complete"))).toEqual(["tool.execution_complete", "assistant.turn_end", "abort", "session.info", "pending_messages.modified", "assistant.idle", "session.idle"]);
    expect(events.find((event) => event.type === "session.info")?.data).toEqual({ infoType: "cancellation", message: "Operation cancelled by user" });
    expect(events.find((event) => event.type === "session.idle")?.data).toEqual({ mode: "interactive" });
  });

  it("an abort: announced before the interrupted turn is closed, the queue re-read around it; assistant.idle and session.idle say aborted", async () => {
    world = await startWorld(["hang-then-reply"]);
    const client = officialV1Client(world.env);
    stops.push(() => client.stop());
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const events = recordEvents(session);
    await session.send({ prompt: "hang" });
    await waitFor(() => world?.model.requests.length === 1, "the model request");
    await session.abort();
    await waitFor(() => events.some((event) => event.type === "session.idle"), "session.idle");
    expect(events.find((event) => event.type === "assistant.idle")?.data).toEqual({ aborted: true });
    expect(events.find((event) => event.type === "session.idle")?.data).toEqual({ mode: "interactive", aborted: true });
    expect(events.find((event) => event.type === "session.info")?.data).toEqual({ infoType: "cancellation", message: "Operation cancelled by user" });
    const types = events.map((event) => event.type);
    // As 1.0.102: abort, the queue re-read, the interrupted turn's end, the queue re-read again, idle.
    expect(types.slice(types.indexOf("abort"))).toEqual(["abort", "session.info", "pending_messages.modified", "assistant.turn_end", "pending_messages.modified", "assistant.idle", "session.idle"]);
  });

  it("the official SDK 1.0.x's disconnect (session.detach of the last client) delivers session.shutdown", async () => {
    world = await startWorld(["plain-reply"]);
    const client = officialV1Client(world.env);
    stops.push(() => client.stop());
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const events = recordEvents(session);
    await session.sendAndWait({ prompt: "Say hello" });
    await session.destroy();
    expect(events.at(-1)?.type).toBe("session.shutdown");
  });
});

describe("the Copilot API request", () => {
  it("marks the prompt-cache breakpoints: the system message, the last non-user message and the last tool", async () => {
    world = await startWorld(["custom-tool"]);
    const client = officialClient(world.env);
    stops.push(() => client.stop());
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      tools: [weatherTool],
    });
    await session.sendAndWait({ prompt: "Weather in Paris?" });
    const mark = { type: "ephemeral" };
    type Body = { messages: Array<{ role: string; copilot_cache_control?: unknown }>; tools: Array<{ function: { name: string }; copilot_cache_control?: unknown }> };
    const [first, second] = world.model.requests.map((request) => request.body as Body);
    if (!first || !second) throw new Error("expected two model requests");
    const marked = (body: Body) => body.messages.map((message) => `${message.role}${message.copilot_cache_control ? "*" : ""}`);
    expect(marked(first)).toEqual(["system*", "user"]);
    expect(marked(second)).toEqual(["system*", "user", "assistant", "tool*"]);
    expect(second.messages[0]?.copilot_cache_control).toEqual(mark);
    expect(second.tools.at(-1)?.copilot_cache_control).toEqual(mark);
    expect(second.tools.slice(0, -1).some((tool) => tool.copilot_cache_control)).toBe(false);
  });
});

describe("sub-agents as today's reference shows them (SDK 1.0.x)", () => {
  it("subagent.started names the run by the task call's name and description; explore's tools come in the reference's order", async () => {
    world = await startWorld(["explore-agent", "explore-agent-sub"]);
    const client = officialV1Client(world.env);
    stops.push(() => client.stop());
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const events = recordEvents(session);
    const reply = await session.sendAndWait({ prompt: "Please explore the repo" });
    expect(reply?.data.content).toBe("The explorer found config.yaml.");
    expect(events.find((event) => event.type === "subagent.started")?.data).toMatchObject({ agentName: "explore", agentDisplayName: "finder", agentDescription: "Find the config" });

    type Body = { messages: Array<{ role: string; content: unknown }>; tools: Array<{ function: { name: string } }> };
    const subRequest = world.model.requests.map((request) => request.body as Body).find((body) => JSON.stringify(body.messages).includes("EXPLORE-SUB"));
    expect(subRequest?.tools.map((tool) => tool.function.name)).toEqual(["grep", "glob", "view", "bash", "read_bash", "stop_bash", "list_bash"]);
  });
});

describe("data fields of the 1.0.x schema", () => {
  it("user.message has its messageId; tool events their turnId and model; permission.completed its toolCallId; external_tool.requested the working directory", async () => {
    world = await startWorld(["custom-tool"]);
    const client = officialClient(world.env);
    stops.push(() => client.stop());
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      tools: [weatherTool],
    });
    const events = recordEvents(session);
    const messageId = await session.send({ prompt: "Weather in Paris?" });
    await waitFor(() => events.some((event) => event.type === "session.idle"), "session.idle");
    const data = (type: string) => events.find((event) => event.type === type)?.data;
    expect(data("user.message")?.messageId).toBe(messageId);
    expect(data("tool.execution_start")).toMatchObject({ toolCallId: "call_weather_1", turnId: "0", model: "gpt-4.1" });
    expect(data("tool.execution_complete")).toMatchObject({ toolCallId: "call_weather_1", turnId: "0" });
    expect(data("permission.completed")).toMatchObject({ toolCallId: "call_weather_1" });
    expect(data("external_tool.requested")?.workingDirectory).toEqual(expect.any(String));
  });
});
