/**
 * Terminal tools and `session.history.clearContext` through the official SDK 1.0.x against the
 * built `tandem`: a successful terminal tool ends the turn (its result is not sent back; a failed
 * one is), and clearing the context from such a tool empties the conversation once the turn is
 * done and answers the seed prompt as the first message of a new one, also after a resume.
 */
import { approveAll, type CopilotClient as V1Client, type SessionEvent } from "copilot-sdk-v1";
import { describe, expect, it } from "vitest";
import type { TestWorld } from "../helpers/harness.js";
import { officialClientFixture, officialV1Client } from "../helpers/official-client.js";

type ChatBody = { messages: Array<{ role: string; content?: string | null }> };
const fixture = officialClientFixture(officialV1Client);
const start = (): V1Client => fixture.client() as unknown as V1Client;
const texts = (world: TestWorld, index: number): string[] => (world.model.requests[index]?.body as ChatBody).messages.map((message) => `${message.role}: ${message.content ?? ""}`);
const seed = "SEEDED-PROMPT: say hello";

describe("terminal tools", () => {
  it("a successful terminal tool ends the turn: the model is not called with its result", async () => {
    const world = await fixture.startWorld(["terminal-tool"]);
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      tools: [{ name: "finish_now", description: "Ends the turn", parameters: { type: "object", properties: {} }, isTerminal: true, handler: () => "finished" }],
    });
    const answer = await session.sendAndWait({ prompt: "finish" });
    expect(answer?.data.content).toBe("Finishing.");
    expect(world.model.requests).toHaveLength(1);
    const complete = (await session.getEvents()).find((event) => event.type === "tool.execution_complete");
    expect(complete?.data).toMatchObject({ success: true });
  });

  it("a failed terminal tool goes back to the model; its next successful call ends the turn", async () => {
    const world = await fixture.startWorld(["terminal-tool"]);
    let calls = 0;
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      tools: [
        {
          name: "finish_now",
          description: "Ends the turn",
          parameters: { type: "object", properties: {} },
          isTerminal: true,
          handler: () => {
            calls++;
            if (calls === 1) throw new Error("not yet");
            return "finished";
          },
        },
      ],
    });
    const answer = await session.sendAndWait({ prompt: "finish" });
    expect(answer?.data.content).toBe("Trying again.");
    expect(calls).toBe(2);
    expect(world.model.requests).toHaveLength(2);
  });
});

describe("session.history.clearContext", () => {
  it("from a terminal tool: the turn ends, the conversation is cleared and the seed prompt starts the new one; a resume keeps it cleared", async () => {
    const world = await fixture.startWorld(["clear-context"]);
    const events: SessionEvent[] = [];
    let cleared: number | undefined;
    const client = start();
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      onEvent: (event) => events.push(event),
      tools: [
        {
          name: "clear_context",
          description: "Starts a fresh conversation",
          parameters: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
          isTerminal: true,
          handler: async (args: unknown) => {
            cleared = (await session.rpc.history.clearContext({ prompt: (args as { prompt: string }).prompt })).messagesCleared;
            return `Cleared ${cleared} messages.`;
          },
        },
      ],
    });
    const answer = await session.sendAndWait({ prompt: "call the clearing tool" });
    expect(answer?.data.content).toBe("Fresh start.");
    expect(cleared).toBe(2);
    expect(world.model.requests).toHaveLength(2);
    expect(texts(world, 1).slice(1)).toEqual([expect.stringMatching(/^user: .*SEEDED-PROMPT: say hello$/s)]);
    const event = events.find((candidate) => candidate.type === "session.context_cleared");
    expect(event?.data).toEqual({ messagesCleared: 3, initialMessage: seed });
    // One idle for the whole exchange: the seeded turn is part of it.
    expect(events.filter((candidate) => candidate.type === "session.idle")).toHaveLength(1);

    const resumed = await start().resumeSession(session.sessionId, { onPermissionRequest: approveAll });
    await resumed.sendAndWait({ prompt: "and now?" });
    const after = texts(world, 2).slice(1);
    expect(after).toHaveLength(3);
    expect(after[0]).toMatch(/SEEDED-PROMPT/);
    expect(after[1]).toBe("assistant: Fresh start.");
    expect(after.join("\n")).not.toContain("call the clearing tool");
  });

  it("on an idle session clears at once and answers the seed; an empty prompt is invalid params", async () => {
    const world = await fixture.startWorld(["clear-context"]);
    const session = await start().createSession({ onPermissionRequest: approveAll });
    await expect(session.rpc.history.clearContext({ prompt: "" })).rejects.toMatchObject({ code: -32602 });
    const idle = new Promise<void>((resolve) => session.on("session.idle", () => resolve()));
    expect(await session.rpc.history.clearContext({ prompt: seed })).toEqual({ messagesCleared: 0 });
    await idle;
    expect(texts(world, 0).slice(1)).toEqual([expect.stringMatching(/SEEDED-PROMPT: say hello$/)]);
  });
});
