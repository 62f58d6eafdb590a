/**
 * Compaction control and hand-off summaries through the official SDK 1.0.x against the built
 * `tandem` and a scripted model: `session.history.summarizeForHandoff` (empty without a
 * conversation, one model call over the transcript otherwise, history unchanged), and cancelling a
 * compaction under way by how it began (`abortManualCompaction` / `cancelBackgroundCompaction`).
 */
import { approveAll, CopilotClient, RuntimeConnection, type CopilotSession, type SessionEvent } from "copilot-sdk-v1";
import { defaultModels, ModelServer, type Script } from "@tandem/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { tandemBin, waitFor, worldAround, type TestWorld } from "../helpers/harness.js";

const summaryPhrase = "Write a detailed summary of the conversation so far";
type ChatBody = { messages: Array<{ role: string; content: string | null }> };

let world: TestWorld | undefined;
const clients: CopilotClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop();
  await world?.dispose();
  world = undefined;
});

async function startWith(script: Script): Promise<TestWorld> {
  const model = new ModelServer({ models: [...defaultModels(), { id: "tiny-4k", maxContextWindowTokens: 4096, maxOutputTokens: 512 }] });
  model.addScript(script);
  world = await worldAround(model);
  return world;
}

async function session(extra: Parameters<CopilotClient["createSession"]>[0] extends infer C ? Partial<C> : never = {}): Promise<CopilotSession> {
  if (!world) throw new Error("start the world first");
  const client = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world.env, logLevel: "error" });
  clients.push(client);
  await client.start();
  await client.listModels();
  return client.createSession({ onPermissionRequest: approveAll, ...extra });
}

const bodies = (): ChatBody[] => (world?.model.requests ?? []).map((request) => request.body as ChatBody);
const isSummaryCall = (body: ChatBody): boolean => body.messages.some((message) => message.content?.includes(summaryPhrase));

describe("session.history.summarizeForHandoff", () => {
  it("is empty without a conversation (no model call), then summarizes it in one call without changing it", async () => {
    await startWith({
      name: "handoff",
      byContent: [{ contains: summaryPhrase, reply: { content: "## Hand-off\nThe user said hello and was greeted." } }],
      steps: [{ reply: { content: "Hello from the scripted model." } }, { reply: { content: "Second answer." } }],
    });
    const fresh = await session();
    expect(await fresh.rpc.history.summarizeForHandoff()).toEqual({ summary: "" });
    await fresh.log("a log line is not conversation");
    expect(await fresh.rpc.history.summarizeForHandoff()).toEqual({ summary: "" });
    expect(bodies()).toHaveLength(0);

    await fresh.sendAndWait({ prompt: "hello, hand this over later" });
    const { summary } = await fresh.rpc.history.summarizeForHandoff();
    expect(summary).toBe("## Hand-off\nThe user said hello and was greeted.");
    const summaryCall = bodies().filter(isSummaryCall);
    expect(summaryCall).toHaveLength(1);
    expect(JSON.stringify(summaryCall[0])).toContain("hello, hand this over later");
    expect(JSON.stringify(summaryCall[0])).toContain("Hello from the scripted model.");

    // The history is not replaced: the next request still holds the first exchange.
    const events: SessionEvent[] = [];
    fresh.on((event) => events.push(event));
    await fresh.sendAndWait({ prompt: "and now?" });
    const last = bodies().at(-1);
    expect(last?.messages.map((message) => message.content ?? "").join("\n")).toContain("Hello from the scripted model.");
    expect(events.some((event) => event.type.startsWith("session.compaction"))).toBe(false);
  });
});

describe("cancelling a compaction", () => {
  it("answers false for both kinds when nothing is running", async () => {
    await startWith({ name: "idle", steps: [{ reply: { content: "unused" } }] });
    const idle = await session();
    expect(await idle.rpc.history.cancelBackgroundCompaction()).toEqual({ cancelled: false });
    expect(await idle.rpc.history.abortManualCompaction()).toEqual({ aborted: false });
  });

  it("aborts a manual compaction under way: the history stays, the event says cancelled, the session works on", async () => {
    let chunk = 0;
    await startWith({
      name: "manual-abort",
      sequential: true,
      byContent: [{ contains: summaryPhrase, hang: true }],
      steps: [
        { times: 12, reply: { content: "Reading the next chunk.", toolCalls: [{ name: "read_chunk", arguments: { part: "next" } }] } },
        { reply: { content: "All chunks read." } },
        { reply: { content: "Still here after the abort." } },
      ],
    });
    const tiny = await session({
      model: "tiny-4k",
      infiniteSessions: { enabled: false },
      availableTools: ["read_chunk"],
      tools: [
        {
          name: "read_chunk",
          description: "Reads the next chunk of the input.",
          parameters: { type: "object", properties: { part: { type: "string" } } },
          handler: () => `chunk ${++chunk}: the quick brown fox jumps over the lazy dog while counting ${chunk * 7} sheep.`,
        },
      ],
    });
    await tiny.sendAndWait({ prompt: "read 12 chunks" }, 60_000);
    const events: SessionEvent[] = [];
    tiny.on((event) => events.push(event));

    const compaction = tiny.rpc.history.compact();
    await waitFor(() => bodies().some(isSummaryCall), "the summary call");
    // It began as a manual compaction: the background cancel does not touch it.
    expect(await tiny.rpc.history.cancelBackgroundCompaction()).toEqual({ cancelled: false });
    expect(await tiny.rpc.history.abortManualCompaction()).toEqual({ aborted: true });
    expect(await compaction).toMatchObject({ success: false, messagesRemoved: 0 });
    await waitFor(() => events.some((event) => event.type === "session.compaction_complete"), "compaction_complete");
    const complete = events.find((event) => event.type === "session.compaction_complete");
    expect(complete?.data).toMatchObject({ success: false, error: "the compaction was cancelled" });
    expect(await tiny.rpc.history.abortManualCompaction()).toEqual({ aborted: false });

    const answer = await tiny.sendAndWait({ prompt: "still there?" }, 60_000);
    expect(answer?.data.content).toBe("Still here after the abort.");
    const last = bodies().filter((body) => !isSummaryCall(body)).at(-1);
    expect(last?.messages.filter((message) => message.role === "tool")).toHaveLength(12);
  }, 120_000);

  it("cancels a background compaction under way; the turn goes on without waiting for it", async () => {
    let chunk = 0;
    await startWith({
      name: "background-cancel",
      sequential: true,
      byContent: [{ contains: summaryPhrase, hang: true }],
      steps: [
        { times: 12, reply: { content: "Reading the next chunk.", toolCalls: [{ name: "read_chunk", arguments: { part: "next" } }] } },
        { reply: { content: "All chunks read." } },
      ],
    });
    const tiny = await session({
      model: "tiny-4k",
      infiniteSessions: { enabled: true, backgroundCompactionThreshold: 0.3, bufferExhaustionThreshold: 0.99 },
      availableTools: ["read_chunk"],
      tools: [
        {
          name: "read_chunk",
          description: "Reads the next chunk of the input.",
          parameters: { type: "object", properties: { part: { type: "string" } } },
          handler: async () => {
            // Hold the turn at the first chunk after the summary call began, until it is cancelled.
            if (bodies().some(isSummaryCall)) await waitFor(() => events.some((event) => event.type === "session.compaction_complete"), "the cancellation", 30_000);
            return `chunk ${++chunk}: the quick brown fox jumps over the lazy dog while counting ${chunk * 7} sheep.`;
          },
        },
      ],
    });
    const events: SessionEvent[] = [];
    tiny.on((event) => events.push(event));
    const answer = tiny.sendAndWait({ prompt: "read 12 chunks" }, 60_000);
    await waitFor(() => bodies().some(isSummaryCall), "the background summary call", 30_000);
    expect(await tiny.rpc.history.abortManualCompaction()).toEqual({ aborted: false });
    expect(await tiny.rpc.history.cancelBackgroundCompaction()).toEqual({ cancelled: true });
    expect((await answer)?.data.content).toBe("All chunks read.");
    const completes = events.filter((event) => event.type === "session.compaction_complete");
    expect(completes[0]?.data).toMatchObject({ success: false, error: "the compaction was cancelled" });
    expect(completes.some((event) => (event.data as { success: boolean }).success)).toBe(false);
  }, 120_000);
});
