import { appendFile, readFile, rm, writeFile } from "node:fs/promises";
import { errorMessage } from "../errors.js";
import { writeFileAtomic } from "../store/persistence-error.js";
import type { FileChange } from "./git-checkpoints.js";

/** One write a file tool made: the turn, the file, what it held before (null: it did not exist), the diff's line counts. */
export interface FileBackupEntry {
  turnId: string;
  path: string;
  before: string | null;
  linesAdded: number;
  linesRemoved: number;
}

/** A file change a session's tool made, as the tool reports it. */
export interface ToolFileChange {
  path: string;
  diff: string;
  /** What the file held before the change (null: the tool created it); unknown when absent. */
  before?: string | null;
}

/**
 * File change tracking where there is no git work tree to checkpoint: every write a session's file
 * tools (`create`, `edit`) make is kept with what the file held before it, per root user turn, in
 * one append-only JSON-lines file in the session's workspace (so a resumed session can still
 * rewind). Rewinding to a turn puts every file the turn and the later ones wrote back as it was
 * before the first of those writes (a file they created is removed). Files changed by other means
 * (shell commands, the user) are not tracked: git checkpoints cover those where there is git.
 *
 * @example
 * const backups = new FileBackups(join(workspace, "file-backups.jsonl"));
 * await backups.record(turnId, { path, diff, before: null });
 * await backups.restore(new Set([turnId])); // removes the created file
 */
export class FileBackups {
  private entries: Promise<FileBackupEntry[]> | undefined;
  /** Writes to the file, in order. */
  private work: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {}

  /** Keeps one write of `turnId`; a change whose earlier content is unknown is not kept (it could not be restored). */
  record(turnId: string, change: ToolFileChange): Promise<void> {
    if (change.before === undefined) return this.work;
    const entry: FileBackupEntry = { turnId, path: change.path, before: change.before, ...lineCounts(change.diff) };
    return this.serialized(async () => {
      const entries = await this.load();
      await appendFile(this.file, `${JSON.stringify(entry)}\n`);
      entries.push(entry);
    });
  }

  /** Whether any write was kept (the session tracked files before it was resumed). */
  async any(): Promise<boolean> {
    return (await this.load()).length > 0;
  }

  /** The files the given turns wrote, each once: created (it did not exist before the first write) or modified. */
  async changesOf(turnIds: ReadonlySet<string>): Promise<FileChange[]> {
    await this.work;
    const byPath = new Map<string, FileChange>();
    for (const entry of await this.load()) {
      if (!turnIds.has(entry.turnId)) continue;
      const known = byPath.get(entry.path);
      if (known) {
        known.linesAdded += entry.linesAdded;
        known.linesRemoved += entry.linesRemoved;
        continue;
      }
      byPath.set(entry.path, { path: entry.path, changeType: entry.before === null ? "created" : "modified", linesAdded: entry.linesAdded, linesRemoved: entry.linesRemoved });
    }
    return [...byPath.values()];
  }

  /**
   * Puts the files the given turns wrote back as they were before the first of those writes, and
   * forgets those writes. Returns the restored paths; throws (with what was already restored
   * named) when a file cannot be written back, keeping every write for another try.
   */
  restore(turnIds: ReadonlySet<string>): Promise<string[]> {
    return this.serialized(async () => {
      const entries = await this.load();
      const earliest = new Map<string, FileBackupEntry>();
      for (const entry of entries) if (turnIds.has(entry.turnId) && !earliest.has(entry.path)) earliest.set(entry.path, entry);
      const restored: string[] = [];
      for (const entry of earliest.values()) {
        try {
          if (entry.before === null) await rm(entry.path, { force: true });
          else await writeFile(entry.path, entry.before);
        } catch (error) {
          throw new Error(`could not restore ${entry.path}${restored.length > 0 ? ` (restored before it: ${restored.join(", ")})` : ""}: ${errorMessage(error)}`);
        }
        restored.push(entry.path);
      }
      const kept = entries.filter((entry) => !turnIds.has(entry.turnId));
      await writeFileAtomic(this.file, kept.map((entry) => `${JSON.stringify(entry)}\n`).join(""));
      entries.splice(0, entries.length, ...kept);
      return restored;
    });
  }

  private load(): Promise<FileBackupEntry[]> {
    this.entries ??= readFile(this.file, "utf8").then(
      (text) => text.split("\n").filter((line) => line.trim() !== "").flatMap((line) => parseEntry(line)),
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return [];
        throw error;
      },
    );
    return this.entries;
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const result = this.work.then(task);
    this.work = result.then(() => undefined, () => undefined);
    return result;
  }
}

/** One line of the file; a line cut short by a crash is skipped. */
function parseEntry(line: string): FileBackupEntry[] {
  try {
    const entry = JSON.parse(line) as Partial<FileBackupEntry>;
    if (typeof entry.turnId !== "string" || typeof entry.path !== "string" || (entry.before !== null && typeof entry.before !== "string")) return [];
    return [{ turnId: entry.turnId, path: entry.path, before: entry.before, linesAdded: entry.linesAdded ?? 0, linesRemoved: entry.linesRemoved ?? 0 }];
  } catch {
    return [];
  }
}

/** The lines a unified diff adds and removes (its `+++`/`---` headers aside). */
function lineCounts(diff: string): { linesAdded: number; linesRemoved: number } {
  let linesAdded = 0;
  let linesRemoved = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++") || line.startsWith("---")) continue;
    if (line.startsWith("+")) linesAdded++;
    else if (line.startsWith("-")) linesRemoved++;
  }
  return { linesAdded, linesRemoved };
}
