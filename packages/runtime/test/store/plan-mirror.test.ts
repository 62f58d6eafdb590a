/**
 * The local mirror of a PostgreSQL session's plan (`store/postgres/plan-mirror.ts`), over real
 * folders: the stored side is a file store's files here (the mirror only needs `SessionFiles`; the
 * PostgreSQL side runs in `test/e2e/cluster-plan.test.ts`).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { FileSessionFiles } from "../../src/store/file-session-files.js";
import { PlanMirroredFiles } from "../../src/store/postgres/plan-mirror.js";

let root: string;
let stored: FileSessionFiles;
let localDir: string;
let files: PlanMirroredFiles;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "plan-mirror-"));
  mkdirSync(join(root, "stored"));
  stored = new FileSessionFiles(join(root, "stored"));
  localDir = join(root, "local");
  files = new PlanMirroredFiles(stored, localDir);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

it("names the local plan, and writes and removes it on both sides", async () => {
  expect(files.location("plan.md")).toBe(join(localDir, "plan.md"));
  expect(files.location("files/a.md")).toBe(stored.location("files/a.md"));
  await files.write("plan.md", "1. one");
  expect(readFileSync(join(localDir, "plan.md"), "utf8")).toBe("1. one");
  expect(await stored.read("plan.md")).toBe("1. one");
  expect(await files.remove("plan.md")).toBe(true);
  expect(existsSync(join(localDir, "plan.md"))).toBe(false);
  expect(await stored.read("plan.md")).toBeUndefined();
});

it("a plan the agent's tools changed locally is stored on the next read or sync, and only then", async () => {
  await files.write("plan.md", "1. one");
  writeFileSync(join(localDir, "plan.md"), "1. one\n2. two");
  expect(await stored.read("plan.md")).toBe("1. one");
  expect(await files.read("plan.md")).toBe("1. one\n2. two");
  expect(await stored.read("plan.md")).toBe("1. one\n2. two");
  writeFileSync(join(localDir, "plan.md"), "3. three");
  expect(await files.syncPlan()).toBe(true);
  expect(await files.syncPlan()).toBe(false);
  expect(await stored.read("plan.md")).toBe("3. three");
});

it("opening materialises the stored plan over a stale local copy, and removes a local copy of a plan that is gone", async () => {
  await stored.write("plan.md", "from the database");
  await files.materialisePlan();
  expect(readFileSync(join(localDir, "plan.md"), "utf8")).toBe("from the database");
  writeFileSync(join(localDir, "plan.md"), "stale, from an earlier stay on this node");
  await stored.write("plan.md", "newer, from another node");
  await files.materialisePlan();
  expect(await files.read("plan.md")).toBe("newer, from another node");
  await stored.remove("plan.md");
  await files.materialisePlan();
  expect(existsSync(join(localDir, "plan.md"))).toBe(false);
  expect(await files.read("plan.md")).toBeUndefined();
});
