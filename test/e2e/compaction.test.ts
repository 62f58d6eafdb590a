/**
 * Infinite sessions over the real runtime and a scripted model with a 4k-token window: background
 * compaction keeps a 200-turn tool session inside the window, summaries reach the model and the
 * checkpoint files, `enabled: false` compacts nothing, manual compaction, failing and hanging
 * summary calls, resume after compaction and SIGKILL during one.
 */
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient, approveAll, type SessionEvent } from "@github/copilot-sdk";
import { defaultModels, ModelServer, type Script } from "@tandem/testkit";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { scriptsDir, tandemBin, waitFor } from "../helpers/harness.js";
import { startSuitePostgres, storeVariants } from "../helpers/stores.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";

const windowTokens = 4096;
const summaryPhrase = "Write a detailed summary of the conversation so far";

interface World {
  model: ModelServer;
  home: string;
  env: Record<string, string>;
}
let world: World | undefined;
const clients: CopilotClient[] = [];
const rawClients: RawClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop();
  for (const client of rawClients.splice(0)) await client.close(true);
  await world?.model.stop();
  if (world) rmSync(world.home, { recursive: true, force: true });
  world = undefined;
});

/** A model server listing `tiny-4k` (a 4,096-token window, 512 of them for output) and a state folder. */
async function startTinyWorld(script: string | Script, extraEnv: Record<string, string> = {}): Promise<World> {
  const model = new ModelServer({ models: [...defaultModels(), { id: "tiny-4k", maxContextWindowTokens: windowTokens, maxOutputTokens: 512 }] });
  if (typeof script === "string") model.loadScriptFile(join(scriptsDir, `${script}.yaml`));
  else model.addScript(script);
  const { url } = await model.start();
  const home = mkdtempSync(join(tmpdir(), "tandem-compaction-"));
  const env = { PATH: process.env.PATH ?? "", HOME: home, COPILOT_HOME: home, COPILOT_API_URL: url, GH_TOKEN: "test-token", TANDEM_RETRY_BASE_MS: "10", ...extraEnv };
  world = { model, home, env };
  return world;
}

function client(): CopilotClient {
  if (!world) throw new Error("start the world first");
  const made = new CopilotClient({ cliPath: tandemBin, env: world.env, logLevel: "error" });
  clients.push(made);
  return made;
}

let chunkNumber = 0;
/** A tool whose results fill the window: ~60 tokens each. */
const readChunk = {
  name: "read_chunk",
  description: "Reads the next chunk of the input.",
  parameters: { type: "object", properties: { part: { type: "string" } } },
  handler: () => `chunk ${++chunkNumber}: the quick brown fox jumps over the lazy dog while counting ${chunkNumber * 7} sheep in field ${chunkNumber % 13}.`,
};

/** A session on `tiny-4k`; the client reads the model list first (as apps do), which tells the runtime the window. */
async function tinySession(extra: Record<string, unknown> = {}) {
  const made = client();
  await made.start();
  await made.listModels();
  return made.createSession({
    model: "tiny-4k",
    onPermissionRequest: approveAll,
    tools: [readChunk],
    availableTools: ["read_chunk"],
    systemMessage: { mode: "replace", content: "You are a test agent. Use read_chunk." },
    ...extra,
  });
}

interface ChatBody {
  messages: Array<{ role: string; content: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string }>;
  tools?: unknown[];
}

/** How many of the loop's requests the model server received after the first summary request. */
function loopRequestsAfterSummary(): number {
  const requests = world?.model.requests ?? [];
  const summaryAt = requests.findIndex((request) => request.stepIndex !== undefined && request.stepIndex < 0);
  if (summaryAt < 0) return 0;
  return requests.slice(summaryAt + 1).filter((request) => request.stepIndex !== undefined && request.stepIndex >= 0).length;
}

/** The chat requests that are not summary calls. */
function loopRequests(): ChatBody[] {
  return (world?.model.requests ?? [])
    .filter((request) => request.path.endsWith("/chat/completions"))
    .map((request) => request.body as ChatBody)
    .filter((body) => !body.messages.some((message) => message.content?.includes(summaryPhrase)));
}

/** A request's size by a real tokenizer (o200k): every message's text, tool calls and the tool definitions. */
function realTokens(body: ChatBody): number {
  let tokens = body.tools ? countTokens(JSON.stringify(body.tools)) : 0;
  for (const message of body.messages) {
    tokens += 4 + countTokens(message.content ?? "");
    for (const call of message.tool_calls ?? []) tokens += 4 + countTokens(call.function.name) + countTokens(call.function.arguments);
  }
  return tokens;
}

/** Every tool result in a request follows the assistant message that called it. */
function toolCallsPaired(body: ChatBody): boolean {
  const called = new Set<string>();
  for (const message of body.messages) {
    for (const call of message.tool_calls ?? []) called.add(call.id);
    if (message.role === "tool" && !called.has(message.tool_call_id ?? "")) return false;
  }
  return true;
}

const ofType = <T extends SessionEvent["type"]>(events: SessionEvent[], type: T) => events.filter((event): event is Extract<SessionEvent, { type: T }> => event.type === type);

it("completes a 200-turn tool session under a 4k-token window: background compaction, summaries reach the model, checkpoints on disk", async () => {
  await startTinyWorld("compaction-loop");
  const session = await tinySession();
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  const answer = await session.sendAndWait({ prompt: "loop-200: read all 200 chunks" }, 240_000);
  expect(answer?.data.content).toBe("All 200 chunks read: done.");

  const requests = loopRequests();
  expect(requests).toHaveLength(201);
  const largest = Math.max(...requests.map(realTokens));
  expect(largest).toBeLessThanOrEqual(windowTokens);
  expect(requests.every(toolCallsPaired)).toBe(true);

  // A background compaction that started late in the turn may finish after session.idle.
  await waitFor(() => ofType(events, "session.compaction_start").length === ofType(events, "session.compaction_complete").length, "the last background compaction");
  const starts = ofType(events, "session.compaction_start");
  const completes = ofType(events, "session.compaction_complete");
  expect(completes.length).toBeGreaterThanOrEqual(5);
  expect(starts).toHaveLength(completes.length);
  expect(starts.every((event) => Object.keys(event.data).length === 0)).toBe(true);
  completes.forEach((event, index) => {
    expect(event.data).toMatchObject({ success: true, checkpointNumber: index + 1, summaryContent: expect.stringMatching(/^SUMMARY-\d+\./) });
    const data = event.data;
    expect(data.preCompactionTokens! - data.postCompactionTokens!).toBe(data.tokensRemoved);
    expect(data.messagesRemoved).toBeGreaterThan(0);
    expect(data.preCompactionMessagesLength).toBeGreaterThan(data.messagesRemoved!);
    expect(data.compactionTokensUsed).toMatchObject({ input: expect.any(Number), output: expect.any(Number), cachedInput: 0 });
    expect(data.checkpointPath).toMatch(new RegExp(`checkpoints/${String(index + 1).padStart(3, "0")}-loop-200-read-all-200-chunks\\.md$`));
    expect(readFileSync(data.checkpointPath!, "utf8")).toContain(data.summaryContent!);
  });
  const index = readFileSync(join(completes[0]!.data.checkpointPath!, "..", "index.md"), "utf8");
  expect(index.match(/^- \[\d{3}\]/gm)).toHaveLength(completes.length);

  // The summary reaches the model, with the original request kept verbatim, as the first message after the system prompt.
  const first = completes[0]!.data.summaryContent!;
  const after = requests.find((body) => body.messages.some((message) => message.content?.includes(first)));
  expect(after?.messages[1]?.role).toBe("user");
  expect(after?.messages[1]?.content).toContain("loop-200: read all 200 chunks");
  expect(after?.messages[1]?.content).toContain(first);

  // usage_info stays true after a compaction: the next one reports the compacted size.
  const firstComplete = events.indexOf(completes[0]!);
  const usage = events.slice(firstComplete).find((event) => event.type === "session.usage_info") as Extract<SessionEvent, { type: "session.usage_info" }>;
  expect(usage.data).toMatchObject({ tokenLimit: windowTokens - 512, currentTokens: completes[0]!.data.postCompactionTokens });
}, 300_000);

it("with enabled: false never compacts and emits no compaction event", async () => {
  await startTinyWorld("compaction-short");
  const session = await tinySession({ infiniteSessions: { enabled: false } });
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  await session.sendAndWait({ prompt: "read 40 chunks" }, 60_000);
  expect(events.filter((event) => event.type.startsWith("session.compaction"))).toEqual([]);
  // Nothing was removed: the last request holds every turn (the scripted model has no limit).
  expect(loopRequests().at(-1)?.messages.filter((message) => message.role === "tool")).toHaveLength(40);
}, 120_000);

it("compacts on demand with session.compaction.compact and answers numbers", async () => {
  await startTinyWorld("compaction-short");
  const session = await tinySession({ model: "gpt-4.1" });
  await session.sendAndWait({ prompt: "read 40 chunks" }, 60_000);
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  const result = await session.rpc.compaction.compact();
  expect(result).toEqual({ success: true, tokensRemoved: expect.any(Number), messagesRemoved: expect.any(Number) });
  expect(result.messagesRemoved).toBeGreaterThan(0);
  expect(result.tokensRemoved).toBeGreaterThan(0);
  const complete = ofType(events, "session.compaction_complete")[0];
  expect(complete?.data).toMatchObject({ success: true, tokensRemoved: result.tokensRemoved, messagesRemoved: result.messagesRemoved, checkpointNumber: 1 });
}, 120_000);

function shortScript(summary: Script["byContent"]): Script {
  return {
    name: "compaction-failing",
    sequential: true,
    byContent: summary,
    steps: [
      { times: 80, reply: { content: "Reading the next chunk.", toolCalls: [{ name: "read_chunk", arguments: { part: "next" } }] } },
      { reply: { content: "All chunks read: done." } },
    ],
  };
}

it("reports a summary call that keeps failing (HTTP 500) once, and the session keeps working", async () => {
  await startTinyWorld(shortScript([{ contains: summaryPhrase, error: { status: 500, message: "summarizer down", times: 4 }, reply: { content: "SUMMARY-{{hit}}. Task: read 40 chunks." } }]));
  const session = await tinySession();
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  const answer = await session.sendAndWait({ prompt: "read 80 chunks" }, 60_000);
  expect(answer?.data.content).toBe("All chunks read: done.");
  const completes = ofType(events, "session.compaction_complete");
  const failures = completes.filter((event) => !event.data.success);
  expect(failures).toHaveLength(1);
  expect(failures[0]?.data.error).toContain("summarizer down");
  expect(completes.some((event) => event.data.success)).toBe(true);
  expect(ofType(events, "session.error")).toEqual([]);
}, 120_000);

it("reports a summary call that hangs as timed out, once, and the session keeps working", async () => {
  await startTinyWorld(shortScript([{ contains: summaryPhrase, hang: true, hangTimes: 1, reply: { content: "SUMMARY-{{hit}}. Task: read 40 chunks." } }]), { TANDEM_COMPACTION_TIMEOUT_MS: "300" });
  const session = await tinySession();
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  const answer = await session.sendAndWait({ prompt: "read 80 chunks" }, 60_000);
  expect(answer?.data.content).toBe("All chunks read: done.");
  const failures = ofType(events, "session.compaction_complete").filter((event) => !event.data.success);
  expect(failures).toHaveLength(1);
  expect(failures[0]?.data.error).toMatch(/timed out/);
}, 120_000);

it("resumes a compacted session from its compacted history; getMessages still returns every event", async () => {
  await startTinyWorld("compaction-short");
  const first = await tinySession();
  const sessionId = first.sessionId;
  await first.sendAndWait({ prompt: "read 40 chunks" }, 60_000);
  const before = loopRequests().at(-1)!;
  await clients[0]!.stop();
  clients.length = 0;

  const resumer = client();
  await resumer.start();
  await resumer.listModels();
  const resumed = await resumer.resumeSession(sessionId, {
    onPermissionRequest: approveAll,
    tools: [readChunk],
    model: "tiny-4k",
    availableTools: ["read_chunk"],
    systemMessage: { mode: "replace", content: "You are a test agent. Use read_chunk." },
  });
  const events: SessionEvent[] = [];
  resumed.on((event) => events.push(event));
  const all = await resumed.getMessages();
  expect(all.filter((event) => event.type === "tool.execution_complete")).toHaveLength(40);
  const compactions = all.filter((event) => event.type === "session.compaction_complete");
  expect(compactions.length).toBeGreaterThan(0);

  await resumed.sendAndWait({ prompt: "continue please" }, 30_000);
  const after = loopRequests().at(-1)!;
  // The resumed request is the history as the last compaction left it (one may have finished in the
  // background after the last request): its summary, the turns it kept, the last answer, the new prompt.
  // (A compaction still running when the first client left was abandoned; the resumed session may compact again before its call.)
  const allCompactions = [...compactions, ...ofType(events, "session.compaction_complete")] as Array<Extract<SessionEvent, { type: "session.compaction_complete" }>>;
  const last = allCompactions.at(-1)!;
  expect(after.messages[1]?.content).toContain(`<conversation_summary checkpoint="${last.data.checkpointNumber}">`);
  expect(after.messages[1]?.content).toContain(last.data.summaryContent);
  const kept = after.messages.slice(2, -1).map((message) => message.content);
  expect(kept.length).toBeGreaterThan(0);
  expect([...before.messages.slice(1).map((message) => message.content), "All chunks read: done."].slice(-kept.length)).toEqual(kept);
  expect(after.messages.at(-1)?.content).toContain("continue please");
  expect(after.messages.filter((message) => message.role === "tool").length).toBeLessThan(40);
}, 120_000);

it("a resumed compacted session reads only the events after its last compaction (resume-point.json)", async () => {
  await startTinyWorld("compaction-short");
  const first = await tinySession();
  const sessionId = first.sessionId;
  await first.sendAndWait({ prompt: "read 40 chunks" }, 60_000);
  const before = loopRequests().at(-1)!;
  // Answered once the session is released, so once its last resume point is written.
  await first.destroy();
  await clients[0]!.stop();
  clients.length = 0;

  const dir = join(world!.home, "session-state", sessionId);
  const eventsPath = join(dir, "events.jsonl");
  const point = JSON.parse(readFileSync(join(dir, "resume-point.json"), "utf8")) as { lineStart: number; offset: number; eventId: string };
  const original = readFileSync(eventsPath);
  const eventCount = original.toString("utf8").trim().split("\n").length;
  expect(JSON.parse(original.toString("utf8", point.lineStart, point.offset - 1))).toMatchObject({ id: point.eventId, type: "session.compaction_complete" });
  // Everything before the last compaction becomes blank lines: only a resume that never reads it
  // still knows the task and the turns the compaction kept.
  writeFileSync(eventsPath, Buffer.concat([Buffer.alloc(point.lineStart - 1, 0x20), original.subarray(point.lineStart - 1)]));
  expect(readFileSync(eventsPath).length).toBe(original.length);

  const resumer = client();
  await resumer.start();
  await resumer.listModels();
  const resumed = await resumer.resumeSession(sessionId, {
    onPermissionRequest: approveAll,
    tools: [readChunk],
    model: "tiny-4k",
    availableTools: ["read_chunk"],
    systemMessage: { mode: "replace", content: "You are a test agent. Use read_chunk." },
    infiniteSessions: { enabled: false },
  });
  // The head is put back for getMessages, which reads the whole file (in place: the runtime is appending).
  const handle = openSync(eventsPath, "r+");
  writeSync(handle, original, 0, point.lineStart, 0);
  closeSync(handle);
  await resumed.sendAndWait({ prompt: "continue please" }, 30_000);
  const after = loopRequests().at(-1)!;
  // Resumed without automatic compaction: the request is the history the last compaction left.
  const compaction = JSON.parse(original.toString("utf8", point.lineStart, point.offset - 1)) as { data: { checkpointNumber: number } };
  expect(after.messages[1]?.content).toContain(`<conversation_summary checkpoint="${compaction.data.checkpointNumber}">`);
  expect(after.messages[1]?.content).toMatch(/<original_request>[^]*read 40 chunks\n<\/original_request>/);
  const kept = after.messages.slice(2, -1).map((message) => message.content);
  expect(kept.length).toBeGreaterThan(0);
  expect([...before.messages.slice(1).map((message) => message.content), "All chunks read: done."].slice(-kept.length)).toEqual(kept);
  const all = await resumed.getMessages();
  expect(all.filter((event) => event.type === "tool.execution_complete")).toHaveLength(40);
  expect(all.find((event) => event.type === "session.resume")?.data).toMatchObject({ eventCount });
}, 120_000);

const postgres = storeVariants(await startSuitePostgres());
afterAll(() => postgres.stop());

describe.skipIf(postgres.variants[1]!.skipped)("on the PostgreSQL store", () => {
  it("checkpoints and the resume point are session files in the database; a resume in a new runtime reads only the events after the point", async () => {
    await startTinyWorld("compaction-short", await postgres.variants[1]!.env());
    const first = await tinySession();
    const sessionId = first.sessionId;
    await first.sendAndWait({ prompt: "read 40 chunks" }, 60_000);
    const before = loopRequests().at(-1)!;
    await first.destroy();
    await clients[0]!.stop();
    clients.length = 0;

    const files = await postgres.query<{ name: string; content: string }>("SELECT name, content FROM session_files WHERE session_id = $1 ORDER BY name", [sessionId]);
    const names = files.map((file) => file.name);
    expect(names).toContain("checkpoints/index.md");
    expect(names.some((name) => /^checkpoints\/001-read-40-chunks\.md$/.test(name))).toBe(true);
    const point = JSON.parse(files.find((file) => file.name === "resume-point.json")!.content) as { lineStart: number; offset: number; eventId: string };
    // Positions are sequence numbers: the point is right after the compaction's row.
    expect(point.offset).toBe(point.lineStart + 1);
    expect(await postgres.query("SELECT type, event_id FROM events WHERE session_id = $1 AND seq = $2", [sessionId, point.offset])).toEqual([{ type: "session.compaction_complete", event_id: point.eventId }]);
    // Everything before the compaction becomes an unrelated event: only a resume that never reads
    // it still knows the task and the turns the compaction kept.
    const head = await postgres.query<{ seq: string; body: string }>("SELECT seq, body::text AS body FROM events WHERE session_id = $1 AND seq <= $2", [sessionId, point.lineStart]);
    await postgres.query(`UPDATE events SET body = '{"type":"session.info","data":{"infoType":"test","message":"blank"},"id":"blank","timestamp":"2026-01-01T00:00:00.000Z","parentId":null}' WHERE session_id = $1 AND seq <= $2`, [sessionId, point.lineStart]);

    const resumer = client();
    await resumer.start();
    await resumer.listModels();
    const resumed = await resumer.resumeSession(sessionId, {
      onPermissionRequest: approveAll,
      tools: [readChunk],
      model: "tiny-4k",
      availableTools: ["read_chunk"],
      systemMessage: { mode: "replace", content: "You are a test agent. Use read_chunk." },
      infiniteSessions: { enabled: false },
    });
    for (const row of head) await postgres.query("UPDATE events SET body = $3::json WHERE session_id = $1 AND seq = $2", [sessionId, row.seq, row.body]);
    await resumed.sendAndWait({ prompt: "continue please" }, 30_000);
    const after = loopRequests().at(-1)!;
    expect(after.messages[1]?.content).toMatch(/<conversation_summary checkpoint="\d+">/);
    expect(after.messages[1]?.content).toMatch(/<original_request>[^]*read 40 chunks\n<\/original_request>/);
    const kept = after.messages.slice(2, -1).map((message) => message.content);
    expect(kept.length).toBeGreaterThan(0);
    expect([...before.messages.slice(1).map((message) => message.content), "All chunks read: done."].slice(-kept.length)).toEqual(kept);
    const all = await resumed.getMessages();
    expect(all.filter((event) => event.type === "tool.execution_complete")).toHaveLength(40);
  }, 120_000);
});

const overflow = { status: 400, type: "invalid_request_error", message: "This model's maximum context length is 3000 tokens. However, your messages resulted in 3200 tokens." };

function overflowScript(times: number | undefined): Script {
  return {
    name: "compaction-overflow",
    sequential: true,
    byContent: [{ contains: summaryPhrase, reply: { content: "SUMMARY-{{hit}}. Task: read chunks." } }],
    steps: [
      { times: 12, reply: { content: "Reading the next chunk.", toolCalls: [{ name: "read_chunk", arguments: { part: "next" } }] } },
      { error: { ...overflow, ...(times ? { times } : {}) }, reply: { content: "Answered after compacting." } },
    ],
  };
}

it("a context-length refusal compacts and retries the call once (window unknown to the session)", async () => {
  await startTinyWorld(overflowScript(1));
  // No models.list: the session assumes 128,000 tokens until the provider refuses.
  const session = await client().createSession({ model: "tiny-4k", onPermissionRequest: approveAll, tools: [readChunk], availableTools: ["read_chunk"] });
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  const answer = await session.sendAndWait({ prompt: "read chunks" }, 60_000);
  expect(answer?.data.content).toBe("Answered after compacting.");
  expect(ofType(events, "session.compaction_complete").map((event) => event.data.success)).toEqual([true]);
  expect(ofType(events, "session.error")).toEqual([]);
  const retried = loopRequests().at(-1)!;
  expect(retried.messages[1]?.content).toContain("SUMMARY-1");
  // The refusal taught a limit: at most the one it named (lower when the estimate of what was sent is).
  expect(ofType(events, "session.usage_info").at(-1)?.data.tokenLimit).toBeLessThanOrEqual(3000);
}, 60_000);

it("a refusal that compaction cannot cure ends the turn with one typed session.error, no loop", async () => {
  await startTinyWorld(overflowScript(undefined));
  const session = await client().createSession({ model: "tiny-4k", onPermissionRequest: approveAll, tools: [readChunk], availableTools: ["read_chunk"] });
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  await session.send({ prompt: "read chunks" });
  await waitFor(() => events.some((event) => event.type === "session.idle"), "idle", 30_000);
  const errors = ofType(events, "session.error");
  expect(errors).toHaveLength(1);
  expect(errors[0]?.data.errorType).toBe("context_length");
  expect(world!.model.requests.filter((request) => request.outcome === "error")).toHaveLength(2);
  expect(ofType(events, "session.compaction_complete")).toHaveLength(1);
}, 60_000);

const isEvent = (type: string) => (message: WireMessage) =>
  message.method === "session.event" && (message.params as { event: { type: string } }).event.type === type;

it("a runtime killed (SIGKILL) during a compaction leaves the session usable with its old history", async () => {
  const script: Script = {
    name: "compaction-kill",
    sequential: true,
    byContent: [{ contains: summaryPhrase, hang: true }],
    steps: [
      { times: 60, reply: { content: "Listing.", toolCalls: [{ name: "glob", arguments: { pattern: "*.none" } }] } },
      { reply: { content: "Resumed fine." } },
    ],
  };
  await startTinyWorld(script);
  const raw = new RawClient(world!.env);
  rawClients.push(raw);
  const config = { model: "tiny-4k", availableTools: ["glob"], requestPermission: false, systemMessage: { mode: "replace", content: "Test agent." }, workingDirectory: world!.home };
  await raw.request("models.list", {});
  const { sessionId } = (await raw.request("session.create", config)).result as { sessionId: string };
  await raw.request("session.send", { sessionId, prompt: "list files many times" });
  await raw.waitFor(isEvent("session.compaction_start"), 60_000);
  // The summary call hangs; the loop runs on until the exhaustion threshold makes it wait.
  await waitFor(() => world?.model.requests.some((request) => request.stepIndex === -1) === true, "the summary call");
  // Killed once the loop has gone on beside the hanging summary: the model server received two of
  // the loop's requests after the summary call, so a whole tool round ran between them. Judged by
  // the order the server received them, not by what this test had seen when it noticed the
  // summary call: the loop may reach the exhaustion threshold a few milliseconds after it.
  await waitFor(() => loopRequestsAfterSummary() >= 2, "a tool round beside the compaction");
  await raw.close(true);
  rawClients.length = 0;
  const sent = loopRequests().length;

  const second = new RawClient(world!.env);
  rawClients.push(second);
  // Resumed without automatic compaction, so the first request shows the history as rebuilt.
  await second.request("models.list", {});
  await second.request("session.resume", { sessionId, ...config, infiniteSessions: { enabled: false } });
  const { events } = (await second.request("session.getMessages", { sessionId })).result as { events: Array<{ type: string }> };
  expect(events.some((event) => event.type === "session.compaction_start")).toBe(true);
  expect(events.some((event) => event.type === "session.compaction_complete")).toBe(false);
  const checkpoints = join(world!.home, "session-state", sessionId, "checkpoints");
  expect(existsSync(join(checkpoints, "index.md"))).toBe(false);

  await second.request("session.send", { sessionId, prompt: "go on" });
  await waitFor(() => loopRequests().length > sent, "the first request after the resume");
  const rebuilt = loopRequests()[sent]!;
  expect(rebuilt.messages.some((message) => message.content?.includes("<conversation_summary"))).toBe(false);
  // Every tool call of the rebuilt history has exactly one result: the stored completions, and an
  // interrupted result for a call the kill cut short.
  const callIds = rebuilt.messages.flatMap((message) => message.tool_calls?.map((call) => call.id) ?? []);
  const resultIds = rebuilt.messages.filter((message) => message.role === "tool").map((message) => message.tool_call_id);
  expect([...resultIds].sort()).toEqual([...callIds].sort());
  expect(resultIds.length).toBeGreaterThanOrEqual(events.filter((event) => event.type === "tool.execution_complete").length);
  expect(rebuilt.messages.at(-1)?.content).toContain("go on");
  expect(rebuilt.messages.every((message, index) => index === 0 || message.role !== "system")).toBe(true);
  await second.request("session.abort", { sessionId });
}, 120_000);

it("a runtime killed (SIGKILL) right after a compaction, its resume point maybe unwritten, resumes with the compacted history", async () => {
  const script: Script = {
    name: "compaction-kill-after",
    sequential: true,
    byContent: [{ contains: summaryPhrase, reply: { content: "SUMMARY-{{hit}}. Task: list files many times." } }],
    steps: [
      { times: 60, reply: { content: "Listing.", toolCalls: [{ name: "glob", arguments: { pattern: "*.none" } }] } },
      { reply: { content: "Resumed fine." } },
    ],
  };
  await startTinyWorld(script);
  const raw = new RawClient(world!.env);
  rawClients.push(raw);
  const config = { model: "tiny-4k", availableTools: ["glob"], requestPermission: false, systemMessage: { mode: "replace", content: "Test agent." }, workingDirectory: world!.home };
  await raw.request("models.list", {});
  const { sessionId } = (await raw.request("session.create", config)).result as { sessionId: string };
  await raw.request("session.send", { sessionId, prompt: "list files many times" });
  const completed = await raw.waitFor(isEvent("session.compaction_complete"), 60_000);
  const completedId = (completed.params as { event: { id: string } }).event.id;
  const eventsPath = join(world!.home, "session-state", sessionId, "events.jsonl");
  // Killed as soon as the compaction's line is on disk: its resume point may or may not be written yet.
  await waitFor(() => existsSync(eventsPath) && readFileSync(eventsPath, "utf8").includes(completedId), "the compaction's line", 10_000);
  await raw.close(true);
  rawClients.length = 0;
  const sent = loopRequests().length;
  // Every complete line (the kill may have torn the last one).
  const lines = readFileSync(eventsPath, "utf8").split("\n").slice(0, -1);
  const compactions = lines.map((line) => JSON.parse(line) as { type: string; data: { success?: boolean; checkpointNumber?: number } }).filter((event) => event.type === "session.compaction_complete" && event.data.success);
  expect(compactions.length).toBeGreaterThan(0);

  const second = new RawClient(world!.env);
  rawClients.push(second);
  await second.request("models.list", {});
  await second.request("session.resume", { sessionId, ...config, infiniteSessions: { enabled: false } });
  const { events } = (await second.request("session.getMessages", { sessionId })).result as { events: Array<{ type: string; data: { eventCount?: number } }> };
  expect(events.find((event) => event.type === "session.resume")?.data.eventCount).toBe(lines.length);
  await second.request("session.send", { sessionId, prompt: "go on" });
  await waitFor(() => loopRequests().length > sent, "the first request after the resume");
  const rebuilt = loopRequests()[sent]!;
  expect(rebuilt.messages[1]?.content).toContain(`<conversation_summary checkpoint="${compactions.at(-1)!.data.checkpointNumber}">`);
  expect(toolCallsPaired(rebuilt)).toBe(true);
  expect(rebuilt.messages.at(-1)?.content).toContain("go on");
  await second.request("session.abort", { sessionId });
}, 120_000);
