/**
 * `tool.user_requested`: the user, not the model, runs a tool (1.0.x `session.tools.execute`). The
 * session announces it, then runs it through the usual pipeline (permission, start, complete),
 * without a model call.
 */
import { approveAll, type CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { approveAll as v1ApproveAll, type CopilotSession as V1Session } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, startWorld, type TestWorld } from "../helpers/harness.js";
import { officialClient, officialV1Client, rawConnection } from "../helpers/official-client.js";

let world: TestWorld | undefined;
const clients: CopilotClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop().catch(() => undefined);
  await world?.dispose();
  world = undefined;
});

describe.each([
  { sdk: "official SDK 1.0.x (session.rpc.tools.execute)", make: officialV1Client, approve: v1ApproveAll as unknown as typeof approveAll },
  { sdk: "official SDK 0.2.0 (raw request)", make: officialClient, approve: approveAll },
])("a tool the user runs ($sdk)", ({ sdk, make, approve }) => {
  it("emits tool.user_requested, asks permission, runs it, and calls no model", async () => {
    world = await startWorld(["plain-reply"]);
    const client = make(world.env);
    clients.push(client);
    const session = await client.createSession({ onPermissionRequest: approve });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const params = { name: "bash", arguments: { command: "echo user-ran-this", description: "Echo" } };
    const result = (sdk.includes("1.0.x")
      ? await (session as unknown as V1Session).rpc.tools.execute(params)
      : await rawConnection(client).sendRequest("session.tools.execute", { sessionId: session.sessionId, ...params })) as { textResultForLlm: string; resultType: string };
    expect(result.resultType).toBe("success");
    expect(result.textResultForLlm).toContain("user-ran-this");
    const requested = events.filter((event) => (event.type as string) === "tool.user_requested");
    expect(requested).toHaveLength(1);
    const toolCallId = (requested[0]!.data as { toolCallId: string }).toolCallId;
    expect(requested[0]!.data).toEqual({ toolCallId, toolName: "bash", arguments: params.arguments });
    const types = events.map((event) => event.type as string);
    expect(types.indexOf("tool.user_requested")).toBeLessThan(types.indexOf("tool.execution_start"));
    expect(types).toContain("permission.requested");
    expect(eventsOf(events, "tool.execution_complete").map((event) => event.data.toolCallId)).toEqual([toolCallId]);
    expect(world.model.requests).toHaveLength(0);
  });

  it("an unknown tool is a failure result, not a crash", async () => {
    world = await startWorld(["plain-reply"]);
    const client = make(world.env);
    clients.push(client);
    const session = await client.createSession({ onPermissionRequest: approve });
    const params = { name: "no_such_tool", arguments: {} };
    const result = (sdk.includes("1.0.x")
      ? await (session as unknown as V1Session).rpc.tools.execute(params)
      : await rawConnection(client).sendRequest("session.tools.execute", { sessionId: session.sessionId, ...params })) as { resultType: string; error?: string };
    expect(result.resultType).toBe("failure");
    expect(result.error).toContain("no_such_tool");
  });
});
