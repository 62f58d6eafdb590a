/**
 * No session is lost on a crash: the runtime is killed with SIGKILL (mid-turn, and after a turn),
 * the events file may end in a torn line, and a new runtime resumes with the history intact.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { openFiles } from "../helpers/proc.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";

let world: TestWorld | undefined;
const clients: RawClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close(true);
  await world?.dispose();
});

function start(): RawClient {
  if (!world) throw new Error("no world");
  const client = new RawClient(world.env);
  clients.push(client);
  return client;
}

const weatherTool = { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } };
const isEvent = (type: string) => (message: WireMessage) =>
  message.method === "session.event" && (message.params as { event: { type: string } }).event.type === type;

it("resumes after SIGKILL in the middle of a tool call; the dangling call reads as interrupted", async () => {
  world = await startWorld(["custom-tool"]);
  const first = start();
  const { sessionId } = (await first.request("session.create", { tools: [weatherTool], requestPermission: true })).result as { sessionId: string };
  await first.request("session.send", { sessionId, prompt: "Weather in Paris?" });
  const permission = await first.waitFor(isEvent("permission.requested"));
  const { requestId } = (permission.params as { event: { data: { requestId: string } } }).event.data;
  await first.request("session.permissions.handlePendingPermissionRequest", { sessionId, requestId, result: { kind: "approved" } });
  await first.waitFor(isEvent("external_tool.requested"));
  // Killed once the call's start is on disk: what resume must find is there, the call's end is not.
  const eventsFile = join(world.home, "session-state", sessionId, "events.jsonl");
  await waitFor(() => existsSync(eventsFile) && readFileSync(eventsFile, "utf8").includes('"type":"tool.execution_start"'), "the call's start on disk");
  await first.close(true);

  const second = start();
  const resumed = await second.request("session.resume", { sessionId, tools: [weatherTool] });
  expect(resumed.result).toMatchObject({ sessionId });
  const { events } = (await second.request("session.getMessages", { sessionId })).result as { events: Array<{ type: string }> };
  const types = events.map((event) => event.type);
  expect(types).toContain("user.message");
  expect(types).toContain("tool.execution_start");
  expect(types.at(-1)).toBe("session.resume");

  await second.request("session.send", { sessionId, prompt: "Try again later" });
  await second.waitFor(isEvent("session.idle"));
  const request = world.model.requests.at(-1);
  const messages = (request?.body as { messages: Array<{ role: string; content: string; tool_call_id?: string }> }).messages;
  expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
  expect(messages[3]).toMatchObject({ tool_call_id: "call_weather_1", content: "The execution of this tool, or a previous tool was interrupted." });
});

it("skips a torn last line with a warning and resumes", async () => {
  world = await startWorld(["plain-reply"]);
  const first = start();
  const { sessionId } = (await first.request("session.create", {})).result as { sessionId: string };
  await first.request("session.send", { sessionId, prompt: "Remember 42" });
  await first.waitFor(isEvent("session.idle"));
  await first.close(true);

  const eventsPath = join(world.home, "session-state", sessionId, "events.jsonl");
  const before = readFileSync(eventsPath, "utf8").trim().split("\n");
  expect(before.some((line) => JSON.parse(line).type === "assistant.message")).toBe(true);
  appendFileSync(eventsPath, '{"type":"assistant.message","data":{"content":"half a li');

  const second = start();
  const resumed = await second.request("session.resume", { sessionId });
  expect(resumed.error).toBeUndefined();
  const { events } = (await second.request("session.getMessages", { sessionId })).result as { events: Array<{ type: string }> };
  expect(events).toHaveLength(before.length + 1);
  expect(second.stderr).toMatch(/unreadable line/);
  await second.request("session.send", { sessionId, prompt: "What was it?" });
  await second.waitFor(isEvent("session.idle"));
  const messages = (world.model.requests.at(-1)?.body as { messages: Array<{ role: string }> }).messages;
  expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
  // The torn line was cut before the first append, not left in the middle with events glued on.
  await second.close(true);
  const after = readFileSync(eventsPath, "utf8");
  expect(after.endsWith("\n")).toBe(true);
  const types = after.trimEnd().split("\n").map((line) => (JSON.parse(line) as { type: string }).type);
  expect(types.slice(0, before.length)).toEqual(before.map((line) => JSON.parse(line).type));
  expect(types).toContain("session.resume");
  expect(types.filter((type) => type === "user.message")).toHaveLength(2);
});

it("releases the events file of every destroyed or deleted session", async () => {
  world = await startWorld(["plain-reply"]);
  const client = start();
  const openEventFiles = (): number => openFiles(client.child.pid as number).filter((target) => target.endsWith("events.jsonl")).length;
  const ids: string[] = [];
  for (let index = 0; index < 3; index++) {
    const { sessionId } = (await client.request("session.create", {})).result as { sessionId: string };
    ids.push(sessionId);
    await client.request("session.send", { sessionId, prompt: `hello ${index}` });
  }
  await client.waitFor(() => client.received.filter(isEvent("session.idle")).length === 3);
  expect(openEventFiles()).toBe(3);
  await client.request("session.destroy", { sessionId: ids[0] });
  await client.request("session.destroy", { sessionId: ids[1] });
  expect((await client.request("session.delete", { sessionId: ids[2] })).result).toEqual({ success: true });
  expect(openEventFiles()).toBe(0);
  // A destroyed session is still on disk and resumes with a fresh file handle.
  expect((await client.request("session.resume", { sessionId: ids[0] })).error).toBeUndefined();
});
