/**
 * Session files on a real, tiny tmpfs that fills up. The events log never leaves a torn line in
 * the file, reports the failure to its owner, holds the unwritten lines in order and writes them
 * once space returns; `workspace.yaml` and the plan keep their old contents and fail with a typed
 * error naming the file.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { Logger } from "../../src/log.js";
import { ErrorCodes, type TandemError } from "../../src/errors.js";
import { SessionWorkspace } from "../../src/plan/plan-file.js";
import { SessionEmitter } from "../../src/session/emitter.js";
import { EventLog } from "../../src/store/event-log.js";
import { FileSessionStore } from "../../src/store/session-store.js";
import { fillDisk, tmpfsForFile } from "../../../../test/helpers/tmpfs.js";

const disk = tmpfsForFile("64k", "the full-disk EventLog test");
const logged: string[] = [];
const logger = new Logger("warning", (line) => logged.push(line));
/** One event line of about 1 KB, numbered. */
const line = (n: number) => JSON.stringify({ type: "assistant.message", data: { content: `${n} `.padEnd(1000, "x") }, id: String(n) });

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
  const dir = disk.dirOrSkip(context);
  const path = join(dir, "events.jsonl");
  const filler = join(dir, "filler");
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

it("keeps the old workspace.yaml, plan and workspace file when the disk is full, failing with PersistenceFailed", async (context) => {
  const dir = disk.dirOrSkip(context);
  const store = new FileSessionStore(join(dir, "home"), logger);
  const sessionDir = await store.createSessionDir("s1");
  const info = { id: "s1", cwd: "/work", summary_count: 0, created_at: "then", updated_at: "then", summary: "the first prompt" };
  await store.writeWorkspace(info);
  const workspaceText = readFileSync(store.workspaceFilePath("s1"), "utf8");
  const emitter = new SessionEmitter("s1", new EventLog(join(sessionDir, "events.jsonl"), logger), null);
  const workspace = new SessionWorkspace(store.files("s1"), emitter);
  await workspace.updatePlan("1. the old plan");
  await workspace.createFile("notes.md", "old notes");
  const filler = join(dir, "filler");
  fillDisk(filler);
  try {
    const big = "y".repeat(16 * 1024);
    const failures = await Promise.all([
      store.writeWorkspace({ ...info, summary: big }).catch((error: unknown) => error as TandemError),
      workspace.updatePlan(big).catch((error: unknown) => error as TandemError),
      workspace.createFile("notes.md", big).catch((error: unknown) => error as TandemError),
    ]);
    const paths = [store.workspaceFilePath("s1"), workspace.planPath, join(sessionDir, "files", "notes.md")];
    failures.forEach((failure, index) => {
      expect(failure?.code).toBe(ErrorCodes.PersistenceFailed);
      expect(failure?.data).toMatchObject({ path: paths[index], code: "ENOSPC" });
      expect(failure?.message).toContain(paths[index]);
    });
    expect(readFileSync(store.workspaceFilePath("s1"), "utf8")).toBe(workspaceText);
    expect((await workspace.readPlan()).content).toBe("1. the old plan");
    expect(await workspace.readFile("notes.md")).toBe("old notes");
    expect(await workspace.listFiles()).toEqual(["notes.md"]);
  } finally {
    rmSync(filler);
    await emitter.close();
  }
});
