/**
 * The events log on a real, tiny tmpfs that fills up: no torn line is ever left in the file, the
 * failure is reported to the owner, the unwritten lines are held in order and written once space
 * returns.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TandemError } from "../../src/errors.js";
import { Logger } from "../../src/log.js";
import { EventLog } from "../../src/store/event-log.js";
import { fillDisk, mountTmpfs, type Tmpfs } from "../../../../test/helpers/tmpfs.js";

let disk: Tmpfs | undefined;
let skipReason: string | undefined;
const logged: string[] = [];
const logger = new Logger("warning", (line) => logged.push(line));
/** One event line of about 1 KB, numbered. */
const line = (n: number) => JSON.stringify({ type: "assistant.message", data: { content: `${n} `.padEnd(1000, "x") }, id: String(n) });

beforeAll(() => {
  const mounted = mountTmpfs("64k");
  if ("skipped" in mounted) {
    skipReason = mounted.skipped;
    console.warn(`skipping the full-disk EventLog test: ${skipReason}`);
    return;
  }
  disk = mounted;
});
afterAll(() => disk?.unmount());

/** The ids of the file's lines; fails on any line that is not a complete event. */
function fileIds(path: string): string[] {
  const text = readFileSync(path, "utf8");
  expect(text === "" || text.endsWith("\n"), "the file ends with a complete line").toBe(true);
  return text
    .split("\n")
    .slice(0, -1)
    .map((each) => (JSON.parse(each) as { id: string }).id);
}

it("on a full disk, cuts the partly written line, reports the failure once and holds the lines in order until space returns", async (context) => {
  if (!disk) return context.skip(skipReason);
  const path = join(disk.dir, "events.jsonl");
  const filler = join(disk.dir, "filler");
  const log = new EventLog(path, logger);
  const failures: TandemError[] = [];
  log.watch({ failed: (error) => failures.push(error) });

  for (let n = 1; n <= 3; n++) log.append(line(n));
  await log.flush();
  expect(fileIds(path)).toEqual(["1", "2", "3"]);
  expect(log.failure).toBeUndefined();

  fillDisk(filler);
  // More than the free rest of the file's last page: the write is partial, then fails.
  for (let n = 4; n <= 12; n++) log.append(line(n));
  await log.flush();
  expect(failures).toHaveLength(1);
  expect(failures[0]?.data).toMatchObject({ path, code: "ENOSPC", operation: "write" });
  expect(failures[0]?.message).toContain(path);
  expect(log.failure).toBe(failures[0]);
  const afterFailure = fileIds(path);
  expect(afterFailure.slice(0, 3)).toEqual(["1", "2", "3"]);
  expect(log.heldLines).toBe(12 - afterFailure.length);

  // Still full: lines keep queueing behind the held ones; a retry fails without a second report.
  for (let n = 13; n <= 14; n++) log.append(line(n));
  await log.flush({ durable: true });
  expect(failures).toHaveLength(1);
  expect(log.failure).toBeDefined();
  expect(fileIds(path)).toEqual(afterFailure);

  rmSync(filler);
  await log.flush();
  expect(log.failure).toBeUndefined();
  expect(log.heldLines).toBe(0);
  log.append(line(15));
  await log.close();
  expect(fileIds(path)).toEqual(Array.from({ length: 15 }, (_, index) => String(index + 1)));
});
