import { constants } from "node:fs";
import { copyFile, rm, rmdir } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { Git } from "./git.js";
import { checkpointRefRoot, legacyRefName, mayHoldLegacyHashedRefs, refNamespace } from "./ref-names.js";
import { listUntracked, PreexistingUntracked } from "./untracked.js";

/** When a checkpoint was taken: at the start or end of a user turn, or after a rewind restored files. */
export type CheckpointPhase = "start" | "end" | "before-rewind" | "after-rewind";

/** One checkpoint: a commit under `refs/tandem/checkpoints/<session namespace>/<number>`. */
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

/**
 * The ids of a session's `user.message` events: the turns its checkpoints can belong to. Asked
 * only where refs of another session could sit under the session's names.
 */
export type SessionTurnIds = () => Promise<ReadonlySet<string>>;

/** How {@link GitCheckpoints.open} reads and writes a session's checkpoints. */
export interface CheckpointOptions {
  /** The session's turns; refs of other turns under its names are not its own. */
  turnIds?: SessionTurnIds;
  /**
   * Whether an untracked file that appeared after the session began is captured (`path` relative
   * to the repository `root`); by default every such file is.
   */
  captures?: (path: string, root: string) => boolean;
}

/**
 * Git checkpoints of one session's working tree. A snapshot adds the working tree to a private
 * index file (`GIT_INDEX_FILE`): the files the user's index tracks, and the untracked ones that
 * appeared after the session began and that `captures` accepts — never untracked files that were
 * there before it (see {@link PreexistingUntracked}), never ignored ones. It writes the tree and a commit, and points
 * `refs/tandem/checkpoints/<namespace>/<n>` at it ({@link refNamespace}: one name per session id):
 * the user's HEAD, branches, index and stash are never touched. The private index is kept between
 * snapshots so unchanged files are not hashed again.
 *
 * @example
 * const checkpoints = await GitCheckpoints.open(cwd, sessionId, join(sessionDir, "checkpoint.index"));
 * const start = await checkpoints?.snapshot(userMessageId, "start");
 */
export class GitCheckpoints {
  private readonly checkpoints: Checkpoint[];
  /** The untracked files that were there before the session, once this process read or recorded them. */
  private preexisting: PreexistingUntracked | undefined;

  private constructor(
    private readonly git: Git,
    /** The repository's (or worktree's) top-level folder. */
    readonly root: string,
    private readonly refPrefix: string,
    private readonly indexFile: string,
    private readonly userIndex: string,
    loaded: Checkpoint[],
    /** The highest checkpoint number under the prefix, another session's included (never reused). */
    private highestNumber: number,
    private readonly captures: (path: string, root: string) => boolean,
  ) {
    this.checkpoints = loaded;
  }

  /**
   * Opens the checkpoints of a session; undefined when `workingDirectory` is not in a git work
   * tree. Checkpoints an earlier version wrote under the session's former ref name are moved to
   * its namespace, when their turns are the session's (`turnIds`): that former name could also be
   * another session's, and reading a session's checkpoints only ever shows its own.
   */
  static async open(workingDirectory: string, sessionId: string, indexFile: string, options: CheckpointOptions = {}): Promise<GitCheckpoints | undefined> {
    const turnIds = options.turnIds ?? (async () => new Set<string>());
    const probe = new Git(workingDirectory);
    const inside = await probe.line(["rev-parse", "--is-inside-work-tree"]).catch(() => "false");
    if (inside !== "true") return undefined;
    const root = await probe.line(["rev-parse", "--show-toplevel"]);
    const git = new Git(root);
    const userIndex = await git.line(["rev-parse", "--path-format=absolute", "--git-path", "index"]);
    const namespace = refNamespace(sessionId);
    const refPrefix = `${checkpointRefRoot}${namespace}/`;
    const found = await listCheckpoints(git, refPrefix);
    const highestNumber = found.reduce((highest, checkpoint) => Math.max(highest, checkpoint.number), 0);
    let owned: ReadonlySet<string> | undefined;
    const ownTurns = async () => (owned ??= await turnIds());
    const loaded = mayHoldLegacyHashedRefs(namespace) ? await onlyOwn(found, ownTurns) : found;
    const checkpoints = new GitCheckpoints(git, root, refPrefix, indexFile, userIndex, loaded, highestNumber, options.captures ?? (() => true));
    const legacyPrefix = `${checkpointRefRoot}${legacyRefName(sessionId)}/`;
    if (legacyPrefix !== refPrefix) await checkpoints.adopt(await onlyOwn(await listCheckpoints(git, legacyPrefix), ownTurns));
    return checkpoints;
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
    const number = ++this.highestNumber;
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

  /** Unified diffs from a commit or tree to the working tree as the user sees it now (see {@link viewTree}). */
  async diffSince(from: string, ignoreWhitespace = false): Promise<FileDiff[]> {
    const to = await this.viewTree();
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

  /**
   * The working tree as a tree object (via the private index): changes to the files the index
   * holds, plus the untracked, non-ignored files that were not there before the session.
   */
  async writeTree(): Promise<string> {
    const preexisting = await this.prepare();
    const fresh = preexisting.newSince(await listUntracked(this.git, this.indexFile)).filter((path) => this.captures(path, this.root));
    await this.git.run(["add", "-u", "--", "."], { indexFile: this.indexFile });
    if (fresh.length > 0) {
      // `--remove`: a file gone since it was listed is not an error. A nested repository is listed as `sub/`.
      const paths = fresh.map((path) => (path.endsWith("/") ? path.slice(0, -1) : path));
      await this.git.run(["update-index", "--add", "--remove", "-z", "--stdin"], { indexFile: this.indexFile, input: `${paths.join("\0")}\0` });
    }
    return this.git.line(["write-tree"], { indexFile: this.indexFile });
  }

  /**
   * The working tree as the user sees it, every untracked, non-ignored file included, for the
   * workspace diffs. It goes through a scratch copy of the private index, so what only a view
   * showed never reaches a checkpoint.
   */
  async viewTree(): Promise<string> {
    await this.prepare();
    const scratch = `${this.indexFile}.view`;
    try {
      await copyFile(this.indexFile, scratch).catch(() => undefined);
      await this.git.run(["add", "-A", "--", "."], { indexFile: scratch });
      return await this.git.line(["write-tree"], { indexFile: scratch });
    } finally {
      await rm(scratch, { force: true });
    }
  }

  /** The untracked, non-ignored files the private index does not hold yet (paths relative to the root). */
  async untracked(): Promise<string[]> {
    await this.prepare();
    return listUntracked(this.git, this.indexFile);
  }

  /** Deletes every checkpoint ref of the session (the commits go with git's next garbage collection). */
  async removeAll(): Promise<number> {
    const removed = this.checkpoints.splice(0);
    if (removed.length === 0) return 0;
    const commands = removed.map((checkpoint) => `delete ${checkpoint.ref} ${checkpoint.commit}\n`).join("");
    await this.git.run(["update-ref", "--stdin"], { input: `start\n${commands}commit\n` });
    return removed.length;
  }

  /** Runs git in the repository root (for the workspace views). */
  get runner(): Git {
    return this.git;
  }

  /**
   * Once per process: starts the private index as a copy of the user's (so the first snapshot
   * hashes only what changed) and reads the untracked files that were there before the session.
   * A session without that list (its first snapshot, or one taken by an earlier version, whose
   * index may hold such files) starts its private index over from the user's and records the list now.
   */
  private async prepare(): Promise<PreexistingUntracked> {
    if (this.preexisting) return this.preexisting;
    // A lock left by a runtime that died mid-snapshot (a session lives in one process at a time).
    await rm(`${this.indexFile}.lock`, { force: true });
    const listFile = `${this.indexFile}.preexisting`;
    let preexisting = await PreexistingUntracked.load(listFile);
    if (!preexisting) {
      await rm(this.indexFile, { force: true });
      preexisting = await PreexistingUntracked.record(this.git, listFile);
    }
    await copyFile(this.userIndex, this.indexFile, constants.COPYFILE_EXCL).catch(() => undefined);
    this.preexisting = preexisting;
    return preexisting;
  }

  /** Moves checkpoints found under the session's former ref name into its namespace, after its own. */
  private async adopt(former: Checkpoint[]): Promise<void> {
    if (former.length === 0) return;
    const offset = this.highestNumber;
    const moved = former.map((checkpoint) => ({ ...checkpoint, number: offset + checkpoint.number, ref: `${this.refPrefix}${offset + checkpoint.number}` }));
    const commands = moved.map((checkpoint, index) => `create ${checkpoint.ref} ${checkpoint.commit}\ndelete ${former[index]!.ref} ${checkpoint.commit}\n`).join("");
    await this.git.run(["update-ref", "--stdin"], { input: `start\n${commands}commit\n` });
    this.checkpoints.push(...moved);
    this.checkpoints.sort((a, b) => a.number - b.number);
    this.highestNumber = Math.max(this.highestNumber, ...moved.map((checkpoint) => checkpoint.number));
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

/** The checkpoints under `prefix`, oldest first (refs that are not checkpoints are left out). */
async function listCheckpoints(git: Git, prefix: string): Promise<Checkpoint[]> {
  const listing = await git.run(["for-each-ref", "--format=%(refname)%09%(objectname)%09%(subject)", prefix]);
  return listing
    .split("\n")
    .filter((line) => line.length > 0)
    .flatMap((line) => {
      const [ref = "", commit = "", subject = ""] = line.split("\t");
      const [, phase = "", eventId = ""] = subject.split(" ");
      const number = Number(ref.slice(prefix.length));
      return Number.isInteger(number) && number > 0 && phases.has(phase) ? [{ number, ref, commit, phase: phase as CheckpointPhase, eventId }] : [];
    })
    .sort((a, b) => a.number - b.number);
}

/** The checkpoints of the session's own turns. */
async function onlyOwn(found: Checkpoint[], turnIds: SessionTurnIds): Promise<Checkpoint[]> {
  if (found.length === 0) return found;
  const own = await turnIds();
  return found.filter((checkpoint) => own.has(checkpoint.eventId));
}
