/**
 * Permission requests of several tool calls in one model step, in process: they are asked one at a
 * time in the order of the calls, each only once the one before was answered, and a refusal of one
 * call does not keep the next from being asked.
 */
import { SessionCreate, SessionPermissionsHandlePendingPermissionRequest, SessionSend, SessionToolsHandlePendingToolCall, type SessionEventOf } from "@tandem/protocol";
import { afterEach, expect, it } from "vitest";
import { startInProcess, type InProcessWorld } from "../helpers/in-process.js";

let world: InProcessWorld | undefined;

afterEach(async () => {
  await world?.dispose();
  world = undefined;
});

const tool = (name: string) => ({ name, description: `The ${name} tool`, parameters: { type: "object", properties: {} } });

const threeCalls = `
name: three-calls
steps:
  - reply:
      content: "Three things at once."
      toolCalls:
        - { id: call_a, name: tool_a, arguments: {} }
        - { id: call_b, name: tool_b, arguments: {} }
        - { id: call_c, name: tool_c, arguments: {} }
  - reply:
      content: "All three answered."
`;

const callOf = (event: SessionEventOf<"permission.requested">) => (event.data.permissionRequest as { toolCallId?: string }).toolCallId;

it("asks for the calls' permissions one at a time, in call order, each after the previous answer", async () => {
  world = await startInProcess({ scripts: [threeCalls] });
  const { client } = world;
  const { sessionId } = await client.request(SessionCreate, { workingDirectory: world.home, tools: [tool("tool_a"), tool("tool_b"), tool("tool_c")] });
  // Answer each request as it comes; a later request must not be out before the earlier one is settled.
  const decisions: Record<string, string> = { call_a: "approve-once", call_b: "reject", call_c: "approve-once" };
  const answered: string[] = [];
  await client.request(SessionSend, { sessionId, prompt: "do three things" });
  for (let index = 0; index < 3; index++) {
    const asked = await client.waitForEvent("permission.requested", { sessionId, where: (event) => !answered.includes(event.data.requestId) });
    const call = callOf(asked) ?? "";
    answered.push(asked.data.requestId);
    await client.request(SessionPermissionsHandlePendingPermissionRequest, { sessionId, requestId: asked.data.requestId, result: { kind: decisions[call] } });
  }
  // Application tools of approved calls are then requested; answer them so the turn finishes.
  for (const call of ["call_a", "call_c"]) {
    const requested = await client.waitForEvent("external_tool.requested", { sessionId, where: (event) => event.data.toolCallId === call });
    await client.request(SessionToolsHandlePendingToolCall, { sessionId, requestId: requested.data.requestId, result: `${call} done` });
  }
  await client.waitForEvent("session.idle", { sessionId });

  const requestCalls = new Map(client.eventsOf("permission.requested", sessionId).map((event) => [event.data.requestId, callOf(event)]));
  const sequence = client.events.flatMap(({ sessionId: eventSession, event }) => {
    if (eventSession !== sessionId) return [];
    if (event.type === "permission.requested") return [`asked ${requestCalls.get(event.data.requestId)}`];
    if (event.type === "permission.completed") return [`settled ${requestCalls.get(event.data.requestId)}`];
    return [];
  });
  expect(sequence).toEqual(["asked call_a", "settled call_a", "asked call_b", "settled call_b", "asked call_c", "settled call_c"]);
  const results = client.eventsOf("tool.execution_complete", sessionId).map((event) => [event.data.toolCallId, event.data.success]);
  expect(results.sort()).toEqual([
    ["call_a", true],
    ["call_b", false],
    ["call_c", true],
  ]);
});
