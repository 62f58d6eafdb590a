/**
 * ask_user, sql and task_complete end to end, with every client (official 0.2.0 and 1.0.x, ours):
 * the user-input round trip (`userInput.request` + user_input events), `session.todos_changed`, and
 * `session.task_complete`
 * ending autopilot without a nudge.
 */
import type { CopilotClient as OfficialClient, SessionEvent } from "@github/copilot-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, startWorld, type TestWorld } from "../helpers/harness.js";
import { clientVariants } from "../helpers/official-client.js";

let world: TestWorld | undefined;
let client: OfficialClient | undefined;

afterEach(async () => {
  await client?.stop();
  await world?.dispose();
});

describe.each(clientVariants)("$sdk", ({ make }) => {
  it("asks the user, keeps a todo table and completes the task in autopilot", async () => {
    world = await startWorld(["session-tools"]);
    client = make(world.env);
    const questions: Array<{ question: string; choices?: string[] }> = [];
    const session = await client.createSession({
      onPermissionRequest: () => ({ kind: "approved" }),
      onUserInputRequest: (request) => {
        questions.push({ question: request.question, choices: request.choices });
        return { answer: "blue", wasFreeform: false };
      },
    });
    await session.rpc.mode.set({ mode: "autopilot" });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "Ask me something" });
    expect(reply?.data.content).toBe("Noted: blue.");
    expect(questions).toEqual([{ question: "Favourite colour?", choices: ["red", "blue"] }]);
    expect(eventsOf(events, "user_input.requested")[0]?.data).toMatchObject({ question: "Favourite colour?", choices: ["red", "blue"], toolCallId: "call_ask" });
    expect(events.some((event) => event.type === "user_input.completed")).toBe(true);
    expect(events.some((event) => (event.type as string) === "session.todos_changed")).toBe(true);
    expect(eventsOf(events, "session.task_complete")[0]?.data).toMatchObject({ summary: "Learned the favourite colour" });
    const results = Object.fromEntries(eventsOf(events, "tool.execution_complete").map((event) => [event.data.toolCallId, event.data.result?.content]));
    expect(results.call_todo).toBe("Schema operation completed successfully.");
    expect(results.call_ask).toBe("User selected: blue");
    // task_complete was called: no autopilot nudge, three model calls in all.
    expect(eventsOf(events, "user.message").filter((event) => event.data.source === "autopilot")).toHaveLength(0);
    expect(world.model.requests).toHaveLength(3);
  });
});
