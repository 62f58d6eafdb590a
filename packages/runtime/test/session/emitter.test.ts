import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Logger } from "../../src/log.js";
import { SessionEmitter } from "../../src/session/emitter.js";
import { EventLog } from "../../src/store/event-log.js";

const logger = new Logger("error", () => undefined);
const folders: string[] = [];

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** An emitter over a real events file, with a sink recording what a client would receive. */
function emitterWithSink() {
  const folder = mkdtempSync(join(tmpdir(), "tandem-emitter-"));
  folders.push(folder);
  const path = join(folder, "events.jsonl");
  const emitter = new SessionEmitter("s1", new EventLog(path, logger), null);
  const received: Array<{ type: string; storedWhenSent: number }> = [];
  const storedLines = () => readFileSync(path, "utf8").split("\n").filter((line) => line !== "").length;
  emitter.addSink({
    deliverSessionEvent: (_sessionId, json, type) => received.push({ type: type ?? "", storedWhenSent: storedLinesOrZero(storedLines) }),
  });
  return { emitter, received, storedLines };
}

function storedLinesOrZero(count: () => number): number {
  try {
    return count();
  } catch {
    return 0;
  }
}

describe("SessionEmitter", () => {
  it("sends a stored event only once the log has written it, and an ephemeral one after the stored events before it", async () => {
    const { emitter, received } = emitterWithSink();
    emitter.emit("user.message", { content: "hi" });
    emitter.emit("assistant.message_delta", { messageId: "m1", deltaContent: "he" });
    emitter.emit("assistant.message", { messageId: "m1", content: "hello" });
    expect(received).toEqual([]);
    await emitter.delivered();
    expect(received.map((event) => event.type)).toEqual(["user.message", "assistant.message_delta", "assistant.message"]);
    // Each stored event was in the file when it was sent.
    expect(received[0]!.storedWhenSent).toBeGreaterThanOrEqual(1);
    expect(received[2]!.storedWhenSent).toBe(2);
    await emitter.close();
  });

  it("committed() makes what was emitted durable; a sink attached later does not get the events emitted before it", async () => {
    const { emitter, received, storedLines } = emitterWithSink();
    emitter.emit("user.message", { content: "hi" });
    const late: string[] = [];
    emitter.addSink({ deliverSessionEvent: (_sessionId, _json, type) => late.push(type ?? "") });
    await emitter.committed();
    expect(storedLines()).toBe(1);
    expect(received.map((event) => event.type)).toEqual(["user.message"]);
    expect(late).toEqual([]);
    await emitter.close();
  });
});
