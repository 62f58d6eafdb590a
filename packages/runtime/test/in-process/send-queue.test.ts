/**
 * The send queue and steering, in process: sends made while a turn runs wait for it (enqueue) and
 * run in order with one `session.idle` at the end; an immediate send joins the running turn at its
 * next model call; both at once keep each in its place. The turn is held busy by an application
 * tool the test answers, so nothing depends on timing.
 */
import { SessionCreate, SessionSend, SessionToolsHandlePendingToolCall } from "@tandem/protocol";
import { afterEach, expect, it } from "vitest";
import { startInProcess, type InProcessClient, type InProcessWorld } from "../helpers/in-process.js";

let world: InProcessWorld | undefined;

afterEach(async () => {
  await world?.dispose();
  world = undefined;
});

const holdTool = { name: "hold", description: "Holds the turn until the test answers", parameters: { type: "object", properties: {} } };

/** Step 0 calls `hold`; later steps answer by their number of model turns, so the queue's order shows in the replies. */
const queueScript = `
name: queue
steps:
  - reply:
      content: "Holding."
      toolCalls:
        - { id: call_hold_1, name: hold, arguments: {} }
  - reply:
      content: "reply 1"
  - reply:
      content: "reply 2"
  - reply:
      content: "reply 3"
`;

/** A session whose first turn is held at its `hold` call; returns what answers the call. */
async function busySession(client: InProcessClient): Promise<{ sessionId: string; release: () => Promise<unknown> }> {
  client.approveAllPermissions();
  const { sessionId } = await client.request(SessionCreate, { workingDirectory: world?.home, tools: [holdTool] });
  await client.request(SessionSend, { sessionId, prompt: "first" });
  const held = await client.waitForEvent("external_tool.requested", { sessionId });
  return { sessionId, release: () => client.request(SessionToolsHandlePendingToolCall, { sessionId, requestId: held.data.requestId, result: "released" }) };
}

/** The user messages' text of one recorded model call (chat completions). */
function userTextOf(world: InProcessWorld, callIndex: number): string {
  const body = world.model.requests[callIndex]?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined;
  return (body?.messages ?? [])
    .filter((message) => message.role === "user")
    .map((message) => JSON.stringify(message.content))
    .join("\n");
}

const userPrompts = (client: InProcessClient, sessionId: string) => client.eventsOf("user.message", sessionId).map((event) => event.data.content);

it("runs sends made while busy after the running turn, in the order they came, with one session.idle at the end", async () => {
  world = await startInProcess({ scripts: [queueScript] });
  const { client } = world;
  const { sessionId, release } = await busySession(client);
  const answers = [await client.request(SessionSend, { sessionId, prompt: "second" }), await client.request(SessionSend, { sessionId, prompt: "third" })];
  expect(new Set(answers.map((answer) => answer.messageId)).size).toBe(2);
  expect(userPrompts(client, sessionId)).toEqual(["first"]);
  await release();
  await client.waitForEvent("assistant.message", { sessionId, where: (event) => event.data.content === "reply 3" });
  await client.waitForEvent("session.idle", { sessionId });

  expect(userPrompts(client, sessionId)).toEqual(["first", "second", "third"]);
  expect(client.eventTypes(sessionId, ["user.message", "assistant.message", "session.idle"])).toEqual([
    "user.message",
    "assistant.message",
    "assistant.message",
    "user.message",
    "assistant.message",
    "user.message",
    "assistant.message",
    "session.idle",
  ]);
  // The held turn's next model call saw none of the queued prompts.
  const resumedCall = userTextOf(world, 1);
  expect(resumedCall).not.toContain("second");
  expect(resumedCall).not.toContain("third");
});

it("steers: an immediate send joins the running turn at its next model call (its user.message opens that step), after the tool result", async () => {
  world = await startInProcess({
    scripts: [
      `
name: steering
steps:
  - reply:
      content: "Holding."
      toolCalls:
        - { id: call_hold_1, name: hold, arguments: {} }
  - expect: { lastRole: user, contains: "use metric units" }
    reply:
      content: "Done, in metric units."
`,
    ],
  });
  const { client } = world;
  const { sessionId, release } = await busySession(client);
  await client.request(SessionSend, { sessionId, prompt: "Oh, and use metric units", mode: "immediate" });
  await release();
  await client.waitForEvent("session.idle", { sessionId });

  expect(world.model.requests.map((request) => request.expectationError)).toEqual([undefined, undefined]);
  expect(userPrompts(client, sessionId)).toEqual(["first", "Oh, and use metric units"]);
  expect(client.eventTypes(sessionId, ["user.message", "tool.execution_complete", "assistant.turn_start", "assistant.message", "session.idle"])).toEqual([
    "user.message",
    "assistant.turn_start",
    "assistant.message",
    "tool.execution_complete",
    "assistant.turn_start",
    "user.message",
    "assistant.message",
    "session.idle",
  ]);
});

it("keeps both in place: the immediate send joins the running turn, the enqueued one waits for the turn to end", async () => {
  world = await startInProcess({ scripts: [queueScript] });
  const { client } = world;
  const { sessionId, release } = await busySession(client);
  await client.request(SessionSend, { sessionId, prompt: "later" });
  await client.request(SessionSend, { sessionId, prompt: "now", mode: "immediate" });
  await release();
  await client.waitForEvent("assistant.message", { sessionId, where: (event) => event.data.content === "reply 2" });
  await client.waitForEvent("session.idle", { sessionId });

  expect(userPrompts(client, sessionId)).toEqual(["first", "now", "later"]);
  const steppedCall = userTextOf(world, 1);
  expect(steppedCall).toContain("now");
  expect(steppedCall).not.toContain("later");
  expect(client.eventsOf("session.idle", sessionId)).toHaveLength(1);
});
