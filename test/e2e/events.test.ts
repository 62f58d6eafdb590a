/**
 * Event fields and orderings of the event reference through the official SDK: usage and streaming data,
 * reasoning, usage_info, title, model switching, retries, abort latency and shutdown metrics.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, approveAll, type SessionEvent } from "@github/copilot-sdk";
import { describe, expect, it } from "vitest";
import { waitFor, type TestWorld } from "../helpers/harness.js";
import { clientVariants, officialClientFixture } from "../helpers/official-client.js";

let world: TestWorld | undefined;
describe.each(clientVariants)("$sdk", ({ sdk, make }) => {
  const fixture = officialClientFixture(make);
  const start = (): CopilotClient => fixture.client();

  it("streams a tool-using exchange with reasoning, in the quick-reference order and with full data", async () => {
    world = await fixture.startWorld(["streamed-tool-turns"]);
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      streaming: true,
      tools: [{ name: "clock", description: "Current time", handler: () => "12:00" }],
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.sendAndWait({ prompt: "What time is it?" });
    const types = events.map((event) => event.type);

    const firstTurn = types.slice(types.indexOf("assistant.turn_start"), types.indexOf("assistant.turn_end") + 1);
    const order = ["assistant.turn_start", "assistant.reasoning_delta", "assistant.reasoning", "assistant.message_delta", "assistant.usage", "assistant.message", "tool.execution_start", "tool.execution_complete", "assistant.turn_end"];
    const firstSeen = order.map((type) => (firstTurn as string[]).indexOf(type));
    expect(firstSeen.every((index) => index >= 0), JSON.stringify(firstTurn)).toBe(true);
    expect([...firstSeen].sort((a, b) => a - b)).toEqual(firstSeen);

    const reasoningDeltas = events.filter((event) => event.type === "assistant.reasoning_delta");
    const reasoning = events.find((event) => event.type === "assistant.reasoning");
    expect(reasoningDeltas.map((event) => event.data.deltaContent).join("")).toBe(reasoning?.data.content);
    expect(reasoningDeltas.every((event) => event.data.reasoningId === reasoning?.data.reasoningId)).toBe(true);

    const message = events.find((event) => event.type === "assistant.message");
    expect(message?.data).toMatchObject({ content: "Checking the clock.", toolRequests: [{ toolCallId: "call_clock_1", name: "clock", arguments: { zone: "UTC" }, type: "function" }] });
    expect(message?.data.reasoningText).toBe(reasoning?.data.content);

    // totalResponseSizeBytes is cumulative within one response: it grows within each turn.
    const sizesPerTurn: number[][] = [];
    for (const event of events) {
      if (event.type === "assistant.turn_start") sizesPerTurn.push([]);
      if (event.type === "assistant.streaming_delta") sizesPerTurn.at(-1)?.push(event.data.totalResponseSizeBytes);
    }
    expect(sizesPerTurn).toHaveLength(2);
    for (const sizes of sizesPerTurn) {
      expect(sizes.length).toBeGreaterThan(0);
      expect(sizes.every((size, index) => size > 0 && (index === 0 || size >= (sizes[index - 1] ?? 0)))).toBe(true);
    }

    const usages = events.filter((event) => event.type === "assistant.usage");
    expect(usages).toHaveLength(2);
    expect(usages[0]?.data).toMatchObject({ model: "gpt-4.1", initiator: "user" });
    expect(usages[1]?.data).toMatchObject({ initiator: "agent" });
    expect(usages[0]?.data.apiCallId).toMatch(/^chatcmpl-/);
    expect(usages[0]?.data.providerCallId).toBeTruthy();
    expect(typeof usages[0]?.data.duration).toBe("number");

    const usageInfo = events.find((event) => event.type === "session.usage_info");
    expect(usageInfo?.data.tokenLimit).toBeGreaterThan(0);
    expect(usageInfo?.data.messagesLength).toBe(1);
    expect(events.find((event) => event.type === "session.title_changed")?.data).toEqual({ title: "What time is it?" });
    expect(events.filter((event) => event.type === "assistant.turn_start")).toHaveLength(2);
    expect(events.filter((event) => event.type === "assistant.turn_end")).toHaveLength(2);
  });

  it("after a resume, session.usage_info reports the resumed history's size, and a send right after gets only its own report", async () => {
    world = await fixture.startWorld(["plain-reply"]);
    const first = start();
    const created = await first.createSession({ onPermissionRequest: approveAll });
    await created.sendAndWait({ prompt: "Say hello" });
    await first.stop();

    const resumed = await start().resumeSession(created.sessionId, { onPermissionRequest: approveAll });
    const events: SessionEvent[] = [];
    resumed.on((event) => events.push(event));
    await waitFor(() => events.some((event) => event.type === "session.usage_info"), "session.usage_info after the resume");
    const usage = events.find((event) => event.type === "session.usage_info")!.data;
    expect(usage).toMatchObject({ messagesLength: 2, isInitial: false });
    expect(usage.conversationTokens).toBeGreaterThan(0);
    expect(usage.systemTokens! + usage.conversationTokens! + usage.toolDefinitionsTokens!).toBe(usage.currentTokens);

    events.length = 0;
    await resumed.sendAndWait({ prompt: "Again" });
    const reports = events.filter((event) => event.type === "session.usage_info");
    expect(reports.map((event) => [event.data.messagesLength, event.data.isInitial])).toEqual([[3, true]]);
  });

  it("retries a rate-limited call and succeeds without a session.error", async () => {
    world = await fixture.startWorld(["retry-then-success"]);
    const session = await start().createSession({ onPermissionRequest: approveAll });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "hi" });
    expect(reply?.data.content).toBe("Made it on the third attempt.");
    expect(world.model.requests).toHaveLength(3);
    expect(events.some((event) => event.type === "session.error")).toBe(false);
    expect(events.filter((event) => event.type === "assistant.turn_start")).toHaveLength(1);
    expect(events.find((event) => event.type === "assistant.usage")?.data).toMatchObject({ inputTokens: 40, outputTokens: 7, cacheReadTokens: 16 });
  });

  it("aborts a streaming model call within 100 ms", async () => {
    world = await fixture.startWorld(["hang-then-reply"]);
    const session = await start().createSession({ onPermissionRequest: approveAll, streaming: true });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.send({ prompt: "hang" });
    await waitFor(() => world?.model.requests.length === 1, "the model request");
    const started = performance.now();
    await session.abort();
    await waitFor(() => events.some((event) => event.type === "session.idle"), "idle");
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("switches models with session.model_change and writes shutdown metrics on disconnect", async () => {
    world = await fixture.startWorld(["plain-reply"]);
    const session = await start().createSession({ onPermissionRequest: approveAll });
    await session.sendAndWait({ prompt: "one" });
    const changes: SessionEvent[] = [];
    session.on("session.model_change", (event) => changes.push(event));
    await session.setModel("claude-sonnet-4");
    expect(await session.rpc.model.getCurrent()).toEqual({ modelId: "claude-sonnet-4" });
    await waitFor(() => changes.length === 1, "model_change");
    expect(changes[0]?.data).toMatchObject({ previousModel: "gpt-4.1", newModel: "claude-sonnet-4" });
    await session.sendAndWait({ prompt: "two" });
    expect((world.model.requests[1]?.body as { model: string }).model).toBe("claude-sonnet-4");
    await session.disconnect();
    const lines = readFileSync(join(world.home, "session-state", session.sessionId, "events.jsonl"), "utf8").trim().split("\n");
    const shutdown = JSON.parse(lines.at(-1) ?? "{}");
    expect(shutdown.type).toBe("session.shutdown");
    // The premium request count is a 0.2.0-generation field: the 1.0.x SDK's types do not have it.
    if (sdk === "official SDK 0.2.0") expect(shutdown.data.totalPremiumRequests).toBe(2);
    else expect(shutdown.data).not.toHaveProperty("totalPremiumRequests");
    expect(shutdown.data).toMatchObject({
      shutdownType: "routine",
      currentModel: "claude-sonnet-4",
      codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [] },
      modelMetrics: { "gpt-4.1": { requests: { count: 1 } }, "claude-sonnet-4": { requests: { count: 1 } } },
    });
    expect(shutdown.data.modelMetrics["gpt-4.1"].usage.inputTokens).toBe(12);
  });
});
