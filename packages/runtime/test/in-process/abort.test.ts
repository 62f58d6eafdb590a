/**
 * `session.abort` in process, at each place a turn can wait: a model call that is streaming, an
 * application tool the client has not answered, a permission nobody has answered. Each time the
 * turn ends with `abort` and one `session.idle`, what waited is settled, and the session takes the
 * next message.
 */
import { SessionAbort, SessionCreate, SessionSend, SessionToolsHandlePendingToolCall } from "@tandem/protocol";
import { afterEach, expect, it } from "vitest";
import { startInProcess, type InProcessClient, type InProcessWorld } from "../helpers/in-process.js";

let world: InProcessWorld | undefined;

afterEach(async () => {
  await world?.dispose();
  world = undefined;
});

const lookupTool = { name: "lookup", description: "Looks a key up", parameters: { type: "object", properties: { key: { type: "string" } } } };

/** Sends `prompt` after an abort and expects the step's reply: the session is usable again. */
async function expectNextMessageAnswered(client: InProcessClient, sessionId: string, reply: string): Promise<void> {
  const mark = client.mark();
  await client.request(SessionSend, { sessionId, prompt: "are you still there?" });
  const answered = await client.waitForEvent("assistant.message", { sessionId, from: mark });
  expect(answered.data.content).toBe(reply);
  await client.waitForEvent("session.idle", { sessionId, from: mark });
}

it("aborts a model call while it streams: no full message, abort then one idle, and the next message is answered", async () => {
  world = await startInProcess({
    scripts: [
      `
name: slow-stream
byContent:
  - contains: "are you still there?"
    reply:
      content: "Yes, still here."
steps:
  - reply:
      content: "one two three four five six seven eight nine ten eleven twelve"
      chunkSize: 4
    chunkDelayMs: 400
`,
    ],
  });
  const { client } = world;
  const { sessionId } = await client.request(SessionCreate, { workingDirectory: world.home, streaming: true });
  await client.request(SessionSend, { sessionId, prompt: "count slowly" });
  await client.waitForEvent("assistant.message_delta", { sessionId });
  const mark = client.mark();
  await client.request(SessionAbort, { sessionId });
  await client.waitForEvent("abort", { sessionId, from: mark });
  await client.waitForEvent("session.idle", { sessionId, from: mark });

  expect(client.eventsOf("assistant.message", sessionId).filter((event) => event.data.content.includes("twelve"))).toHaveLength(0);
  expect(client.eventsOf("session.idle", sessionId)).toHaveLength(1);
  await expectNextMessageAnswered(client, sessionId, "Yes, still here.");
});

it("aborts while an application tool waits for its answer: the call completes as failed and a late answer changes nothing", async () => {
  world = await startInProcess({
    scripts: [
      `
name: tool-waits
steps:
  - reply:
      toolCalls:
        - { id: call_lookup_1, name: lookup, arguments: { key: "k" } }
  - reply:
      content: "Picked up after the interruption."
`,
    ],
  });
  const { client } = world;
  client.approveAllPermissions();
  const { sessionId } = await client.request(SessionCreate, { workingDirectory: world.home, tools: [lookupTool] });
  await client.request(SessionSend, { sessionId, prompt: "look up k" });
  const requested = await client.waitForEvent("external_tool.requested", { sessionId });
  const mark = client.mark();
  await client.request(SessionAbort, { sessionId });
  const completed = await client.waitForEvent("tool.execution_complete", { sessionId, from: mark });
  expect(completed.data).toMatchObject({ toolCallId: "call_lookup_1", success: false });
  await client.waitForEvent("abort", { sessionId, from: mark });
  await client.waitForEvent("session.idle", { sessionId, from: mark });

  const late = await client.request(SessionToolsHandlePendingToolCall, { sessionId, requestId: requested.data.requestId, result: "too late" }).catch((error: unknown) => error);
  expect(late).toMatchObject({ success: false, error: expect.stringContaining("No pending tool call") });
  await expectNextMessageAnswered(client, sessionId, "Picked up after the interruption.");
  expect(client.eventsOf("tool.execution_complete", sessionId)).toHaveLength(1);
  expect(JSON.stringify(world.model.requests.at(-1)?.body)).not.toContain("too late");
  // The aborted call still has a result in the history the model sees, so the conversation stays well-formed.
  const resumed = world.model.requests.at(-1)?.body as { messages: Array<{ role: string; tool_call_id?: string }> };
  expect(resumed.messages.some((message) => message.role === "tool" && message.tool_call_id === "call_lookup_1")).toBe(true);
});

it("aborts while a permission waits for its answer: the request completes, the tool never runs, and the next message is answered", async () => {
  world = await startInProcess({
    scripts: [
      `
name: permission-waits
steps:
  - reply:
      toolCalls:
        - { id: call_lookup_1, name: lookup, arguments: { key: "k" } }
  - reply:
      content: "Picked up after the interruption."
`,
    ],
  });
  const { client } = world;
  const { sessionId } = await client.request(SessionCreate, { workingDirectory: world.home, tools: [lookupTool] });
  await client.request(SessionSend, { sessionId, prompt: "look up k" });
  const asked = await client.waitForEvent("permission.requested", { sessionId });
  const mark = client.mark();
  await client.request(SessionAbort, { sessionId });
  const settled = await client.waitForEvent("permission.completed", { sessionId, from: mark });
  expect(settled.data.requestId).toBe(asked.data.requestId);
  expect(settled.data.result.kind).not.toMatch(/^approve/);
  await client.waitForEvent("session.idle", { sessionId, from: mark });

  expect(client.eventsOf("external_tool.requested", sessionId)).toHaveLength(0);
  expect(client.eventsOf("tool.execution_complete", sessionId).map((event) => event.data.success)).toEqual([false]);
  await expectNextMessageAnswered(client, sessionId, "Picked up after the interruption.");
});
