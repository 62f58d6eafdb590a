import { describe, expect, it } from "vitest";
import type { ConversationMessage } from "../../src/loop/messages.js";
import { planCut } from "../../src/compaction/plan.js";
import { replayCompaction } from "../../src/compaction/rebuild.js";
import { summaryMessageText } from "../../src/compaction/summary-text.js";
import { TokenEstimator } from "../../src/compaction/tokens.js";

const user = (content: string): ConversationMessage => ({ role: "user", content });
const call = (id: string, ...more: string[]): ConversationMessage => ({ role: "assistant", content: "", toolCalls: [id, ...more].map((callId) => ({ id: callId, name: "read", rawArguments: "{}" })) });
const result = (id: string, content = "x".repeat(400)): ConversationMessage => ({ role: "tool", toolCallId: id, toolName: "read", content });

describe("planCut", () => {
  const history = [user("the task"), call("a", "b"), result("a"), result("b"), call("c"), result("c"), call("d"), result("d"), { role: "assistant" as const, content: "done", toolCalls: [] }];

  it("cuts only where no tool call is left without its result", () => {
    for (const budget of [0, 50, 150, 250, 400, 10_000]) {
      const cut = planCut(history, new TokenEstimator(), budget);
      expect(history[cut]?.role ?? "end").not.toBe("tool");
      const called = new Set(history.slice(0, cut).flatMap((message) => (message.role === "assistant" ? message.toolCalls.map((toolCall) => toolCall.id) : [])));
      const answered = new Set(history.slice(0, cut).flatMap((message) => (message.role === "tool" ? [message.toolCallId] : [])));
      expect([...called].every((id) => answered.has(id)), `budget ${budget}, cut ${cut}`).toBe(true);
    }
  });

  it("keeps the recent turns that fit the budget and never cuts before a call still running", () => {
    const estimator = new TokenEstimator();
    const cut = planCut(history, estimator, estimator.messages(history, 6));
    expect(cut).toBe(6);
    const running = [...history.slice(0, 6), call("e")];
    expect(planCut(running, estimator, 0)).toBe(6);
  });

  it("never removes the user's newest, unanswered message", () => {
    expect(planCut([user("x".repeat(100_000))], new TokenEstimator(), 0)).toBe(0);
    expect(planCut([...history, user("next question")], new TokenEstimator(), 0)).toBe(history.length);
  });

  it("finds nothing to remove when only an earlier summary precedes the kept tail", () => {
    const summary = user(summaryMessageText("earlier work", 1, "001-task.md", "the task"));
    expect(planCut([summary, call("a"), result("a")], new TokenEstimator(), 10_000)).toBe(0);
  });
});

describe("replayCompaction", () => {
  it("replaces the removed messages with the summary message the live session made, keeping the task", () => {
    const messages = [user("the task"), call("a"), result("a"), call("b"), result("b")];
    replayCompaction(messages, { success: true, messagesRemoved: 3, summaryContent: "S", checkpointNumber: 2, checkpointPath: "/x/checkpoints/002-the-task.md" });
    expect(messages).toHaveLength(3);
    expect(messages[0]).toEqual(user(summaryMessageText("S", 2, "002-the-task.md", "the task")));
    expect(messages[0]?.content).toContain("<original_request>\nthe task\n</original_request>");
  });

  it("ignores failed compactions and sub-agents' compactions", () => {
    const messages = [user("t"), call("a"), result("a")];
    replayCompaction(messages, { success: false, messagesRemoved: 2, summaryContent: "S" });
    replayCompaction(messages, { success: true, messagesRemoved: 2, summaryContent: "S", parentToolCallId: "call_1" });
    expect(messages).toHaveLength(3);
  });
});
