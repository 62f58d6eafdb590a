import { describe, expect, it } from "vitest";
import { generationOf, profileFor, subAgentRunOf } from "../../src/compat/profile.js";

describe("the compatibility profiles", () => {
  it("pick the generation from the opening request", () => {
    expect(generationOf(true)).toBe("1.0");
    expect(generationOf(false)).toBe("0.2");
  });

  it("leave every event of a 0.2.0 session as emitted", () => {
    const legacy = profileFor("0.2");
    expect(legacy.shapeEvent("abort", { reason: "user initiated" })).toBeUndefined();
    expect(legacy.shapeEvent("user.message", { content: "hi", parentToolCallId: "call_1" })).toBeUndefined();
  });

  it("give 1.0.x its enum spelling, drop fields its types lack, and move a sub-agent to agentId", () => {
    const current = profileFor("1.0");
    expect(current.shapeEvent("abort", { reason: "user initiated" })).toEqual({ data: { reason: "user_initiated" } });
    expect(current.shapeEvent("abort", { reason: "persistence failure" })).toEqual({ data: { reason: "persistence failure" } });
    expect(current.shapeEvent("assistant.usage", { model: "m", quotaSnapshots: {} })).toEqual({ data: { model: "m" } });
    expect(current.shapeEvent("session.shutdown", { shutdownType: "routine", totalPremiumRequests: 2 })).toEqual({ data: { shutdownType: "routine" } });
    // Undeclared on user.message: moved to the envelope; declared on assistant.message: kept, and named in the envelope too.
    expect(current.shapeEvent("user.message", { content: "hi", parentToolCallId: "call_1" })).toEqual({ data: { content: "hi" }, agentId: "call_1" });
    expect(current.shapeEvent("assistant.message", { content: "", parentToolCallId: "call_1" })).toEqual({ data: { content: "", parentToolCallId: "call_1" }, agentId: "call_1" });
    // Nothing to change: nothing allocated.
    expect(current.shapeEvent("session.idle", {})).toBeUndefined();
  });

  it("give 1.0.x's write permission requests canOfferSessionApproval, and leave 0.2.0's and the other kinds as emitted", () => {
    const write = { requestId: "r1", permissionRequest: { kind: "write", intention: "Create file", fileName: "/a", diff: "" } };
    expect(profileFor("1.0").shapeEvent("permission.requested", write)?.data.permissionRequest).toMatchObject({ kind: "write", canOfferSessionApproval: true });
    expect(profileFor("0.2").shapeEvent("permission.requested", write)).toBeUndefined();
    const read = { requestId: "r2", permissionRequest: { kind: "read", intention: "Read file: /a", path: "/a" } };
    expect(profileFor("1.0").shapeEvent("permission.requested", read)?.data).toEqual(read);
  });

  it("leave out for 0.2.0 what 1.0.10 did not send: assistant.idle and a sub-agent's opening and turns", () => {
    const legacy = profileFor("0.2");
    const current = profileFor("1.0");
    expect(legacy.sendsEvent("assistant.idle", {})).toBe(false);
    expect(current.sendsEvent("assistant.idle", {})).toBe(true);
    for (const type of ["subagent.selected", "subagent.configured", "user.message", "session.tools_updated", "assistant.turn_start", "assistant.turn_end"]) {
      expect(legacy.sendsEvent(type, { parentToolCallId: "call_1" }), type).toBe(false);
      expect(legacy.sendsEvent(type, {}), type).toBe(true);
      expect(current.sendsEvent(type, { parentToolCallId: "call_1" }), type).toBe(true);
    }
    for (const type of ["assistant.message", "system.message", "tool.execution_start"]) expect(legacy.sendsEvent(type, { parentToolCallId: "call_1" }), type).toBe(true);
  });

  it("read a sub-agent run in either form", () => {
    expect(subAgentRunOf({ agentId: "call_1", data: {} })).toBe("call_1");
    expect(subAgentRunOf({ data: { parentToolCallId: "call_2" } })).toBe("call_2");
    expect(subAgentRunOf({ data: {} })).toBeUndefined();
  });
});
