/**
 * The message queue: a send that arrives the moment the previous run goes idle is answered (this
 * once raced with the end-of-run fsync), and sends made while busy are answered in order with one
 * `session.idle` at the end.
 */
import { afterEach, expect, it } from "vitest";
import { startWorld, type TestWorld } from "../helpers/harness.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";

let world: TestWorld | undefined;
let client: RawClient | undefined;

afterEach(async () => {
  await client?.close(true);
  await world?.dispose();
});

const eventType = (message: WireMessage): string | undefined =>
  message.method === "session.event" ? (message.params as { event: { type: string } }).event.type : undefined;

it("answers a send made the instant the previous run went idle, twenty times in a row", async () => {
  world = await startWorld(["many-replies"]);
  client = new RawClient(world.env);
  const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
  for (let round = 0; round < 20; round++) {
    const idlesBefore = client.received.filter((message) => eventType(message) === "session.idle").length;
    client.writeFrame(JSON.stringify({ jsonrpc: "2.0", id: 1000 + round, method: "session.send", params: { sessionId, prompt: `round ${round}` } }));
    await client.waitFor(() => client!.received.filter((message) => eventType(message) === "session.idle").length > idlesBefore, 5000);
  }
  const replies = client.received
    .filter((message) => eventType(message) === "assistant.message")
    .map((message) => (message.params as { event: { data: { content: string } } }).event.data.content);
  expect(replies).toEqual(Array.from({ length: 20 }, (_, index) => `reply ${index}`));
});

it("queues sends made while busy and answers them in order, with one idle at the end", async () => {
  world = await startWorld(["many-replies"]);
  client = new RawClient(world.env);
  const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
  const ids = await Promise.all(["first", "second", "third"].map((prompt) => client!.request("session.send", { sessionId, prompt })));
  expect(new Set(ids.map((response) => (response.result as { messageId: string }).messageId)).size).toBe(3);
  await client.waitFor((message) => eventType(message) === "session.idle");
  // A fourth send after the idle: whatever the first three runs still emitted is on the wire before its events.
  await client.request("session.send", { sessionId, prompt: "fourth" });
  await client.waitFor(() => client!.received.filter((message) => eventType(message) === "session.idle").length === 2);
  const types = client.received.map(eventType).filter((type) => type === "user.message" || type === "assistant.message" || type === "session.idle");
  const turn = ["user.message", "assistant.message"];
  expect(types).toEqual([...turn, ...turn, ...turn, "session.idle", ...turn, "session.idle"]);
  const prompts = client.received
    .filter((message) => eventType(message) === "user.message")
    .map((message) => (message.params as { event: { data: { content: string } } }).event.data.content);
  expect(prompts).toEqual(["first", "second", "third", "fourth"]);
});
