/**
 * The agent loop and the turn runner, driven in process: one model step, the tools it asked for,
 * the next step; paired turn events; a model error ending the turn; a call to an unknown tool
 * answered for the model to act on.
 */
import { SessionCreate, SessionSend, SessionToolsHandlePendingToolCall } from "@tandem/protocol";
import { afterEach, expect, it } from "vitest";
import { startInProcess, type InProcessWorld } from "../helpers/in-process.js";

let world: InProcessWorld | undefined;

afterEach(async () => {
  await world?.dispose();
  world = undefined;
});

const lookupTool = { name: "lookup", description: "Looks a key up", parameters: { type: "object", properties: { key: { type: "string" } } } };

const toolRound = `
name: tool-round
steps:
  - reply:
      content: "Looking it up."
      toolCalls:
        - { id: call_lookup_1, name: lookup, arguments: { key: "k" } }
  - expect: { lastRole: tool, contains: "value-of-k" }
    reply:
      content: "It is value-of-k."
`;

it("runs one tool round: the step's tool call goes to the application, its result to the next step, which ends the turn", async () => {
  world = await startInProcess({ scripts: [toolRound] });
  const { client } = world;
  client.approveAllPermissions();
  const { sessionId } = await client.request(SessionCreate, { workingDirectory: world.home, tools: [lookupTool] });
  const mark = client.mark();
  await client.request(SessionSend, { sessionId, prompt: "look up k" });
  const requested = await client.waitForEvent("external_tool.requested", { sessionId, from: mark });
  expect(requested.data).toMatchObject({ toolName: "lookup", toolCallId: "call_lookup_1", arguments: { key: "k" } });
  await client.request(SessionToolsHandlePendingToolCall, { sessionId, requestId: requested.data.requestId, result: "value-of-k" });
  await client.waitForEvent("session.idle", { sessionId, from: mark });

  const loopTypes = ["user.message", "assistant.turn_start", "assistant.message", "tool.execution_start", "tool.execution_complete", "assistant.turn_end", "session.idle"] as const;
  expect(client.eventTypes(sessionId, loopTypes)).toEqual([
    "user.message",
    "assistant.turn_start",
    "assistant.message",
    "tool.execution_start",
    "tool.execution_complete",
    "assistant.turn_end",
    "assistant.turn_start",
    "assistant.message",
    "assistant.turn_end",
    "session.idle",
  ]);
  const completed = client.eventsOf("tool.execution_complete", sessionId)[0];
  expect(completed?.data).toMatchObject({ toolCallId: "call_lookup_1", success: true });
  expect(client.eventsOf("assistant.message", sessionId).map((event) => event.data.content)).toEqual(["Looking it up.", "It is value-of-k."]);
  const modelCalls = world.model.requests.filter((request) => request.stepIndex !== undefined);
  expect(modelCalls.map((request) => request.stepIndex)).toEqual([0, 1]);
  expect(modelCalls.map((request) => request.expectationError)).toEqual([undefined, undefined]);
});

it("pairs every assistant.turn_start with an assistant.turn_end carrying the same turn id", async () => {
  world = await startInProcess({ scripts: [toolRound] });
  const { client } = world;
  client.approveAllPermissions();
  const { sessionId } = await client.request(SessionCreate, { workingDirectory: world.home, tools: [lookupTool] });
  await client.request(SessionSend, { sessionId, prompt: "look up k" });
  const requested = await client.waitForEvent("external_tool.requested", { sessionId });
  await client.request(SessionToolsHandlePendingToolCall, { sessionId, requestId: requested.data.requestId, result: "value-of-k" });
  await client.waitForEvent("session.idle", { sessionId });
  const starts = client.eventsOf("assistant.turn_start", sessionId).map((event) => event.data.turnId);
  const ends = client.eventsOf("assistant.turn_end", sessionId).map((event) => event.data.turnId);
  expect(starts).toHaveLength(2);
  expect(ends).toEqual(starts);
});

it("ends the turn with one session.error when the model refuses the request, and the session takes the next message", async () => {
  world = await startInProcess({
    scripts: [
      `
name: refused-then-fine
steps:
  - error: { status: 400, message: "the request is malformed", times: 1 }
    reply:
      content: "Fine now."
`,
    ],
  });
  const { client } = world;
  const { sessionId } = await client.request(SessionCreate, { workingDirectory: world.home });
  const mark = client.mark();
  await client.request(SessionSend, { sessionId, prompt: "first" });
  await client.waitForEvent("session.idle", { sessionId, from: mark });
  const errors = client.eventsOf("session.error", sessionId);
  expect(errors).toHaveLength(1);
  expect(errors[0]?.data.message).toContain("the request is malformed");
  expect(client.eventsOf("assistant.message", sessionId)).toHaveLength(0);

  const next = client.mark();
  await client.request(SessionSend, { sessionId, prompt: "second" });
  const reply = await client.waitForEvent("assistant.message", { sessionId, from: next });
  expect(reply.data.content).toBe("Fine now.");
  await client.waitForEvent("session.idle", { sessionId, from: next });
});

it("answers a call to a tool the session does not have with a failed result the next step reads", async () => {
  world = await startInProcess({
    scripts: [
      `
name: unknown-tool
steps:
  - reply:
      toolCalls:
        - { id: call_missing_1, name: no_such_tool, arguments: {} }
  - expect: { lastRole: tool, contains: "no_such_tool" }
    reply:
      content: "That tool does not exist; answering without it."
`,
    ],
  });
  const { client } = world;
  client.approveAllPermissions();
  const { sessionId } = await client.request(SessionCreate, { workingDirectory: world.home });
  await client.request(SessionSend, { sessionId, prompt: "use a tool that is not there" });
  await client.waitForEvent("session.idle", { sessionId });
  const completed = client.eventsOf("tool.execution_complete", sessionId);
  expect(completed.map((event) => [event.data.toolCallId, event.data.success])).toEqual([["call_missing_1", false]]);
  expect(world.model.requests[1]?.expectationError).toBeUndefined();
  expect(client.eventsOf("assistant.message", sessionId).at(-1)?.data.content).toBe("That tool does not exist; answering without it.");
});

it("retries a model call that failed with a server error, and the turn goes on as if it had not", async () => {
  world = await startInProcess({
    scripts: [
      `
name: flaky
steps:
  - error: { status: 500, message: "upstream hiccup", times: 2 }
    reply:
      content: "Third time lucky."
`,
    ],
  });
  const { client } = world;
  const { sessionId } = await client.request(SessionCreate, { workingDirectory: world.home });
  await client.request(SessionSend, { sessionId, prompt: "hello" });
  const reply = await client.waitForEvent("assistant.message", { sessionId });
  await client.waitForEvent("session.idle", { sessionId });
  expect(reply.data.content).toBe("Third time lucky.");
  expect(world.model.requests.map((request) => request.outcome)).toEqual(["error", "error", "reply"]);
  expect(client.eventsOf("session.error", sessionId)).toHaveLength(0);
  expect(client.eventsOf("assistant.turn_start", sessionId)).toHaveLength(1);
});

it("stops a turn at the model-call limit with one session.error, and the next message starts a fresh count", async () => {
  world = await startInProcess({
    argv: ["--max-model-calls-per-turn", "2"],
    scripts: [
      `
name: keeps-calling
steps:
  - reply:
      toolCalls:
        - { id: call_round_1, name: no_such_tool, arguments: {} }
  - reply:
      toolCalls:
        - { id: call_round_2, name: no_such_tool, arguments: {} }
  - reply:
      content: "Answered within the limit."
`,
    ],
  });
  const { client } = world;
  const { sessionId } = await client.request(SessionCreate, { workingDirectory: world.home });
  await client.request(SessionSend, { sessionId, prompt: "loop" });
  const stopped = await client.waitForEvent("session.error", { sessionId });
  await client.waitForEvent("session.idle", { sessionId });
  expect(stopped.data.errorType).toBe("model_call_limit");
  expect(world.model.requests).toHaveLength(2);

  const next = client.mark();
  await client.request(SessionSend, { sessionId, prompt: "and now?" });
  const reply = await client.waitForEvent("assistant.message", { sessionId, from: next });
  expect(reply.data.content).toBe("Answered within the limit.");
});
