import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Logger } from "../../src/log.js";
import { EventLog, readEventsFile } from "../../src/store/event-log.js";

let dir: string;
const warnings: string[] = [];
const logger = new Logger("warning", (line) => warnings.push(line));
const event = (type: string, id: number) => JSON.stringify({ type, data: { n: id }, id: String(id), timestamp: "t", parentId: id > 1 ? String(id - 1) : null });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tandem-events-"));
  warnings.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("EventLog", () => {
  it("appends lines in order and makes them durable on flush", async () => {
    const path = join(dir, "events.jsonl");
    const log = new EventLog(path, logger);
    for (let index = 1; index <= 5; index++) log.append(event("user.message", index));
    await log.flush({ durable: true });
    log.append(event("assistant.message", 6));
    await log.close();
    expect(readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line).id)).toEqual(["1", "2", "3", "4", "5", "6"]);
  });

  it("cuts a torn last line a crash left behind before appending, so no torn line ends up in the middle", async () => {
    const path = join(dir, "events.jsonl");
    writeFileSync(path, `${event("user.message", 1)}\n${event("assistant.message", 2)}\n{"type":"assistant.message","data":{"content":"half a li`);
    const log = new EventLog(path, logger);
    log.append(event("session.resume", 3));
    await log.close();
    const text = readFileSync(path, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(text.trim().split("\n").map((line) => JSON.parse(line).id)).toEqual(["1", "2", "3"]);
    expect(warnings.join("")).toMatch(/cutting a torn last line/);
  });

  it("cuts a torn file that has no complete line at all", async () => {
    const path = join(dir, "events.jsonl");
    writeFileSync(path, '{"type":"session.st');
    const log = new EventLog(path, logger);
    log.append(event("session.start", 1));
    await log.close();
    expect(readFileSync(path, "utf8")).toBe(`${event("session.start", 1)}\n`);
  });
});

describe("readEventsFile", () => {
  const lines = [event("session.start", 1), event("user.message", 2), event("hook.start", 3), event("assistant.message", 4), event("hook.end", 5)];

  /** Reads a file, collecting the ids of the events handed out. */
  async function read(path: string): Promise<{ ids: string[]; arrayBody: string; count: number; skippedLines: number }> {
    const ids: string[] = [];
    const summary = await readEventsFile<{ id: string }>(path, logger, (each) => ids.push(each.id));
    return { ids, ...summary };
  }

  it("hands out every event in order, with their text and count", async () => {
    const path = join(dir, "a.jsonl");
    writeFileSync(path, `${lines.join("\n")}\n`);
    const result = await read(path);
    expect(result.ids).toEqual(["1", "2", "3", "4", "5"]);
    expect(result.count).toBe(5);
    expect(result.arrayBody).toBe(lines.join(","));
  });

  it("skips a torn last line with a warning", async () => {
    const path = join(dir, "c.jsonl");
    writeFileSync(path, `${lines.join("\n")}\n{"type":"assistant.message","data":{"content":"half`);
    const result = await read(path);
    expect(result.count).toBe(5);
    expect(result.skippedLines).toBe(1);
    expect(result.ids).toEqual(["1", "2", "3", "4", "5"]);
    expect(JSON.parse(`[${result.arrayBody}]`)).toHaveLength(5);
    expect(warnings.join("")).toMatch(/skipping unreadable line 6/);
  });

  it("never lets a damaged line in the middle into the returned text, and ignores blank lines", async () => {
    const path = join(dir, "d.jsonl");
    writeFileSync(path, `${lines[0]}\n{"type":"hook.start","data":{oops}\n\n${lines[1]}\n`);
    const result = await read(path);
    expect(result.ids).toEqual(["1", "2"]);
    expect(result.count).toBe(2);
    expect(result.skippedLines).toBe(1);
    expect(result.arrayBody).toBe(`${lines[0]},${lines[1]}`);
    expect(warnings.join("")).toMatch(/skipping unreadable line 2/);
    expect(warnings.join("")).not.toMatch(/line 3/);
  });
});
