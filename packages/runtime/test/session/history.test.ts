import type { SessionEvent } from "@tandem/protocol";
import { describe, expect, it } from "vitest";
import { HistoryRebuilder } from "../../src/session/history.js";

let counter = 0;
const event = (type: string, data: Record<string, unknown>, id = `e${++counter}`) =>
  ({ type, data, id, timestamp: "2025-01-01T00:00:00.000Z", parentId: null }) as unknown as SessionEvent;

describe("HistoryRebuilder and session.snapshot_rewind", () => {
  it("drops the conversation from the rewound user message on, and only the live turns remain rewind points", () => {
    const history = new HistoryRebuilder();
    const turns = ["one", "two", "three"].map((prompt) => event("user.message", { content: prompt, transformedContent: prompt }, `u-${prompt}`));
    for (const turn of turns) {
      history.add(turn);
      history.add(event("assistant.message", { messageId: "m", content: `re ${turn.id}`, toolRequests: [{ toolCallId: `c-${turn.id}`, name: "bash", arguments: {} }] }));
      history.add(event("tool.execution_complete", { toolCallId: `c-${turn.id}`, success: true, result: { content: "ok" } }));
    }
    history.add(event("session.snapshot_rewind", { eventsRemoved: 6, upToEventId: "u-two" }));
    history.add(event("user.message", { content: "four", transformedContent: "four" }, "u-four"));
    // A rewind to an id that is gone changes nothing.
    history.add(event("session.snapshot_rewind", { eventsRemoved: 0, upToEventId: "u-three" }));
    const { messages } = history.finish();
    expect(messages.map((message) => (message.role === "user" ? `user:${message.content}` : message.role))).toEqual(["user:one", "assistant", "tool", "user:four"]);
    expect(history.live.filter((entry) => entry.turn).map((entry) => entry.id)).toEqual(["u-one", "u-four"]);
  });
});
