/**
 * What starts a compaction, in process, on a model with a 4,096-token window: a model call whose
 * request passes the background threshold starts one in the background; past the exhaustion
 * threshold the call waits for it and goes out with the summary; `enabled: false` starts none;
 * a request under the threshold starts none.
 */
import { SessionCreate, SessionSend, SessionToolsHandlePendingToolCall } from "@tandem/protocol";
import { defaultModels } from "@tandem/testkit";
import { afterEach, expect, it } from "vitest";
import { startInProcess, type InProcessWorld } from "../helpers/in-process.js";

let world: InProcessWorld | undefined;

afterEach(async () => {
  await world?.dispose();
  world = undefined;
});

const summaryPhrase = "Write a detailed summary of the conversation so far";

const readScript = `
name: read-big
sequential: true
byContent:
  - contains: "${summaryPhrase}"
    reply:
      content: "SUMMARY-{{hit}}. The user asked to read the input."
steps:
  - reply:
      content: "Reading."
      toolCalls:
        - { id: call_read_1, name: read_input, arguments: {} }
  - reply:
      content: "Read it."
  - reply:
      content: "Next answer."
`;

const readTool = { name: "read_input", description: "Reads the input", parameters: { type: "object", properties: {} } };

/** A session on `tiny-4k` with one application tool and a short system prompt, so the tool result decides the size. */
async function tinySession(infiniteSessions: Record<string, unknown>): Promise<string> {
  world = await startInProcess({ scripts: [readScript], models: [...defaultModels(), { id: "tiny-4k", maxContextWindowTokens: 4096, maxOutputTokens: 512 }] });
  world.client.approveAllPermissions();
  const { sessionId } = await world.client.request(SessionCreate, {
    workingDirectory: world.home,
    model: "tiny-4k",
    tools: [readTool],
    availableTools: ["read_input"],
    systemMessage: { mode: "replace", content: "You are a test agent." },
    infiniteSessions,
  });
  return sessionId;
}

/** Runs the tool round, answering `read_input` with `words` words. */
async function readRound(sessionId: string, words: number): Promise<void> {
  if (!world) throw new Error("start the world first");
  const { client } = world;
  await client.request(SessionSend, { sessionId, prompt: "read the input" });
  const requested = await client.waitForEvent("external_tool.requested", { sessionId });
  const text = Array.from({ length: words }, (_, index) => `word${index % 97}`).join(" ");
  await client.request(SessionToolsHandlePendingToolCall, { sessionId, requestId: requested.data.requestId, result: text });
  await client.waitForEvent("assistant.message", { sessionId, where: (event) => event.data.content === "Read it." });
  await client.waitForEvent("session.idle", { sessionId });
}

/** The world of the running test. */
function started(): InProcessWorld {
  if (!world) throw new Error("start the world first");
  return world;
}

/** The session's event types that show where a compaction sits in the turn. */
function compactionTimeline(sessionId: string): string[] {
  return started().client.eventTypes(sessionId, ["tool.execution_complete", "assistant.turn_start", "session.compaction_start", "session.compaction_complete", "assistant.message"]);
}

/** The loop's model calls (not the summary calls), as request bodies in JSON. */
function loopCalls(): string[] {
  return (world?.model.requests ?? []).map((request) => JSON.stringify(request.body)).filter((body) => !body.includes(summaryPhrase));
}

// 1,000 words of tool result put the next request at about 65% of the 3,584-token prompt limit.
it("starts a background compaction before the first model call whose request passes the background threshold", async () => {
  const sessionId = await tinySession({ backgroundCompactionThreshold: 0.5 });
  await readRound(sessionId, 1000);
  const completed = await started().client.waitForEvent("session.compaction_complete", { sessionId });
  expect(completed.data).toMatchObject({ success: true, summaryContent: expect.stringMatching(/^SUMMARY-1\./) });
  // The first call (a few dozen tokens) started none; the one after the big tool result did.
  expect(compactionTimeline(sessionId).slice(0, 5)).toEqual([
    "assistant.turn_start",
    "assistant.message",
    "tool.execution_complete",
    "assistant.turn_start",
    "session.compaction_start",
  ]);
  expect(started().client.eventsOf("session.compaction_start", sessionId)).toHaveLength(1);
});

it("makes the model call wait for the compaction once its request passes the exhaustion threshold; the call goes out with the summary", async () => {
  const sessionId = await tinySession({ backgroundCompactionThreshold: 0.5, bufferExhaustionThreshold: 0.6 });
  await readRound(sessionId, 1000);
  expect(compactionTimeline(sessionId)).toEqual([
    "assistant.turn_start",
    "assistant.message",
    "tool.execution_complete",
    "assistant.turn_start",
    "session.compaction_start",
    "session.compaction_complete",
    "assistant.message",
  ]);
  const calls = loopCalls();
  expect(calls).toHaveLength(2);
  expect(calls[1]).toContain("SUMMARY-1.");
  expect(calls[1]).not.toContain("word96");
});

it.each([
  ["compaction is turned off", { enabled: false, backgroundCompactionThreshold: 0.5 }, 1000],
  ["the request stays under the background threshold", {}, 500],
])("starts no compaction when %s", async (_, infiniteSessions, words) => {
  const sessionId = await tinySession(infiniteSessions);
  await readRound(sessionId, words);
  const mark = started().client.mark();
  await started().client.request(SessionSend, { sessionId, prompt: "and then?" });
  await started().client.waitForEvent("session.idle", { sessionId, from: mark });
  expect(started().client.eventsOf("session.compaction_start", sessionId)).toHaveLength(0);
  expect(started().model.requests.filter((request) => JSON.stringify(request.body).includes(summaryPhrase))).toHaveLength(0);
});
