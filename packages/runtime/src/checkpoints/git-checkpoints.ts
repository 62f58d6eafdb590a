import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, rm, rmdir } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { Git } from "./git.js";

/** When a checkpoint was taken: at the start or end of a user turn, or after a rewind restored files. */
export type CheckpointPhase = "start" | "end" | "before-rewind" | "after-rewind";

/** One checkpoint: a commit under `refs/tandem/checkpoints/<session>/<number>`. */
export interface Checkpoint {
  number: number;
  ref: string;
  commit: string;
  phase: CheckpointPhase;
  /** The `user.message` event of the turn it belongs to. */
  eventId: string;
}

/** How a file differs between a checkpoint and a later state (seen from the checkpoint). */
export type FileChange = {
  /** Absolute path. */
  path: string;
  changeType: "created" | "deleted" | "modified";
  linesAdded: number;
  linesRemoved: number;
}

/** A file's unified diff between two states. */
export type FileDiff = {
  /** Path relative to the repository root. */
  path: string;
  changeType: "added" | "modified" | "deleted";
  diff: string;
}

const phases: ReadonlySet<string> = new Set(["start", "end", "before-rewind", "after-rewind"]);

/** A ref- and branch-safe form of a session id (ids with other characters are hashed). */
export function refSafeId(sessionId: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(sessionId)) return sessionId;
  return `x-${createHash("sha256").update(sessionId).digest("hex").slice(0, 32)}`;
}

/**
 * Git checkpoints of one session's working tree. A snapshot adds the whole working tree (tracked
 * and untracked files, `.gitignore` respected) to a private index file (`GIT_INDEX_FILE`), writes
 * its tree and a commit, and points `refs/tandem/checkpoints/<session>/<n>` at it: the user's HEAD,
 * branches, index and stash are never touched. The private index is kept between snapshots so
 * unchanged files are not hashed again.
 *
 * @example
 * const checkpoints = await GitCheckpoints.open(cwd, sessionId, join(sessionDir, "checkpoint.index"));
 * const start = await checkpoints?.snapshot(userMessageId, "start");
 */
export class GitCheckpoints {
  private readonly checkpoints: Checkpoint[];
  /** Whether this process prepared the private index yet. */
  private seeded = false;

  private constructor(
    private readonly git: Git,
    /** The repository's (or worktree's) top-level folder. */
    readonly root: string,
    private readonly refPrefix: string,
    private readonly indexFile: string,
    private readonly userIndex: string,
    loaded: Checkpoint[],
  ) {
    this.checkpoints = loaded;
  }

  /** Opens the checkpoints of a session; undefined when `workingDirectory` is not in a git work tree. */
  static async open(workingDirectory: string, sessionId: string, indexFile: string): Promise<GitCheckpoints | undefined> {
    const probe = new Git(workingDirectory);
    const inside = await probe.line(["rev-parse", "--is-inside-work-tree"]).catch(() => "false");
    if (inside !== "true") return undefined;
    const root = await probe.line(["rev-parse", "--show-toplevel"]);
    const git = new Git(root);
    const userIndex = await git.line(["rev-parse", "--path-format=absolute", "--git-path", "index"]);
    const refPrefix = `refs/tandem/checkpoints/${refSafeId(sessionId)}/`;
    const listing = await git.run(["for-each-ref", "--format=%(refname)%09%(objectname)%09%(subject)", refPrefix]);
    const loaded = listing
      .split("\n")
      .filter((line) => line.length > 0)
      .flatMap((line) => {
        const [ref = "", commit = "", subject = ""] = line.split("\t");
        const [, phase = "", eventId = ""] = subject.split(" ");
        const number = Number(ref.slice(refPrefix.length));
        return Number.isInteger(number) && phases.has(phase) ? [{ number, ref, commit, phase: phase as CheckpointPhase, eventId }] : [];
      })
      .sort((a, b) => a.number - b.number);
    return new GitCheckpoints(git, root, refPrefix, indexFile, userIndex, loaded);
  }

  /** Every checkpoint, oldest first. */
  get all(): readonly Checkpoint[] {
    return this.checkpoints;
  }

  /** The newest checkpoint (what the files looked like when it was taken). */
  get latest(): Checkpoint | undefined {
    return this.checkpoints.at(-1);
  }

  /** The newest checkpoint of a turn in a phase. */
  find(eventId: string, phase: CheckpointPhase): Checkpoint | undefined {
    return this.checkpoints.findLast((checkpoint) => checkpoint.eventId === eventId && checkpoint.phase === phase);
  }

  /** Snapshots the working tree (or records `tree` as it is) as the next checkpoint. */
  async snapshot(eventId: string, phase: CheckpointPhase, tree?: string): Promise<Checkpoint> {
    const snapshotTree = tree ?? (await this.writeTree());
    const number = (this.latest?.number ?? 0) + 1;
    const parent = this.latest ? ["-p", this.latest.commit] : [];
    const commit = await this.git.line(["commit-tree", "--no-gpg-sign", snapshotTree, ...parent, "-m", `tandem-checkpoint ${phase} ${eventId}`]);
    const ref = `${this.refPrefix}${number}`;
    await this.git.run(["update-ref", ref, commit]);
    const checkpoint = { number, ref, commit, phase, eventId };
    this.checkpoints.push(checkpoint);
    return checkpoint;
  }

  /** The tree of a checkpoint commit. */
  treeOf(commit: string): Promise<string> {
    return this.git.line(["rev-parse", `${commit}^{tree}`]);
  }

  /** What changed from `commit` to the working tree as it is now. */
  async changesSince(commit: string): Promise<FileChange[]> {
    return this.changesBetween(commit, await this.writeTree());
  }

  /** What changed from one commit or tree to another. */
  async changesBetween(from: string, to: string): Promise<FileChange[]> {
    const [status, numstat] = await Promise.all([
      this.git.run(["diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to]),
      this.git.run(["diff-tree", "-r", "-z", "--no-renames", "--numstat", from, to]),
    ]);
    const lines = new Map<string, { added: number; removed: number }>();
    for (const record of numstat.split("\0")) {
      const [added = "", removed = "", path] = record.split("\t");
      if (path !== undefined) lines.set(path, { added: Number(added) || 0, removed: Number(removed) || 0 });
    }
    const fields = status.split("\0");
    const changes: FileChange[] = [];
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const letter = fields[index] ?? "";
      const path = fields[index + 1] ?? "";
      const changeType = letter === "A" ? "created" : letter === "D" ? "deleted" : "modified";
      const counted = lines.get(path) ?? { added: 0, removed: 0 };
      changes.push({ path: join(this.root, path), changeType, linesAdded: counted.added, linesRemoved: counted.removed });
    }
    return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * Makes the working tree what it was at `commit`: changed and deleted files are written back,
   * files created since are removed (with the folders they leave empty). Ignored files are never
   * touched. Returns the absolute paths it changed.
   */
  async restore(commit: string): Promise<string[]> {
    const changes = await this.changesSince(commit);
    if (changes.length === 0) return [];
    for (const change of changes.filter((item) => item.changeType === "created")) {
      await rm(change.path, { force: true });
      await this.removeEmptyFolders(dirname(change.path));
    }
    const toWrite = changes.filter((item) => item.changeType !== "created").map((item) => relative(this.root, item.path).split(sep).join("/"));
    if (toWrite.length > 0) {
      const scratch = `${this.indexFile}.restore`;
      try {
        await this.git.run(["read-tree", commit], { indexFile: scratch });
        await this.git.run(["checkout-index", "-f", "-z", "--stdin"], { indexFile: scratch, input: toWrite.join("\0") });
      } finally {
        await rm(scratch, { force: true });
      }
    }
    return changes.map((item) => item.path);
  }

  /** Unified diffs from a commit or tree to the working tree as it is now. */
  async diffSince(from: string, ignoreWhitespace = false): Promise<FileDiff[]> {
    const to = await this.writeTree();
    const whitespace = ignoreWhitespace ? ["--ignore-all-space"] : [];
    const [status, patch] = await Promise.all([
      this.git.run(["diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to]),
      this.git.run(["diff-tree", "-r", "-p", "--no-renames", "--no-color", ...whitespace, from, to]),
    ]);
    const fields = status.split("\0");
    const patches = patch.split(/^(?=diff --git )/m).filter((part) => part.startsWith("diff --git "));
    const diffs: FileDiff[] = [];
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const letter = fields[index] ?? "";
      diffs.push({
        path: fields[index + 1] ?? "",
        changeType: letter === "A" ? "added" : letter === "D" ? "deleted" : "modified",
        diff: patches[index / 2] ?? "",
      });
    }
    return diffs;
  }

  /** The working tree as a tree object (via the private index). */
  async writeTree(): Promise<string> {
    await this.seedIndex();
    await this.git.run(["add", "-A", "--", "."], { indexFile: this.indexFile });
    return this.git.line(["write-tree"], { indexFile: this.indexFile });
  }

  /** Runs git in the repository root (for the workspace views). */
  get runner(): Git {
    return this.git;
  }

  /** Starts the private index as a copy of the user's, so the first snapshot hashes only what changed. */
  private async seedIndex(): Promise<void> {
    if (this.seeded) return;
    this.seeded = true;
    // A lock left by a runtime that died mid-snapshot (a session lives in one process at a time).
    await rm(`${this.indexFile}.lock`, { force: true });
    await copyFile(this.userIndex, this.indexFile, constants.COPYFILE_EXCL).catch(() => undefined);
  }

  private async removeEmptyFolders(folder: string): Promise<void> {
    for (let current = folder; current.startsWith(this.root + sep) && current !== this.root; current = dirname(current)) {
      try {
        await rmdir(current);
      } catch {
        return;
      }
    }
  }
}
