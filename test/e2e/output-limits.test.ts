/**
 * Unbounded output does not reach memory, the wire or the model unbounded: a command that floods
 * its output (streamed partial results coalesced and capped, stopped at its timeout), a client that
 * stops reading (disconnected past its budget; the runtime and its other clients carry on), a
 * huge custom-tool result (cut for the model) and a huge prompt (stored once in events.jsonl).
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startWorld, type TestWorld } from "../helpers/harness.js";
import type { FramedClient } from "../helpers/framed-client.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";
import { residentBytes } from "../helpers/proc.js";
import { startTcpRuntime, type RawTcpClient, type TcpRuntime } from "../helpers/tcp.js";

let world: TestWorld | undefined;
const clients: RawClient[] = [];
const servers: TcpRuntime[] = [];
const sockets: RawTcpClient[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  for (const client of clients.splice(0)) await client.close(true);
  for (const server of servers.splice(0)) await server.stop();
  await world?.dispose();
  world = undefined;
});

function start(env: Record<string, string> = {}): RawClient {
  if (!world) throw new Error("no world");
  const client = new RawClient({ ...world.env, ...env });
  clients.push(client);
  return client;
}

type Event = { type: string; data: Record<string, unknown> };
const eventOf = (message: WireMessage) => (message.params as { event: Event }).event;
const isEvent = (type: string) => (message: WireMessage) => message.method === "session.event" && eventOf(message).type === type;

/** The highest resident set size (MB) of a process, sampled every 100 ms until `stop`. */
function sampleRss(pid: number | undefined): { stop(): number } {
  let highest = 0;
  const sample = () => {
    const bytes = pid === undefined ? undefined : residentBytes(pid);
    if (bytes !== undefined) highest = Math.max(highest, bytes / 1024 / 1024);
  };
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return highest;
    },
  };
}

/** Approves the next permission request of the session. */
async function approveNext(client: FramedClient, sessionId: string): Promise<void> {
  const permission = await client.waitFor(isEvent("permission.requested"));
  const { requestId } = eventOf(permission).data as { requestId: string };
  await client.request("session.permissions.handlePendingPermissionRequest", { sessionId, requestId, result: { kind: "approved" } });
}

it("a sync bash that floods its output is stopped at its timeout, with streamed, kept and model output bounded", { timeout: 60_000 }, async () => {
  world = await startWorld(["bash-flood"]);
  const client = start();
  const rss = sampleRss(client.child.pid);
  const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
  await client.request("session.send", { sessionId, prompt: "Flood the terminal please" });
  await approveNext(client, sessionId);
  const complete = eventOf(await client.waitFor(isEvent("tool.execution_complete"), 30_000));
  await client.waitFor(isEvent("session.idle"), 15_000);
  const highestRss = rss.stop();

  const partials = client.received.filter(isEvent("tool.execution_partial_result")).map((message) => String(eventOf(message).data.partialOutput));
  expect(partials.length).toBeGreaterThan(0);
  expect(partials.length).toBeLessThan(100);
  expect(partials.join("").length).toBeLessThan(1.1 * 1024 * 1024);
  expect(partials.some((text) => text.includes("streaming stopped after 1048576 characters"))).toBe(true);
  expect(partials.at(-1)).toMatch(/\[Output truncated: \d+ more characters were not streamed\.\]/);

  const result = complete.data.result as { content: string; detailedContent: string };
  expect(complete.data.success).toBe(false);
  expect(result.content.length).toBeLessThan(31_000);
  expect(result.content).toMatch(/^y\ny\n/);
  expect(result.content).toContain("[Output truncated:");
  expect(result.content).toMatch(/<command timed out after 2 seconds and was stopped\. .*>$/);
  expect(result.detailedContent.length).toBeLessThan(270_000);
  expect(result.detailedContent).toMatch(/<command timed out after 2 seconds/);

  const toolMessage = (world.model.requests[1]?.body as { messages: Array<{ role: string; content: string }> }).messages.at(-1);
  expect(toolMessage?.role).toBe("tool");
  expect(toolMessage?.content.length).toBeLessThan(31_000);
  expect(world.model.requests.map((request) => request.expectationError)).toEqual([undefined, undefined]);
  expect(highestRss).toBeLessThan(300);
});

it("a client that stops reading is disconnected past its budget; the runtime and another client carry on", { timeout: 90_000 }, async () => {
  world = await startWorld(["slow-client-flood", "plain-reply"]);
  const server = await startTcpRuntime(
    { ...world.env, TANDEM_CLIENT_DROP_PROGRESS_BYTES: String(64 * 1024), TANDEM_CLIENT_DISCONNECT_BYTES: String(1024 * 1024) },
    { args: ["--log-level", "warning"] },
  );
  servers.push(server);
  const rss = sampleRss(server.child.pid);

  const slow = await server.connect();
  sockets.push(slow);
  const { sessionId: slowSession } = (await slow.request("session.create", {})).result as { sessionId: string };
  await slow.request("session.send", { sessionId: slowSession, prompt: "Flood and talk" });
  await approveNext(slow, slowSession);
  slow.pause();

  // While the first client reads nothing, a second one works normally.
  const other = await server.connect();
  sockets.push(other);
  const { sessionId } = (await other.request("session.create", {})).result as { sessionId: string };
  await other.request("session.send", { sessionId, prompt: "Hello" });
  const firstIdle = await other.waitFor(isEvent("session.idle"), 30_000);

  // The flood times out, the model answers with 8 MB the stalled client cannot take: it is let go.
  const start = Date.now();
  while (!/disconnected: it left \d+ bytes unread/.test(server.stderr)) {
    if (Date.now() - start > 45_000) throw new Error(`the stalled client was not disconnected; stderr:\n${server.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  slow.resume();
  await slow.closed;
  expect(slow.received.some(isEvent("session.idle"))).toBe(false);

  // The runtime is alive, its memory bounded, and the other client still works.
  expect(server.child.exitCode).toBeNull();
  await other.request("session.send", { sessionId, prompt: "Again" });
  await other.waitFor((message) => isEvent("session.idle")(message) && message !== firstIdle, 30_000);
  expect(rss.stop()).toBeLessThan(300);
});

it("a 50 MB custom-tool result reaches the model cut in the middle, with a bounded copy in the event", { timeout: 60_000 }, async () => {
  world = await startWorld(["big-tool-result"]);
  const client = start();
  const tool = { name: "dump_table", description: "Dumps a table", parameters: { type: "object", properties: { table: { type: "string" } } } };
  const { sessionId } = (await client.request("session.create", { tools: [tool] })).result as { sessionId: string };
  await client.request("session.send", { sessionId, prompt: "Dump the events table" });
  await approveNext(client, sessionId);
  const requested = eventOf(await client.waitFor(isEvent("external_tool.requested")));
  const line = "row 0123456789 abcdefghijklmnopqrstuvwxyz\n";
  const huge = line.repeat(Math.ceil(50_000_000 / line.length));
  const answered = await client.request("session.tools.handlePendingToolCall", { sessionId, requestId: requested.data.requestId, result: huge });
  expect(answered.result).toEqual({ success: true });
  const complete = eventOf(await client.waitFor(isEvent("tool.execution_complete"), 30_000));
  await client.waitFor(isEvent("session.idle"), 30_000);

  const toolMessage = (world.model.requests[1]?.body as { messages: Array<{ role: string; content: string }> }).messages.at(-1);
  expect(toolMessage?.role).toBe("tool");
  expect(toolMessage?.content.length).toBeLessThan(31_000);
  expect(toolMessage?.content).toMatch(/\[Output truncated: \d+ characters \(\d+ lines\) omitted from the middle\./);
  expect(toolMessage?.content.startsWith(line)).toBe(true);
  expect(toolMessage?.content.endsWith(line)).toBe(true);
  const result = complete.data.result as { content: string; detailedContent: string };
  expect(result.content).toBe(toolMessage?.content);
  expect(result.detailedContent.length).toBeLessThan(270_000);
  expect(world.model.requests[1]?.expectationError).toBeUndefined();
});

it("a prompt at the size limit (4 Mi characters) is stored once in events.jsonl, and the session resumes with it", { timeout: 90_000 }, async () => {
  world = await startWorld(["plain-reply"]);
  const first = start();
  const { sessionId } = (await first.request("session.create", {})).result as { sessionId: string };
  const prompt = `Summarise this: ${"lorem ipsum dolor sit amet ".repeat(Math.floor((4 * 1024 * 1024 - 16) / 27))}`;
  await first.request("session.send", { sessionId, prompt });
  await first.waitFor(isEvent("session.idle"), 60_000);
  const sent = (world.model.requests[0]?.body as { messages: Array<{ role: string; content: string }> }).messages[1];
  expect(sent?.content).toMatch(/^<current_datetime>.+<\/current_datetime>\n\nSummarise this: lorem ipsum/);
  expect(sent?.content.endsWith(prompt)).toBe(true);
  await first.close();

  const eventsPath = join(world.home, "session-state", sessionId, "events.jsonl");
  const size = statSync(eventsPath).size;
  expect(size).toBeGreaterThan(prompt.length);
  expect(size).toBeLessThan(prompt.length * 1.1);
  const workspace = readFileSync(join(world.home, "session-state", sessionId, "workspace.yaml"), "utf8");
  expect(workspace.length).toBeLessThan(10_000);

  const second = start();
  // Without compaction: the resent history holds the whole prompt (an infinite session would summarize it).
  expect((await second.request("session.resume", { sessionId, infiniteSessions: { enabled: false } })).error).toBeUndefined();
  const { events } = (await second.request("session.getMessages", { sessionId })).result as { events: Event[] };
  const user = events.find((event) => event.type === "user.message");
  expect(user?.data.content).toBe(prompt);
  await second.request("session.send", { sessionId, prompt: "And now?" });
  await second.waitFor(isEvent("session.idle"), 60_000);
  const resent = (world.model.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> }).messages;
  expect(resent.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
  expect(resent[1]?.content).toBe(sent?.content);
});
