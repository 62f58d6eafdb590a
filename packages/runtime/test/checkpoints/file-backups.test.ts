import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileBackups } from "../../src/checkpoints/file-backups.js";

let dir: string;
let store: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tandem-file-backups-"));
  store = join(dir, "file-backups.jsonl");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const diff = (added: number, removed: number) => ["--- a/x", "+++ b/x", ...Array(added).fill("+new"), ...Array(removed).fill("-old")].join("\n");

describe("FileBackups", () => {
  it("restores each file to what it held before the first write of the turns rewound, and forgets those writes", async () => {
    const notes = join(dir, "notes.txt");
    const created = join(dir, "created.txt");
    writeFileSync(notes, "v0");
    const backups = new FileBackups(store);
    await backups.record("turn-1", { path: notes, diff: diff(1, 1), before: "v0" });
    writeFileSync(notes, "v1");
    await backups.record("turn-2", { path: notes, diff: diff(1, 1), before: "v1" });
    await backups.record("turn-2", { path: created, diff: diff(2, 0), before: null });
    writeFileSync(notes, "v2");
    writeFileSync(created, "new");

    expect(await backups.changesOf(new Set(["turn-2"]))).toEqual([
      { path: notes, changeType: "modified", linesAdded: 1, linesRemoved: 1 },
      { path: created, changeType: "created", linesAdded: 2, linesRemoved: 0 },
    ]);
    expect((await backups.restore(new Set(["turn-2"]))).sort()).toEqual([created, notes].sort());
    expect(readFileSync(notes, "utf8")).toBe("v1");
    expect(existsSync(created)).toBe(false);

    // A later process reads what is left: turn one's write alone.
    const reopened = new FileBackups(store);
    expect(await reopened.changesOf(new Set(["turn-1", "turn-2"]))).toEqual([{ path: notes, changeType: "modified", linesAdded: 1, linesRemoved: 1 }]);
    expect(await reopened.restore(new Set(["turn-1"]))).toEqual([notes]);
    expect(readFileSync(notes, "utf8")).toBe("v0");
    expect(await reopened.any()).toBe(false);
  });

  it("skips a last line a crash cut short, keeping every whole one", async () => {
    const notes = join(dir, "notes.txt");
    const backups = new FileBackups(store);
    await backups.record("turn-1", { path: notes, diff: diff(0, 0), before: "kept" });
    appendFileSync(store, '{"turnId":"turn-2","path":');
    const reopened = new FileBackups(store);
    expect(await reopened.changesOf(new Set(["turn-1", "turn-2"]))).toHaveLength(1);
    expect(await reopened.restore(new Set(["turn-1", "turn-2"]))).toEqual([notes]);
    expect(readFileSync(notes, "utf8")).toBe("kept");
  });

  it("keeps nothing for a write whose earlier content is unknown", async () => {
    const backups = new FileBackups(store);
    await backups.record("turn-1", { path: join(dir, "x"), diff: "" });
    expect(await backups.any()).toBe(false);
    expect(existsSync(store)).toBe(false);
  });
});
