/**
 * Work that outlives a call, through the official SDK 1.0.x against the real `tandem` over TCP
 * and the scripted model server: `session.suspend` (idle; a waiting permission cancelled; a
 * waiting application tool rejected; the session resumed and continued after), and a turn that
 * waits on a client when its clients all leave — held for a client that resumes with
 * `continuePendingWork` (which answers it and the turn goes on), interrupted for one that resumes
 * without it, and closed when nobody comes back within the grace period. `session.resume` says
 * which happened (`continuePendingWork` as the client gave it, `sessionWasActive`); `session.permissions.pendingRequests`
 * lists what waits.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, RuntimeConnection, approveAll, defineTool, type SessionEvent } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { startTcpRuntime, type TcpRuntime } from "../helpers/tcp.js";

const TOKEN = "lifecycle-methods-token-0123456789";

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown> | unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.dispose();
  world = undefined;
});

async function tcpRuntime(extraEnv: Record<string, string> = {}): Promise<TcpRuntime> {
  const runtime = await startTcpRuntime({ ...world!.env, COPILOT_CONNECTION_TOKEN: TOKEN, ...extraEnv });
  cleanups.push(() => runtime.stop());
  return runtime;
}

function clientOf(runtime: TcpRuntime): CopilotClient {
  const client = new CopilotClient({ connection: RuntimeConnection.forUri(`127.0.0.1:${runtime.port}`, { connectionToken: TOKEN }), logLevel: "error" });
  cleanups.push(() => client.forceStop());
  return client;
}

/** The persisted events of a session (its `events.jsonl`). */
function persisted(sessionId: string): Array<{ type: string; data: Record<string, unknown> }> {
  const file = join(world!.home, "session-state", sessionId, "events.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
}

/** A promise that never settles: a handler whose answer never comes. */
function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}

/** Resolves with the first event of `type` the session sees. */
function nextEvent(session: { on(handler: (event: SessionEvent) => void): () => void }, type: string): Promise<SessionEvent> {
  return new Promise((resolve) => {
    const stop = session.on((event) => {
      if (event.type !== type) return;
      stop();
      resolve(event);
    });
  });
}

const heldLookup = (handler: () => Promise<string> | string) =>
  defineTool("held_lookup", { description: "Looks a key up", parameters: z.object({ key: z.string() }), skipPermission: true, handler });

describe("session.suspend", () => {
  it("suspends an idle session, which is then resumed and continued", async () => {
    world = await startWorld(["plain-reply"]);
    const runtime = await tcpRuntime();
    const session = await clientOf(runtime).createSession({ onPermissionRequest: approveAll });
    expect((await session.sendAndWait({ prompt: "first" }))?.data.content).toBe("Hello from the scripted model.");
    await session.rpc.suspend();
    await session.disconnect();

    const resumed = await clientOf(runtime).resumeSession(session.sessionId, { onPermissionRequest: approveAll });
    expect((await resumed.sendAndWait({ prompt: "second" }))?.data.content).toBe("Second answer, with the whole history in view.");
  });

  it("cancels a waiting permission request: the tool does not run, the turn ends, the session answers the next message", async () => {
    world = await startWorld(["lifecycle-suspend"]);
    const runtime = await tcpRuntime();
    let toolRan = false;
    const guarded = defineTool("guarded_tool", {
      description: "Needs a permission",
      parameters: z.object({ value: z.string() }),
      handler: () => {
        toolRan = true;
        return "ran";
      },
    });
    const session = await clientOf(runtime).createSession({ tools: [guarded], onPermissionRequest: () => never() });
    const asked = nextEvent(session, "permission.requested");
    const idle = nextEvent(session, "session.idle");
    await session.send({ prompt: "suspend me" });
    await asked;
    expect((await session.rpc.permissions.pendingRequests()).items).toHaveLength(1);

    await session.rpc.suspend();
    await idle;
    expect(toolRan).toBe(false);
    expect((await session.rpc.permissions.pendingRequests()).items).toEqual([]);
    const completed = persisted(session.sessionId).filter((event) => event.type === "tool.execution_complete");
    expect(completed).toEqual([expect.objectContaining({ data: expect.objectContaining({ toolCallId: "call_guarded", success: false }) })]);
    expect((await session.sendAndWait({ prompt: "and now?" }))?.data.content).toBe("Back after the suspension.");
  });

  it("rejects a waiting application tool call: its late answer is refused", async () => {
    world = await startWorld(["lifecycle-held-tool"]);
    const runtime = await tcpRuntime();
    let release!: (value: string) => void;
    const session = await clientOf(runtime).createSession({
      tools: [heldLookup(() => new Promise<string>((resolve) => (release = resolve)))],
      onPermissionRequest: approveAll,
    });
    const requested = nextEvent(session, "external_tool.requested");
    await session.send({ prompt: "held lookup please" });
    const { requestId } = (await requested).data as { requestId: string };

    await session.rpc.suspend();
    expect(await session.rpc.tools.handlePendingToolCall({ requestId, result: "too late" })).toMatchObject({ success: false });
    release("too late");
    const completed = persisted(session.sessionId).find((event) => event.type === "tool.execution_complete");
    expect(completed?.data).toMatchObject({ toolCallId: "call_held", success: false });
  });
});

describe("pending work when the clients leave", () => {
  it("a client resuming with continuePendingWork answers the held tool call by its request id, and the turn goes on", async () => {
    world = await startWorld(["lifecycle-held-tool"]);
    const runtime = await tcpRuntime();
    const first = clientOf(runtime);
    const session = await first.createSession({ tools: [heldLookup(() => never())], onPermissionRequest: approveAll });
    const requested = nextEvent(session, "external_tool.requested");
    await session.send({ prompt: "held lookup please" });
    const { requestId } = (await requested).data as { requestId: string };
    await first.forceStop();

    const resumed = await clientOf(runtime).resumeSession(session.sessionId, { continuePendingWork: true, onPermissionRequest: approveAll });
    const resumeEvent = (await resumed.getEvents()).find((event) => event.type === "session.resume");
    expect(resumeEvent?.data).toMatchObject({ continuePendingWork: true, sessionWasActive: false });
    const answer = nextEvent(resumed, "assistant.message");
    expect(await resumed.rpc.tools.handlePendingToolCall({ requestId, result: "ANSWERED_AFTER_RESUME" })).toMatchObject({ success: true });
    expect((await answer).data).toMatchObject({ content: "The lookup said ANSWERED_AFTER_RESUME." });
  });

  it("a held permission request is listed by pendingRequests and answered by the resuming client", async () => {
    world = await startWorld(["lifecycle-suspend"]);
    const runtime = await tcpRuntime();
    const first = clientOf(runtime);
    const guarded = (text: string) => defineTool("guarded_tool", { description: "Needs a permission", parameters: z.object({ value: z.string() }), handler: ({ value }) => `${text} ${value}` });
    const session = await first.createSession({ tools: [guarded("first")], onPermissionRequest: () => never() });
    const asked = nextEvent(session, "permission.requested");
    await session.send({ prompt: "suspend me" });
    await asked;
    await first.forceStop();

    const resumed = await clientOf(runtime).resumeSession(session.sessionId, {
      continuePendingWork: true,
      tools: [guarded("resumed")],
      onPermissionRequest: () => ({ kind: "no-result" }),
    });
    const [pending] = (await resumed.rpc.permissions.pendingRequests()).items;
    expect(pending?.request).toMatchObject({ kind: "custom-tool", toolName: "guarded_tool" });
    const done = nextEvent(resumed, "tool.execution_complete");
    expect(await resumed.rpc.permissions.handlePendingPermissionRequest({ requestId: pending!.requestId, result: { kind: "approve-once" } })).toMatchObject({ success: true });
    expect((await done).data).toMatchObject({ toolCallId: "call_guarded", success: true, result: expect.objectContaining({ content: "resumed omega" }) });
  });

  it("a client resuming without continuePendingWork has the held call interrupted; the next message is answered", async () => {
    world = await startWorld(["lifecycle-held-interrupted"]);
    const runtime = await tcpRuntime();
    const first = clientOf(runtime);
    const session = await first.createSession({ tools: [heldLookup(() => never())], onPermissionRequest: approveAll });
    const requested = nextEvent(session, "external_tool.requested");
    await session.send({ prompt: "orphaned lookup please" });
    const { requestId } = (await requested).data as { requestId: string };
    await first.forceStop();

    const resumed = await clientOf(runtime).resumeSession(session.sessionId, { onPermissionRequest: approveAll });
    const resumeEvent = (await resumed.getEvents()).find((event) => event.type === "session.resume");
    // Not asked to continue: the field is left out (false and absent mean the same), as 1.0.102 does.
    expect(resumeEvent?.data).toMatchObject({ sessionWasActive: false });
    expect(resumeEvent?.data).not.toHaveProperty("continuePendingWork");
    expect(await resumed.rpc.tools.handlePendingToolCall({ requestId, result: "late" })).toMatchObject({ success: false });
    expect((await resumed.sendAndWait({ prompt: "start over after the interruption" }))?.data.content).toBe("Fresh start after the interruption.");
    const request = world.model.requests.at(-1)?.body as { messages: Array<{ role: string; content?: unknown }> };
    expect(request.messages.find((message) => message.role === "tool")?.content).toBe("The execution of this tool, or a previous tool was interrupted.");
  });

  it("a resume while another client is attached reports sessionWasActive and leaves the waiting call to be answered", async () => {
    world = await startWorld(["lifecycle-held-tool"]);
    const runtime = await tcpRuntime();
    const session = await clientOf(runtime).createSession({ tools: [heldLookup(() => never())], onPermissionRequest: approveAll });
    const requested = nextEvent(session, "external_tool.requested");
    await session.send({ prompt: "held lookup please" });
    const { requestId } = (await requested).data as { requestId: string };

    const second = await clientOf(runtime).resumeSession(session.sessionId, { continuePendingWork: false, onPermissionRequest: approveAll });
    const resumeEvent = (await second.getEvents()).find((event) => event.type === "session.resume");
    // An explicit false is echoed (the official 1.0.x SDK reads it back); absent only when not given.
    expect(resumeEvent?.data).toMatchObject({ sessionWasActive: true, continuePendingWork: false });
    expect(await second.rpc.tools.handlePendingToolCall({ requestId, result: "ANSWERED_AFTER_RESUME" })).toMatchObject({ success: true });
  });

  it("nobody comes back within the grace period: the session closes and the held call ends interrupted", async () => {
    world = await startWorld(["lifecycle-held-tool"]);
    const runtime = await tcpRuntime({ TANDEM_PENDING_WORK_GRACE_MS: "300" });
    const first = clientOf(runtime);
    const session = await first.createSession({ tools: [heldLookup(() => never())], onPermissionRequest: approveAll });
    const requested = nextEvent(session, "external_tool.requested");
    await session.send({ prompt: "held lookup please" });
    await requested;
    await first.forceStop();

    await waitFor(() => new RegExp(`\\[sessionId=${session.sessionId}[^\\]]*\\] no client resumed it in time`).test(runtime.stderr), "the hold to end");
    expect(runtime.stderr).toMatch(new RegExp(`\\[sessionId=${session.sessionId} interactionId=\\S+\\] its clients left while its turn waits on a client; held for a resuming client for 300 ms`));
    await waitFor(() => persisted(session.sessionId).some((event) => event.type === "session.shutdown"), "the held session to close");
    const completed = persisted(session.sessionId).find((event) => event.type === "tool.execution_complete");
    expect(completed?.data).toMatchObject({ toolCallId: "call_held", success: false });
    // Held until the grace period ended (then interrupted), not failed at the disconnect.
    expect(JSON.stringify(completed?.data)).toContain("interrupted");
    expect(JSON.stringify(completed?.data)).not.toContain("disconnected");
  });
});
