/**
 * Several clients on one session: two SDK clients share one `tandem --port 0` runtime. Client A
 * creates a session with `tool_a`, client B resumes it with `tool_b`: the session offers both and
 * each call is answered by the client that registered the tool (v3 broadcast, v2 `tool.call`).
 * When B leaves, `tool_b` leaves with it, A keeps working, and a `tool_b` call in flight fails
 * cleanly. A user-input handler registered by A survives B's resume without one.
 */
import { approveAll, CopilotClient as OfficialClient, type SessionEvent } from "@github/copilot-sdk";
import { CopilotClient as TandemClient } from "@tandem/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { startTcpRuntime, type TcpRuntime } from "../helpers/tcp.js";

type Maker = (cliUrl: string) => OfficialClient;
const official: Maker = (cliUrl) => new OfficialClient({ cliUrl, logLevel: "error" });
const ours: Maker = (cliUrl) => new TandemClient({ cliUrl, logLevel: "error" }) as unknown as OfficialClient;

const pairs = [
  { clients: "A official SDK 0.2.0, B @tandem/sdk", makeA: official, makeB: ours },
  { clients: "A @tandem/sdk, B official SDK 0.2.0", makeA: ours, makeB: official },
];
const cases = [3, 2].flatMap((protocol) => pairs.map((pair) => ({ ...pair, protocol })));

let world: TestWorld | undefined;
let runtime: TcpRuntime | undefined;
const clients: OfficialClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.forceStop().catch(() => undefined);
  // The runtime writes its session files while it shuts down: wait for it before removing them.
  await runtime?.stop("SIGTERM");
  runtime = undefined;
  await world?.dispose();
  world = undefined;
});

/** Starts the model with `script` and `tandem --port 0` speaking SDK protocol `protocol`, and connects clients A and B to it. */
async function twoClients(script: string, protocol: number, makeA: Maker, makeB: Maker) {
  world = await startWorld([script]);
  runtime = await startTcpRuntime(world.env, { args: ["--sdk-protocol-version", String(protocol)] });
  const a = makeA(runtime.cliUrl);
  const b = makeB(runtime.cliUrl);
  clients.push(a, b);
  return { model: world.model, a, b };
}

/**
 * Two clients on one session: A creates it with `tool_a` (answering "from A"), B resumes it with
 * `tool_b` (answering with `bAnswer`). Returns the session as A sees it and the calls each tool got.
 */
async function sharedSession(script: string, protocol: number, makeA: Maker, makeB: Maker, bAnswer: () => string | Promise<string>) {
  const { model, a, b } = await twoClients(script, protocol, makeA, makeB);
  const aCalls: unknown[] = [];
  const bCalls: unknown[] = [];
  const sessionA = await a.createSession({ onPermissionRequest: approveAll, tools: [recordingTool("tool_a", aCalls, () => "from A")] });
  const events: SessionEvent[] = [];
  sessionA.on((event) => events.push(event));
  await b.resumeSession(sessionA.sessionId, { onPermissionRequest: approveAll, tools: [recordingTool("tool_b", bCalls, bAnswer)] });
  return { model, b, sessionA, events, aCalls, bCalls };
}

/** A custom tool whose handler records its calls and answers with `answer`. */
function recordingTool(name: string, calls: unknown[], answer: () => string | Promise<string>) {
  return {
    name,
    description: `The tool ${name}`,
    parameters: { type: "object", properties: { what: { type: "string" } } },
    handler: (args: unknown) => {
      calls.push(args);
      return answer();
    },
  };
}

type ChatRequest = { tools?: Array<{ function: { name: string } }>; messages: Array<{ role: string; content: string; tool_call_id?: string }> };

function offeredTools(request: { body: unknown } | undefined): string[] {
  return ((request?.body as ChatRequest | undefined)?.tools ?? []).map((tool) => tool.function.name);
}

function toolResults(request: { body: unknown } | undefined): Record<string, string> {
  const messages = (request?.body as ChatRequest | undefined)?.messages ?? [];
  return Object.fromEntries(messages.filter((message) => message.role === "tool").map((message) => [message.tool_call_id, message.content]));
}

describe.each(cases)("protocol v$protocol, $clients", ({ protocol, makeA, makeB }) => {
  it("offers the union of both clients' tools, routes each call to its client, and drops B's tools when B leaves", async () => {
    const { model, b, sessionA, events, aCalls, bCalls } = await sharedSession("multiclient-tools", protocol, makeA, makeB, () => "from B");

    const reply = await sessionA.sendAndWait({ prompt: "use both tools" });
    expect(reply?.data.content).toBe("Got both answers.");
    expect(offeredTools(model.requests[0])).toEqual(expect.arrayContaining(["tool_a", "tool_b"]));
    expect(aCalls).toEqual([{ what: "a" }]);
    expect(bCalls).toEqual([{ what: "b" }]);
    expect(toolResults(model.requests[1])).toMatchObject({ call_a: "from A", call_b: "from B" });
    const completions = eventsOf(events, "tool.execution_complete");
    expect(completions.map((event) => [event.data.toolCallId, event.data.success])).toEqual(expect.arrayContaining([["call_a", true], ["call_b", true]]));

    // B leaves the usual way (stop → session.destroy): A's session lives on without tool_b.
    const updatesBefore = eventsOf(events, "session.tools_updated").length;
    await b.stop();
    clients.splice(clients.indexOf(b), 1);
    await waitFor(() => eventsOf(events, "session.tools_updated").length > updatesBefore, "session.tools_updated after B left");
    const second = await sessionA.sendAndWait({ prompt: "and now?" });
    expect(second?.data.content).toBe("Only A is left.");
    expect(offeredTools(model.requests[2])).toContain("tool_a");
    expect(offeredTools(model.requests[2])).not.toContain("tool_b");
    expect(aCalls).toEqual([{ what: "a" }, { what: "a again" }]);
    expect(bCalls).toHaveLength(1);
  });

  it("fails a tool_b call in flight when B disconnects, and the turn completes", async () => {
    // B's handler never answers: B goes away while the call is pending.
    const { model, b, sessionA, events, bCalls } = await sharedSession("multiclient-inflight", protocol, makeA, makeB, () => new Promise<string>(() => undefined));

    const idle = new Promise<void>((resolve) => sessionA.on("session.idle", () => resolve()));
    await sessionA.send({ prompt: "b goes away" });
    await waitFor(() => bCalls.length === 1, "the tool_b call to reach B");
    await b.forceStop();
    clients.splice(clients.indexOf(b), 1);
    await idle;

    const failed = eventsOf(events, "tool.execution_complete").find((event) => event.data.toolCallId === "call_b");
    expect(failed?.data.success).toBe(false);
    expect(eventsOf(events, "tool.execution_complete").find((event) => event.data.toolCallId === "call_a")?.data.success).toBe(true);
    expect(eventsOf(events, "assistant.message").at(-1)?.data.content).toBe("B went away mid-call.");
    const results = toolResults(model.requests[1]);
    expect(results.call_a).toBe("from A");
    expect(results.call_b).toMatch(/disconnected/);
    expect(offeredTools(model.requests[1])).not.toContain("tool_b");
  });
});

describe("per-client handlers", () => {
  it("keeps asking the user through A after B resumes without a user-input handler", async () => {
    const { model, a, b } = await twoClients("multiclient-ask", 3, official, ours);
    const questions: string[] = [];
    const sessionA = await a.createSession({
      onPermissionRequest: approveAll,
      onUserInputRequest: (request) => {
        questions.push(request.question);
        return { answer: "blue", wasFreeform: false };
      },
    });
    await b.resumeSession(sessionA.sessionId, { onPermissionRequest: approveAll });
    const reply = await sessionA.sendAndWait({ prompt: "ask through A" });
    expect(reply?.data.content).toBe("Noted: blue.");
    expect(questions).toEqual(["Favourite colour?"]);
    expect(offeredTools(model.requests[0])).toContain("ask_user");
  });

  it("keeps calling A's hooks after B resumes without hooks", async () => {
    const { a, b } = await twoClients("multiclient-hooks", 3, ours, official);
    const hookCalls: string[] = [];
    const sessionA = await a.createSession({
      onPermissionRequest: approveAll,
      hooks: {
        onPreToolUse: (input) => {
          hookCalls.push(input.toolName);
          return undefined;
        },
      },
    });
    await b.resumeSession(sessionA.sessionId, { onPermissionRequest: approveAll });
    const reply = await sessionA.sendAndWait({ prompt: "hooks through A" });
    expect(reply?.data.content).toBe("Hooks ran.");
    expect(hookCalls).toEqual(["sql"]);
  });
});
