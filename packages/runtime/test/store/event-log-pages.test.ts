import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { decodeCursor, encodeCursor, endOfLog, pageByteBudget, readLogPage, tailPosition, type LogPosition } from "../../src/store/event-log-pages.js";

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tandem-pages-"));
  path = join(dir, "events.jsonl");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const line = (id: number, extra = "") => JSON.stringify({ type: id % 10 === 0 ? "user.message" : "assistant.message", data: { n: id, extra }, id: String(id), timestamp: "t", parentId: null });
const idOf = (text: string) => Number((JSON.parse(text) as { id: string }).id);
const all = () => true;

async function pageThrough(start: LogPosition, max: number, accept: (text: string) => boolean = all): Promise<{ ids: number[]; pages: number }> {
  const ids: number[] = [];
  let position = start;
  for (let pages = 1; ; pages++) {
    const page = await readLogPage(path, position, max, accept);
    expect(page.expired).toBe(false);
    expect(page.lines.length).toBeLessThanOrEqual(max);
    const pageIds = page.lines.map(idOf);
    if (position.direction === "forward") ids.push(...pageIds);
    else ids.unshift(...pageIds);
    position = decodeCursor(encodeCursor(page.next))!;
    if (!page.hasMore) return { ids, pages };
  }
}

it("pages forward and backward through 100,000 events in bounded pages", async () => {
  writeFileSync(path, `${Array.from({ length: 100_000 }, (_, index) => line(index + 1)).join("\n")}\n`);
  const expected = Array.from({ length: 100_000 }, (_, index) => index + 1);
  const forward = await pageThrough({ offset: 0, direction: "forward" }, 1000);
  expect(forward.ids).toEqual(expected);
  expect(forward.pages).toBe(100);
  const backward = await pageThrough({ offset: endOfLog, direction: "backward" }, 1000);
  expect(backward.ids).toEqual(expected);
});

it("a filter that matches little still returns within the byte budget, with hasMore and a cursor further on", async () => {
  writeFileSync(path, `${Array.from({ length: 30_000 }, (_, index) => line(index + 1)).join("\n")}\n`);
  const accept = (text: string) => idOf(text) === 29_990;
  const first = await readLogPage(path, { offset: 0, direction: "forward" }, 10, accept);
  expect(first.lines).toEqual([]);
  expect(first.hasMore).toBe(true);
  expect(first.next.offset).toBeGreaterThan(0);
  // The budget, plus at most the one line that crossed it.
  expect(first.next.offset).toBeLessThanOrEqual(pageByteBudget + line(30_000).length + 1);
  const { ids } = await pageThrough({ offset: 0, direction: "forward" }, 10, accept);
  expect(ids).toEqual([29_990]);
});

it("returns an event longer than the byte budget whole, in both directions", async () => {
  const big = line(2, "x".repeat(pageByteBudget + 10));
  writeFileSync(path, `${line(1)}\n${big}\n${line(3)}\n`);
  expect((await pageThrough({ offset: 0, direction: "forward" }, 200)).ids).toEqual([1, 2, 3]);
  expect((await pageThrough({ offset: endOfLog, direction: "backward" }, 1)).ids).toEqual([1, 2, 3]);
});

it("leaves a torn last line for later, and a cursor made before an append reads only what came after", async () => {
  writeFileSync(path, `${line(1)}\n${line(2)}\n{"type":"torn`);
  const page = await readLogPage(path, { offset: 0, direction: "forward" }, 200, all);
  expect(page.lines.map(idOf)).toEqual([1, 2]);
  expect(page.hasMore).toBe(false);
  expect(await tailPosition(path)).toEqual(page.next);
  expect((await readLogPage(path, { offset: endOfLog, direction: "backward" }, 200, all)).lines.map(idOf)).toEqual([1, 2]);
  writeFileSync(path, `${line(1)}\n${line(2)}\n`);
  appendFileSync(path, `${line(3)}\n`);
  expect((await readLogPage(path, page.next, 200, all)).lines.map(idOf)).toEqual([3]);
});

it("a cursor that is not at a line start (the file was rewritten) is expired and restarts at a boundary", async () => {
  writeFileSync(path, `${line(1)}\n${line(2)}\n`);
  const forward = await readLogPage(path, { offset: 5, direction: "forward" }, 200, all);
  expect(forward.expired).toBe(true);
  expect(forward.lines.map(idOf)).toEqual([1, 2]);
  const past = await readLogPage(path, { offset: 10_000, direction: "backward" }, 1, all);
  expect(past.expired).toBe(true);
  expect(past.lines.map(idOf)).toEqual([2]);
  expect(decodeCursor("zz")).toBeUndefined();
  expect(decodeCursor("f")).toBeUndefined();
});

it("a session without an events file reads as empty", async () => {
  const page = await readLogPage(join(dir, "missing.jsonl"), { offset: 0, direction: "forward" }, 10, all);
  expect(page).toMatchObject({ lines: [], hasMore: false, expired: false });
  expect(await tailPosition(join(dir, "missing.jsonl"))).toEqual({ offset: 0, direction: "forward" });
});
