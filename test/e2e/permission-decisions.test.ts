/**
 * Permission answers in both SDK generations' words, and answers the runtime cannot read: an
 * invalid decision resolves the request as denied (with its completion event) and the turn goes on
 * instead of waiting forever.
 */
import { afterEach, expect, it } from "vitest";
import { startWorld, type TestWorld } from "../helpers/harness.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";

let world: TestWorld | undefined;
let client: RawClient | undefined;

afterEach(async () => {
  await client?.close(true);
  await world?.dispose();
});

const weatherTool = { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } };
type EventMessage = { event: { type: string; data: Record<string, unknown> } };
const isEvent = (type: string) => (message: WireMessage) => message.method === "session.event" && (message.params as EventMessage).event.type === type;
const dataOf = (message: WireMessage) => (message.params as EventMessage).event.data;

async function askOnce(decision: unknown): Promise<{ answer: WireMessage; client: RawClient }> {
  world = await startWorld(["permission-decisions"]);
  client = new RawClient(world.env);
  const { sessionId } = (await client.request("session.create", { tools: [weatherTool], requestPermission: true })).result as { sessionId: string };
  await client.request("session.send", { sessionId, prompt: "decide the weather" });
  const requestId = dataOf(await client.waitFor(isEvent("permission.requested"))).requestId;
  const answer = await client.request("session.permissions.handlePendingPermissionRequest", { sessionId, requestId, result: decision });
  return { answer, client };
}

it.each([
  [{ kind: "maybe" }, '"maybe" is not a permission decision'],
  [{ nothing: true }, "the answer has no decision kind"],
  ["approved", "the answer has no decision kind"],
  [{ kind: "denied-by-content-exclusion-policy" }, '"denied-by-content-exclusion-policy" is not a permission decision'],
])("an invalid decision %j is refused with -32602, resolves the request as denied and the turn finishes", async (decision, reason) => {
  const { answer, client } = await askOnce(decision);
  expect(answer.error?.code).toBe(-32602);
  expect(answer.error?.message).toContain(reason);
  expect(answer.error?.message).toContain("was resolved as denied");
  const completed = await client.waitFor(isEvent("permission.completed"));
  expect(dataOf(completed).result).toEqual({ kind: "denied-no-approval-rule-and-could-not-request-from-user" });
  const toolDone = dataOf(await client.waitFor(isEvent("tool.execution_complete")));
  expect(toolDone.success).toBe(false);
  await client.waitFor(isEvent("session.idle"));
  expect(client.received.some(isEvent("external_tool.requested"))).toBe(false);
  expect(client.stderr).toContain("invalid decision");
});

it.each([
  [{ kind: "approve-once" }, true],
  [{ kind: "approve-for-session", approval: { kind: "custom-tool", toolName: "get_weather" } }, true],
  [{ kind: "approved" }, true],
  [{ kind: "reject", feedback: "not now" }, false],
  [{ kind: "user-not-available" }, false],
])("the decision %j is understood (runs the tool: %s)", async (decision, runs) => {
  const { answer, client } = await askOnce(decision);
  expect(answer.result).toEqual({ success: true });
  await client.waitFor(isEvent("permission.completed"));
  if (runs) {
    const requested = dataOf(await client.waitFor(isEvent("external_tool.requested")));
    expect(requested.toolName).toBe("get_weather");
    return;
  }
  await client.waitFor(isEvent("session.idle"));
  expect(client.received.some(isEvent("external_tool.requested"))).toBe(false);
});

it("no-result leaves the request pending for another answer: nothing completes until a decision comes", async () => {
  world = await startWorld(["permission-decisions"]);
  client = new RawClient(world.env);
  const { sessionId } = (await client.request("session.create", { tools: [weatherTool], requestPermission: true })).result as { sessionId: string };
  await client.request("session.send", { sessionId, prompt: "decide the weather" });
  const requestId = dataOf(await client.waitFor(isEvent("permission.requested"))).requestId;
  const abstained = await client.request("session.permissions.handlePendingPermissionRequest", { sessionId, requestId, result: { kind: "no-result" } });
  expect(abstained.result).toEqual({ success: true });
  expect(client.received.some(isEvent("permission.completed"))).toBe(false);
  const decided = await client.request("session.permissions.handlePendingPermissionRequest", { sessionId, requestId, result: { kind: "approve-once" } });
  expect(decided.result).toEqual({ success: true });
  expect(dataOf(await client.waitFor(isEvent("external_tool.requested"))).toolName).toBe("get_weather");
});
