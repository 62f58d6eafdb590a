/**
 * Requests to the user and commands, through the official SDK 1.0.x against the real `tandem`:
 * `session.ui.elicitation` answered by the config's elicitation handler (and refused as not
 * available when no client answers forms), the `handlePending*` answers for request ids that do
 * not wait, direct auto-mode-switch handler registrations, `session.commands.enqueue`, and
 * `commands.changed` when a client with commands joins or leaves a shared session (TCP).
 */
import { CopilotClient, RuntimeConnection, approveAll, type SessionEvent } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";
import { startTcpRuntime } from "../helpers/tcp.js";

const TOKEN = "ui-commands-token-0123456789";

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown> | unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.dispose();
  world = undefined;
});

function client(): CopilotClient {
  const created = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world!.env, logLevel: "error" });
  cleanups.push(() => created.forceStop());
  return created;
}

/** Resolves with the first event the session sees that `matches`. */
function nextEvent(session: { on(handler: (event: SessionEvent) => void): () => void }, matches: (event: SessionEvent) => boolean): Promise<SessionEvent> {
  return new Promise((resolve) => {
    const stop = session.on((event) => {
      if (!matches(event)) return;
      stop();
      resolve(event);
    });
  });
}

describe("session.ui.elicitation", () => {
  it("asks the client's elicitation handler and answers with its form values", async () => {
    world = await startWorld([]);
    const contexts: unknown[] = [];
    const session = await client().createSession({
      onPermissionRequest: approveAll,
      onElicitationRequest: (context) => {
        contexts.push(context);
        return { action: "accept", content: { answer: "from handler", confirmed: true } };
      },
    });
    const requestedSchema = { type: "object" as const, properties: { answer: { type: "string" as const }, confirmed: { type: "boolean" as const } }, required: ["answer"] };
    const response = await session.rpc.ui.elicitation({ message: "Need details", requestedSchema });
    expect(response).toEqual({ action: "accept", content: { answer: "from handler", confirmed: true } });
    expect(contexts).toEqual([expect.objectContaining({ sessionId: session.sessionId, message: "Need details", requestedSchema })]);
  });

  it("is not available when no client of the session answers forms", async () => {
    world = await startWorld([]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    await expect(session.rpc.ui.elicitation({ message: "Anyone?", requestedSchema: { type: "object", properties: {} } })).rejects.toMatchObject({
      code: -32005,
      message: expect.stringContaining("No connected client of this session answers elicitations"),
    });
  });
});

describe("answers to requests that do not wait", () => {
  it("each handlePending* says success: false for an unknown request id; a command report is acknowledged", async () => {
    world = await startWorld([]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    const { rpc } = session;
    expect(await rpc.ui.handlePendingUserInput({ requestId: "x", response: { answer: "a", wasFreeform: true } })).toEqual({ success: false, error: "No pending user input request with requestId x" });
    expect(await rpc.ui.handlePendingSampling({ requestId: "x", response: {} })).toMatchObject({ success: false });
    expect(await rpc.ui.handlePendingAutoModeSwitch({ requestId: "x", response: "no" })).toMatchObject({ success: false });
    expect(await rpc.ui.handlePendingSessionLimitsExhausted({ requestId: "x", response: { action: "cancel" } })).toMatchObject({ success: false });
    expect(await rpc.mcp.headers.handlePendingHeadersRefreshRequest({ requestId: "x", result: { kind: "none" } })).toMatchObject({ success: false });
    expect(await rpc.ui.handlePendingElicitation({ requestId: "x", result: { action: "cancel" } })).toMatchObject({ success: false });
    expect(await rpc.tools.handlePendingToolCall({ requestId: "x", result: "r" })).toMatchObject({ success: false });
    expect(await rpc.commands.handlePendingCommand({ requestId: "x", error: "e" })).toEqual({ success: true });
  });

  it("registers and unregisters direct auto-mode-switch handlers by handle", async () => {
    world = await startWorld([]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    expect(await session.rpc.ui.unregisterDirectAutoModeSwitchHandler({ handle: "missing" })).toEqual({ unregistered: false });
    const first = await session.rpc.ui.registerDirectAutoModeSwitchHandler();
    const second = await session.rpc.ui.registerDirectAutoModeSwitchHandler();
    expect(first.handle).not.toBe(second.handle);
    expect(await session.rpc.ui.unregisterDirectAutoModeSwitchHandler({ handle: first.handle })).toEqual({ unregistered: true });
    expect(await session.rpc.ui.unregisterDirectAutoModeSwitchHandler({ handle: first.handle })).toEqual({ unregistered: false });
    expect(await session.rpc.ui.unregisterDirectAutoModeSwitchHandler({ handle: second.handle })).toEqual({ unregistered: true });
  });
});

describe("auto-mode switch after a rate limit", () => {
  it("asks the application's handler; a yes switches to the auto model with its cause and the call is made again", async () => {
    world = await startWorld(["lifecycle-rate-limited"], { TANDEM_RETRY_BASE_MS: "1" });
    const asked: unknown[] = [];
    const session = await client().createSession({
      onPermissionRequest: approveAll,
      onAutoModeSwitchRequest: (request) => {
        asked.push(request);
        return "yes";
      },
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "rate limited please" });
    expect(reply?.data.content).toBe("Answered by the auto model.");
    expect(asked).toEqual([expect.objectContaining({ errorCode: "user_weekly_rate_limited", retryAfterSeconds: 0 })]);
    const requested = events.find((event) => event.type === "auto_mode_switch.requested");
    expect(requested?.data).toMatchObject({ errorCode: "user_weekly_rate_limited" });
    expect(events.find((event) => event.type === "auto_mode_switch.completed")?.data).toEqual({ requestId: (requested?.data as { requestId: string }).requestId, response: "yes" });
    expect(events.find((event) => event.type === "session.model_change")?.data).toMatchObject({ newModel: "auto", cause: "rate_limit_auto_switch" });
    expect((world.model.requests.at(-1)?.body as { model: string }).model).toBe("auto");
    expect(await session.rpc.model.getCurrent()).toMatchObject({ modelId: "auto" });
  });

  it("a no keeps the model and the turn ends with the rate-limit error", async () => {
    world = await startWorld(["lifecycle-rate-limited"], { TANDEM_RETRY_BASE_MS: "1" });
    const session = await client().createSession({ onPermissionRequest: approveAll, onAutoModeSwitchRequest: () => "no" });
    const completed = nextEvent(session, (event) => event.type === "auto_mode_switch.completed");
    const failed = nextEvent(session, (event) => event.type === "session.error");
    await session.send({ prompt: "rate limited please" });
    expect((await completed).data).toMatchObject({ response: "no" });
    expect((await failed).data).toMatchObject({ errorType: "rate_limit" });
    expect((await session.rpc.model.getCurrent()).modelId).not.toBe("auto");
  });
});

describe("session.commands.enqueue", () => {
  it("queues a known command, which runs; an unknown one is queued and reports it is unknown; plain text is refused", async () => {
    world = await startWorld([]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    const ran = nextEvent(session, (event) => event.type === "session.mode_changed");
    expect(await session.rpc.commands.enqueue({ command: "/plan" })).toEqual({ queued: true });
    expect((await ran).data).toMatchObject({ newMode: "plan" });

    const warned = nextEvent(session, (event) => event.type === "session.warning");
    expect(await session.rpc.commands.enqueue({ command: "/no-such-command now" })).toEqual({ queued: true });
    expect((await warned).data).toMatchObject({ warningType: "command", message: expect.stringContaining("Unknown slash command /no-such-command") });

    await expect(session.rpc.commands.enqueue({ command: "just words" })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("Not a slash command") });
  });
});

describe("commands.changed", () => {
  it("tells the attached clients when a client with commands joins, and when it leaves", async () => {
    world = await startWorld([]);
    const runtime = await startTcpRuntime({ ...world.env, COPILOT_CONNECTION_TOKEN: TOKEN });
    cleanups.push(() => runtime.stop());
    const overTcp = (): CopilotClient => {
      const created = new CopilotClient({ connection: RuntimeConnection.forUri(`127.0.0.1:${runtime.port}`, { connectionToken: TOKEN }), logLevel: "error" });
      cleanups.push(() => created.forceStop());
      return created;
    };
    const first = await overTcp().createSession({ onPermissionRequest: approveAll });
    const joined = nextEvent(first, (event) => event.type === "commands.changed");
    const second = await overTcp().resumeSession(first.sessionId, {
      onPermissionRequest: approveAll,
      commands: [{ name: "deploy", description: "Deploy the app", handler: async () => undefined }],
    });
    expect((await joined).data).toEqual({ commands: [{ name: "deploy", description: "Deploy the app" }] });

    const left = nextEvent(first, (event) => event.type === "commands.changed");
    await second.disconnect();
    expect((await left).data).toEqual({ commands: [] });
  });

  it("a client that goes away without leaving (its connection closed) takes its commands and its elicitation handler along", async () => {
    world = await startWorld([]);
    const runtime = await startTcpRuntime({ ...world.env, COPILOT_CONNECTION_TOKEN: TOKEN });
    cleanups.push(() => runtime.stop());
    const overTcp = (): CopilotClient => {
      const created = new CopilotClient({ connection: RuntimeConnection.forUri(`127.0.0.1:${runtime.port}`, { connectionToken: TOKEN }), logLevel: "error" });
      cleanups.push(() => created.forceStop());
      return created;
    };
    const first = await overTcp().createSession({ onPermissionRequest: approveAll });
    const joined = nextEvent(first, (event) => event.type === "capabilities.changed");
    const commandsJoined = nextEvent(first, (event) => event.type === "commands.changed");
    const leaving = overTcp();
    await leaving.resumeSession(first.sessionId, {
      onPermissionRequest: approveAll,
      onElicitationRequest: () => ({ action: "cancel" }),
      commands: [{ name: "deploy", handler: async () => undefined }],
    });
    expect((await joined).data).toEqual({ ui: { elicitation: true } });
    expect((await commandsJoined).data).toEqual({ commands: [expect.objectContaining({ name: "deploy" })] });
    expect(first.capabilities.ui?.elicitation).toBe(true);

    const capabilitiesLost = nextEvent(first, (event) => event.type === "capabilities.changed");
    const commandsLost = nextEvent(first, (event) => event.type === "commands.changed");
    await leaving.forceStop();
    expect((await capabilitiesLost).data).toEqual({ ui: { elicitation: false } });
    expect((await commandsLost).data).toEqual({ commands: [] });
    expect(first.capabilities.ui?.elicitation).toBe(false);
  });
});
