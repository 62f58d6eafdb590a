import type { SessionEvent } from "@tandem/protocol";
import { describe, expect, it } from "vitest";
import { interruptedCalls } from "../../src/cluster/takeover.js";
import { interruptedText } from "../../src/loop/tool-runner.js";
import { HistoryRebuilder } from "../../src/session/history.js";

let counter = 0;
const event = (type: string, data: Record<string, unknown>) => ({ type, data, id: `e${++counter}`, timestamp: "2025-01-01T00:00:00.000Z", parentId: null }) as unknown as SessionEvent;

describe("interruptedCalls after a takeover", () => {
  it("names only the calls the log holds no completion for: an abort's interrupted completions are not written twice", () => {
    const history = new HistoryRebuilder();
    history.add(event("user.message", { content: "go", transformedContent: "go" }));
    const calls = ["call_aborted", "call_finished", "call_lost"].map((toolCallId) => ({ toolCallId, name: "bash", arguments: {} }));
    history.add(event("assistant.message", { messageId: "m", content: "", toolRequests: calls }));
    history.add(event("tool.execution_complete", { toolCallId: "call_aborted", success: false, result: { content: interruptedText }, error: { message: "Interrupted: the user aborted the turn before the tool call finished.", code: "interrupted" } }));
    history.add(event("tool.execution_complete", { toolCallId: "call_finished", success: true, result: { content: "done" } }));
    const { messages } = history.finish();

    // The model sees a result for every call, "interrupted" for the aborted and the lost one.
    expect(messages.filter((message) => message.role === "tool").map((message) => [message.toolCallId, message.content])).toEqual([
      ["call_aborted", interruptedText],
      ["call_finished", "done"],
      ["call_lost", interruptedText],
    ]);
    expect(interruptedCalls(messages)).toEqual([{ id: "call_lost", name: "bash" }]);
  });
});
