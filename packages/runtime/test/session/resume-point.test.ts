/**
 * Resume points and `getMessages` from the events file, over real files: a session's events are
 * emitted through the real emitter and events log, the real recorder writes `resume-point.json`.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionEvent } from "@tandem/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCodes } from "../../src/errors.js";
import { Logger } from "../../src/log.js";
import { EventLog, readEventsFile } from "../../src/store/event-log.js";
import { FileSessionFiles } from "../../src/store/file-session-files.js";
import { SessionEmitter } from "../../src/session/emitter.js";
import { HistoryRebuilder } from "../../src/session/history.js";
import { readResumePoint, replaySession, SessionReplay, type ResumePoint } from "../../src/session/resume-point.js";
import { ResumePointRecorder } from "../../src/session/resume-point-recorder.js";

let dir: string;
let eventsPath: string;
let pointPath: string;
const warnings: string[] = [];
const logger = new Logger("warning", (line) => warnings.push(line));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tandem-resume-point-"));
  eventsPath = join(dir, "events.jsonl");
  pointPath = join(dir, "resume-point.json");
  warnings.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A session under way: the real emitter on a real events log, with the resume-point recorder the manager attaches. */
function openSession(options: { record?: boolean } = {}) {
  const emitter = new SessionEmitter("s1", new EventLog(eventsPath, logger), null);
  const recorder = new ResumePointRecorder(emitter.log, new FileSessionFiles(dir), logger);
  if (options.record !== false) emitter.addListener((event) => recorder.observe(event));
  /** The JSON text of every persisted event, as the emitter sent it (what the old `getMessages` returned, joined). */
  const persisted: string[] = [];
  emitter.addSink({ deliverSessionEvent: (_id, json) => (JSON.parse(json).ephemeral ? undefined : persisted.push(json)) });
  const emit = (type: string, data: Record<string, unknown>) => emitter.emit(type as never, data as never) as SessionEvent;
  let call = 0;
  /** One tool turn: the user's prompt, a tool call, its result, the answer; with ephemeral events between. */
  const turn = (prompt: string) => {
    emit("user.message", { content: prompt, transformedContent: prompt });
    emit("assistant.turn_start", { turnId: String(call) });
    emit("assistant.message_delta", { messageId: `m${call}`, deltaContent: "…" });
    const toolCallId = `call-${++call}`;
    emit("assistant.message", { messageId: `m${call}`, content: `Reading ${prompt}.`, toolRequests: [{ toolCallId, name: "read", arguments: { part: prompt } }] });
    emit("tool.execution_complete", { toolCallId, success: true, result: { content: `the text of ${prompt} — ünïcödé` } });
    emit("assistant.message", { messageId: `a${call}`, content: `Done with ${prompt}.`, toolRequests: [] });
    emit("session.idle", {});
  };
  const compact = (messagesRemoved: number, number: number) =>
    emit("session.compaction_complete", { success: true, messagesRemoved, summaryContent: `SUMMARY ${number}`, checkpointNumber: number, checkpointPath: `/x/checkpoints/00${number}-task.md`, preCompactionTokens: 1, postCompactionTokens: 1, preCompactionMessagesLength: 1, tokensRemoved: 1, compactionTokensUsed: {} });
  emit("session.start", { sessionId: "s1", version: 1, producer: "tandem", startTime: "2026-01-01T00:00:00.000Z", selectedModel: "model-a", context: { cwd: "/work" } });
  return { emitter, recorder, persisted, emit, turn, compact };
}

/** The state a resume rebuilds, as comparable data. */
function resumed(replay: SessionReplay) {
  return { ...replay.history.finish(), count: replay.count, approveAll: replay.approveAll, excluded: replay.excluded.map((range) => [...range]) };
}

async function fullRead() {
  const replay = new SessionReplay(new EventLog(eventsPath, logger), logger);
  await replay.read();
  return replay;
}

/** 30 turns, a compaction, 5 more turns, a mode change and a permission change; closed. */
async function compactedSession() {
  const session = openSession();
  for (let index = 0; index < 30; index++) session.turn(`part ${index}`);
  const compaction = session.compact(100, 1);
  for (let index = 30; index < 35; index++) session.turn(`part ${index}`);
  session.emit("session.mode_changed", { previousMode: "interactive", newMode: "plan" });
  session.emit("session.permissions_changed", { mode: "allow-all" });
  await session.recorder.settled();
  await session.emitter.close();
  return { ...session, compaction };
}

describe("resume from a resume point", () => {
  it("reads only the lines after the last compaction and rebuilds exactly what a full read does", async () => {
    const { compaction } = await compactedSession();
    const point = JSON.parse(readFileSync(pointPath, "utf8")) as ResumePoint;
    expect(point.eventId).toBe(compaction.id);
    const full = resumed(await fullRead());
    expect(full.messages[0]?.content).toContain("SUMMARY 1");
    expect(full.messages[0]?.content).toContain("<original_request>\npart 0\n</original_request>");
    expect(full).toMatchObject({ model: "model-a", mode: "plan", approveAll: true, firstPrompt: "part 0", cwd: "/work" });

    const replay = await replaySession(new EventLog(eventsPath, logger), new FileSessionFiles(dir), logger);
    expect(replay.resumedFrom).toBe(point.offset);
    expect(replay.bytesRead).toBe(statSync(eventsPath).size - point.offset);
    expect(resumed(replay)).toEqual(full);

    // Proof that nothing before the point is read: the head becomes garbage (a full read would skip it and lose the task).
    const text = readFileSync(eventsPath);
    text.fill(0x78, 0, point.lineStart - 1);
    writeFileSync(eventsPath, text);
    expect(resumed(await replaySession(new EventLog(eventsPath, logger), new FileSessionFiles(dir), logger))).toEqual(full);
    expect(resumed(await fullRead()).messages[0]?.content).not.toContain("<original_request>");
  });

  it("falls back to a full read when the point is missing, torn, or does not match the file", async () => {
    await compactedSession();
    const full = resumed(await fullRead());
    const good = readFileSync(pointPath, "utf8");
    const point = JSON.parse(good) as ResumePoint;
    const variants: Array<[string, string | undefined]> = [
      ["missing", undefined],
      ["torn", good.slice(0, good.length / 2)],
      ["another event's line", JSON.stringify({ ...point, eventId: "not-this-one" })],
      ["past the end of the file", JSON.stringify({ ...point, offset: point.offset + 10_000_000 })],
      ["not at a line start", JSON.stringify({ ...point, lineStart: point.lineStart + 1 })],
      ["an older version", JSON.stringify({ ...point, version: 0 })],
    ];
    for (const [name, content] of variants) {
      rmSync(pointPath, { force: true });
      if (content !== undefined) writeFileSync(pointPath, content);
      expect(await readResumePoint(new FileSessionFiles(dir), new EventLog(eventsPath, logger)), name).toBeUndefined();
      const replay = await replaySession(new EventLog(eventsPath, logger), new FileSessionFiles(dir), logger);
      expect(replay.resumedFrom, name).toBeUndefined();
      expect(resumed(replay), name).toEqual(full);
    }
  });

  it("after a crash between a compaction's line and its point (the older point stays) resumes from the older point, correctly", async () => {
    const session = openSession();
    for (let index = 0; index < 20; index++) session.turn(`part ${index}`);
    session.compact(60, 1);
    await session.recorder.settled();
    const older = readFileSync(pointPath, "utf8");
    for (let index = 20; index < 40; index++) session.turn(`part ${index}`);
    session.compact(70, 2);
    session.turn("after");
    await session.recorder.settled();
    await session.emitter.close();
    // kill -9 after the second compaction's line was written, before its point replaced the first.
    writeFileSync(pointPath, older);
    const full = resumed(await fullRead());
    expect(full.messages[0]?.content).toContain("SUMMARY 2");
    const replay = await replaySession(new EventLog(eventsPath, logger), new FileSessionFiles(dir), logger);
    expect(replay.resumedFrom).toBe((JSON.parse(older) as ResumePoint).offset);
    expect(resumed(replay)).toEqual(full);
  });

  it("a rewind after the point to an event before it makes the resume read the whole file", async () => {
    const session = openSession();
    const start = session.emit("user.message", { content: "first", transformedContent: "first" });
    for (let index = 0; index < 10; index++) session.turn(`part ${index}`);
    session.compact(20, 1);
    session.turn("later");
    session.emit("session.snapshot_rewind", { eventsRemoved: 3, upToEventId: start.id });
    await session.recorder.settled();
    await session.emitter.close();
    expect(await readResumePoint(new FileSessionFiles(dir), new EventLog(eventsPath, logger))).toBeDefined();
    const full = resumed(await fullRead());
    const replay = await replaySession(new EventLog(eventsPath, logger), new FileSessionFiles(dir), logger);
    expect(replay.resumedFrom).toBeUndefined();
    expect(resumed(replay)).toEqual(full);
  });

  it("a rebuilder restored from its snapshot continues exactly like the original", () => {
    const original = new HistoryRebuilder();
    const event = (type: string, data: Record<string, unknown>, id: string) => ({ type, data, id, timestamp: "t", parentId: null }) as unknown as SessionEvent;
    original.add(event("user.message", { content: "go" }, "1"));
    original.add(event("assistant.message", { content: "", toolRequests: [{ toolCallId: "c1", name: "skill", arguments: {} }] }, "2"));
    original.add(event("skill.invoked", { name: "s", path: "/p", content: "use it" }, "3"));
    const copy = HistoryRebuilder.restore(JSON.parse(JSON.stringify(original.snapshot())));
    for (const rebuilder of [original, copy]) rebuilder.add(event("tool.execution_complete", { toolCallId: "c1", success: true, result: { content: "ok" } }, "4"));
    expect(copy.finish()).toEqual(original.finish());
  });
});

describe("getMessages from the events file", () => {
  it("returns byte for byte what the in-memory copy returned, for 10,000 events, with events not yet written", async () => {
    const session = openSession({ record: false });
    while (session.emitter.persistedCount < 10_000) session.turn(`part ${session.emitter.persistedCount}`);
    await session.emitter.log.flush();
    session.turn("not yet flushed");
    const bytes = await session.emitter.persistedArrayBytes(`{"events":[`, "]}");
    // Clients get each event once it is written: by now, every one of them.
    await session.emitter.delivered();
    const old = `{"events":[${session.persisted.join(",")}]}`;
    expect(bytes.toString("utf8")).toBe(old);
    await session.emitter.close();
  });

  it("after a resume: the readable lines as the old resume kept them, then the new events", async () => {
    const session = openSession({ record: false });
    for (let index = 0; index < 2_000; index++) session.turn(`part ${index}`);
    await session.emitter.close();
    // Damage: an unreadable line and a blank line in the middle, a torn last line.
    const lines = readFileSync(eventsPath, "utf8").split("\n");
    lines.splice(500, 0, '{"type":"assistant.message","data":{"conte');
    lines.splice(900, 0, "   ");
    writeFileSync(eventsPath, `${lines.join("\n")}{"type":"tool.exec`);
    const oldRead = await readEventsFile(eventsPath, logger, () => undefined);

    const replay = await replaySession(new EventLog(eventsPath, logger), new FileSessionFiles(dir), logger);
    expect(replay.count).toBe(oldRead.count);
    const reopened = new SessionEmitter("s1", new EventLog(eventsPath, logger), replay.history.finish().lastEventId);
    reopened.restorePersisted({ count: replay.count, end: replay.end, excluded: replay.excluded });
    expect((await reopened.persistedArrayBytes()).toString("utf8")).toBe(`[${oldRead.arrayBody}]`);
    const resume = JSON.stringify(reopened.emit("session.resume", { resumeTime: "t", eventCount: replay.count } as never));
    expect((await reopened.persistedArrayBytes()).toString("utf8")).toBe(`[${oldRead.arrayBody},${resume}]`);
    await reopened.log.flush();
    expect((await reopened.persistedArrayBytes()).toString("utf8")).toBe(`[${oldRead.arrayBody},${resume}]`);
    await reopened.close();
  });
});

describe("getMessages when the file changed behind the runtime's back", () => {
  it("is a PersistenceFailed error, never half a JSON text", async () => {
    const session = openSession({ record: false });
    for (let index = 0; index < 10; index++) session.turn(`part ${index}`);
    await session.emitter.log.flush();
    const text = readFileSync(eventsPath);
    writeFileSync(eventsPath, text.subarray(0, text.length - 7));
    await expect(session.emitter.persistedArrayBytes()).rejects.toMatchObject({ code: ErrorCodes.PersistenceFailed, data: { operation: "read" } });
    await session.emitter.close();
  });
});

describe("the resume point recorder", () => {
  it("continues from the previous point: each compaction replays only the lines since the one before", async () => {
    const session = openSession();
    for (let index = 0; index < 10; index++) session.turn(`part ${index}`);
    session.compact(20, 1);
    await session.recorder.settled();
    const first = JSON.parse(readFileSync(pointPath, "utf8")) as ResumePoint;
    copyFileSync(pointPath, `${pointPath}.first`);
    for (let index = 10; index < 20; index++) session.turn(`part ${index}`);
    session.compact(20, 2);
    await session.recorder.settled();
    await session.emitter.close();
    const second = JSON.parse(readFileSync(pointPath, "utf8")) as ResumePoint;
    expect(second.offset).toBeGreaterThan(first.offset);
    expect(second.state.count).toBe(readFileSync(eventsPath, "utf8").slice(0, second.offset).trim().split("\n").length);
    expect(second.state.history.messages[0]?.content).toContain("SUMMARY 2");
  });
});
