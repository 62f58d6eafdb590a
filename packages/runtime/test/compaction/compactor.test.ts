/**
 * A session's compactor over the runtime's own model client, pointed at the testkit's scripted
 * model server over real HTTP, with a real emitter and checkpoint files: when a background
 * compaction's summary call leaves, measured against the model call that started it.
 */
import { afterEach, expect, it } from "vitest";
import { CheckpointStore } from "../../src/compaction/checkpoints.js";
import { SessionCompactor, type CompactionHost } from "../../src/compaction/compactor.js";
import { defaultCompactionSettings } from "../../src/compaction/config.js";
import { summaryRequestPhrase } from "../../src/compaction/summary-text.js";
import { ContextWindow } from "../../src/compaction/window.js";
import type { ConversationMessage } from "../../src/ports/conversation.js";
import type { ModelClient, ModelRequest } from "../../src/providers/types.js";
import { scopeWorld, type ScopeWorld } from "../helpers/session-scope.js";

const windowTokens = 4096;
const frame = { system: "You are a test agent.", tools: [] };
const summaryScript = `
name: summaries
byContent:
  - contains: "${summaryRequestPhrase}"
    reply: { content: "SUMMARY. Task: read every chunk." }
steps:
  - reply: { content: "not asked for" }
`;

let world: ScopeWorld | undefined;
afterEach(async () => {
  await world?.dispose();
  world = undefined;
});

/** One tool round of ~60 tokens: the assistant's call and its result. */
function toolRound(round: number): ConversationMessage[] {
  const callId = `call-${round}`;
  return [
    { role: "assistant", content: "Reading.", toolCalls: [{ id: callId, name: "read_chunk", rawArguments: `{"part":"${round}"}` }] },
    { role: "tool", toolCallId: callId, toolName: "read_chunk", content: `chunk ${round}: the quick brown fox jumps over the lazy dog while counting ${round * 7} sheep in field ${round % 13}.` },
  ];
}

it("sends a background compaction's summary request before the model call that started the compaction goes on", async () => {
  world = await scopeWorld({ scripts: [summaryScript] });
  const { scope } = world;
  const runtimeClient = scope.services.createModelClient(scope.config, async () => "", scope.logger);
  // What the compactor handed to the model client, in order (the requests still go to the server).
  const summaryRequests: ModelRequest[] = [];
  const client: ModelClient = {
    name: runtimeClient.name,
    listModels: () => runtimeClient.listModels(),
    generate: (request, onPart) => {
      if (request.messages.some((message) => message.role === "user" && message.content.includes(summaryRequestPhrase))) summaryRequests.push(request);
      return runtimeClient.generate(request, onPart);
    },
  };
  const messages: ConversationMessage[] = [{ role: "user", content: "read every chunk" }];
  const host: CompactionHost = {
    sessionId: scope.sessionId,
    messages,
    emitter: scope.emitter,
    logger: scope.logger,
    retryPolicy: scope.services.retryPolicy,
    model: "gpt-4.1",
    modelClient: () => client,
    recordModelCall: () => undefined,
    checkpointTitle: () => "read every chunk",
  };
  const compactor = new SessionCompactor(host, {
    settings: defaultCompactionSettings,
    window: new ContextWindow(windowTokens, { known: () => undefined, fetch: async () => undefined }, scope.logger),
    checkpoints: new CheckpointStore(scope.files),
    timeoutMs: 5_000,
  });

  // The loop's model calls, one tool round apart, until one starts a compaction in the background.
  const signal = new AbortController().signal;
  for (let round = 1; world.eventsOf("session.compaction_start").length === 0; round++) {
    expect(compactor.currentTokens(frame)).toBeLessThan(defaultCompactionSettings.exhaustionThreshold * windowTokens);
    await compactor.prepare(frame, signal);
    messages.push(...toolRound(round));
  }
  // The summary request left with the start: no module load ran beside the loop first.
  expect(summaryRequests).toHaveLength(1);

  const result = await compactor.compactNow();
  expect(result.success).toBe(true);
  expect(result.messagesRemoved).toBeGreaterThan(0);
  expect(world.eventsOf("session.compaction_complete").map((event) => event.data.success)).toEqual([true]);
  expect(world.model.requests.filter((request) => request.stepIndex === -1)).toHaveLength(1);
  compactor.dispose();
});
