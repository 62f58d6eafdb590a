import { access } from "node:fs/promises";
import { join } from "node:path";
import type { SessionEvent } from "@tandem/protocol";
import { subAgentRunOf } from "../compat/profile.js";
import { errorMessage } from "../errors.js";
import type { HistoryRebuilder } from "../session/history.js";
import type { FileBackups, ToolFileChange } from "./file-backups.js";
import type { GitCheckpoints } from "./git-checkpoints.js";
import type { HistoryHost } from "./history-host.js";
import type { RewindPoint, RewindPreview, RewindResult, SessionRewinds, UnavailableReason } from "./rewinds.js";
import { SessionWrites } from "./session-writes.js";
import { readWorktreeInfo } from "./worktree.js";

export type { HistoryHost } from "./history-host.js";
export type { RewindPoint, RewindPreview, RewindResult } from "./rewinds.js";

/**
 * A session's rewind points, checkpoints and rewinds (`session.history.*`).
 *
 * Checkpoints: in a git work tree, when tracking is on (see {@link tracking}), the working tree is
 * snapshotted at the start of every root user turn (when its `user.message` is emitted, concurrently
 * with the first model call; tool calls wait for it) and at its end (when the next turn starts or the session goes idle). See
 * {@link GitCheckpoints} for how the user's repository stays untouched.
 *
 * Rewind: the conversation goes back to before a `user.message` — a persisted
 * `session.snapshot_rewind` marker says so (the events file stays append-only: `getMessages`
 * leaves the rewound events out, and a resume rebuilds the rewound conversation from the marker) — and,
 * in `conversation-and-files` mode, the files go back to that turn's start checkpoint.
 *
 * @example
 * const history = new SessionHistory(scope, () => turns.busy);
 * const { points } = await history.listRewindPoints();
 * await history.rewind(points[1].eventId, "conversation-and-files");
 */
export class SessionHistory {
  private store: Promise<GitCheckpoints | undefined> | undefined;
  /** Checkpoint work, in order; tool calls and history requests wait for it. */
  private work: Promise<void> = Promise.resolve();
  /** The root turn whose end checkpoint is still to take. */
  private openTurn: string | undefined;
  /** Tracking a session has without asking: earlier tracked turns, or its own worktree. */
  private inherited: Promise<boolean> | undefined;
  /** The untracked files the session made (the only untracked files its checkpoints capture). */
  private readonly writes = new SessionWrites();
  /** Outside a git work tree: what the file tools' writes replaced, per turn. */
  private loadedBackups: Promise<FileBackups> | undefined;
  /** Rewind points, previews, rewinds and truncations: loaded with the first history request. */
  private loadedRewinds: Promise<SessionRewinds> | undefined;

  /** @param isBusy whether the session is running a turn (a busy session lists no rewind points and does not rewind). */
  constructor(
    private readonly host: HistoryHost,
    private readonly isBusy: () => boolean,
  ) {
    host.emitter.addListener((event) => this.onEvent(event));
  }

  /**
   * Whether file changes are tracked: when the session asked for it (`enableFileChangeTracking:
   * true`), runs in its own worktree, or was tracked before it was resumed — unless it says
   * `enableFileChangeTracking: false`. In a git work tree the working tree is checkpointed; outside
   * one, the writes of the file tools are kept (see {@link FileBackups}).
   */
  async tracking(): Promise<boolean> {
    const requested = this.host.config.enableFileChangeTracking;
    if (requested === false) return false;
    // Without a request, only files tell (no git process for the sessions that never track).
    this.inherited ??= this.trackedBefore();
    return requested === true || (await this.inherited);
  }

  /** The git checkpoints when tracking is on in a git work tree; undefined otherwise (then the file tools' writes are kept). */
  private async gitTracking(): Promise<GitCheckpoints | undefined> {
    return (await this.tracking()) ? this.checkpoints() : undefined;
  }

  /**
   * Tells a session that was just created (not resumed) what it inherits without looking at its
   * folder: no earlier snapshots, and its own worktree only when it was created with one. Saves
   * two file-system round trips in every new session's first turn.
   */
  startedNew(ownWorktree: boolean): void {
    this.inherited ??= Promise.resolve(ownWorktree);
  }

  /** A snapshot was taken before (the private index exists), file writes were kept, or the session has its own worktree. */
  private async trackedBefore(): Promise<boolean> {
    if (await access(this.indexFile).then(() => true, () => false)) return true;
    if (await this.backups().then((backups) => backups.any()).catch(() => false)) return true;
    return (await readWorktreeInfo(this.host.workspacePath)) !== undefined;
  }

  /** Outside a git work tree, what the file tools' writes replaced: loaded with the first write kept or read. */
  private backups(): Promise<FileBackups> {
    this.loadedBackups ??= import("./file-backups.js").then(({ FileBackups }) => new FileBackups(join(this.host.workspacePath, "file-backups.jsonl")));
    return this.loadedBackups;
  }

  private rewinds(): Promise<SessionRewinds> {
    this.loadedRewinds ??= import("./rewinds.js").then(
      ({ SessionRewinds }) =>
        new SessionRewinds({
          host: this.host,
          isBusy: this.isBusy,
          tracking: () => this.tracking(),
          gitTracking: () => this.gitTracking(),
          checkpoints: () => this.checkpoints(),
          settled: () => this.work,
          backups: () => this.backups(),
          timeline: () => this.timeline(),
          closeOpenTurn: () => {
            this.openTurn = undefined;
          },
        }),
    );
    return this.loadedRewinds;
  }

  private get indexFile(): string {
    return join(this.host.workspacePath, "checkpoint.index");
  }

  /** The session's git checkpoints; undefined outside a git work tree. */
  checkpoints(): Promise<GitCheckpoints | undefined> {
    // Loaded with the first tracked turn: sessions that never track changes do not parse it.
    this.store ??= import("./git-checkpoints.js")
      .then(({ GitCheckpoints }) =>
        GitCheckpoints.open(this.host.workingDirectory, this.host.sessionId, this.indexFile, {
          turnIds: () => this.turnIds(),
          captures: (path, root) => this.writes.owns(path, root),
        }),
      )
      .catch((error: unknown) => {
        this.host.logger.warn(`git checkpoints are unavailable: ${errorMessage(error)}`);
        return undefined;
      });
    return this.store;
  }

  /** The ids of every `user.message` the session persisted (rewound ones too): the turns its checkpoints belong to. */
  private async turnIds(): Promise<ReadonlySet<string>> {
    const events = JSON.parse((await this.host.emitter.persistedArrayBytes()).toString("utf8")) as SessionEvent[];
    return new Set(events.filter((event) => event.type === "user.message").map((event) => event.id));
  }

  /**
   * A file tool of the session wrote a file (absolute path): a checkpoint may capture it; outside
   * a git work tree, what it replaced is kept for the turn.
   */
  toolWrote(change: ToolFileChange): void {
    this.writes.toolWrote(change.path);
    const turn = this.openTurn;
    if (!turn || change.before === undefined) return;
    this.work = this.work.then(async () => {
      if (!(await this.tracking()) || (await this.checkpoints())) return;
      await this.backups().then((backups) => backups.record(turn, change)).catch((error: unknown) => {
        this.host.logger.warn(`session ${this.host.sessionId}: could not keep what ${change.path} held before the write, a rewind will not restore it: ${errorMessage(error)}`);
      });
    });
  }

  /**
   * Awaited before a round of tool calls: the turn's start checkpoint is written, and the untracked
   * files are listed (what appears during the round's shell calls is the session's).
   */
  beforeToolCalls(): Promise<void> {
    this.enqueue((store) => this.writes.observe(() => store.untracked(), false));
    return this.work;
  }

  /** Resolves when the checkpoints taken so far are written (tool calls wait for the turn's start checkpoint). */
  settled(): Promise<void> {
    return this.work;
  }

  /** The root user turns still in the conversation, with what their rewind would restore. */
  async listRewindPoints(): Promise<{ fileChangeTrackingEnabled: boolean; unavailableReason?: UnavailableReason; points: RewindPoint[] }> {
    return (await this.rewinds()).listRewindPoints();
  }

  /** The files a `conversation-and-files` rewind to `eventId` would change. */
  async previewRewind(eventId: string): Promise<RewindPreview> {
    return (await this.rewinds()).previewRewind(eventId);
  }

  /** Rewinds the conversation to before `eventId`; in `conversation-and-files` mode also restores the files. */
  async rewind(eventId: string, mode: "conversation" | "conversation-and-files"): Promise<RewindResult> {
    return (await this.rewinds()).rewind(eventId, mode);
  }

  /** Removes `eventId` and every later event from the conversation; files are not touched. */
  async truncate(eventId: string): Promise<{ eventsRemoved: number }> {
    return (await this.rewinds()).truncate(eventId);
  }

  /** The conversation's persisted events as a rebuilder (rewinds applied). */
  async timeline(): Promise<HistoryRebuilder> {
    // The rebuilder loads with the first history request (rewind points, rewinds, truncation).
    const { HistoryRebuilder } = await import("../session/history.js");
    const rebuilder = new HistoryRebuilder();
    for (const event of JSON.parse((await this.host.emitter.persistedArrayBytes()).toString("utf8")) as SessionEvent[]) rebuilder.add(event);
    return rebuilder;
  }

  private onEvent(event: SessionEvent): void {
    if (event.type === "tool.execution_start") {
      this.writes.shellCallStarted(event.data.toolCallId, event.data.toolName);
      return;
    }
    if (event.type === "tool.execution_complete") {
      if (this.writes.shellCallEnded(event.data.toolCallId)) this.enqueue((store) => this.writes.observe(() => store.untracked(), true));
      return;
    }
    if (event.type === "user.message") {
      if (subAgentRunOf(event) !== undefined || event.data.content === undefined || event.data.source === "system") return;
      const previous = this.openTurn;
      this.openTurn = event.id;
      this.enqueue(async (store) => {
        const tree = await store.writeTree();
        if (previous) await store.snapshot(previous, "end", tree);
        await store.snapshot(event.id, "start", tree);
      });
      return;
    }
    if (event.type === "session.idle" && this.openTurn) {
      const turn = this.openTurn;
      this.openTurn = undefined;
      this.enqueue((store) => store.snapshot(turn, "end").then(() => undefined));
    }
  }

  /** Queues checkpoint work; a failure is logged (a turn never fails because a checkpoint did). */
  private enqueue(task: (store: GitCheckpoints) => Promise<void>): void {
    this.work = this.work.then(async () => {
      if (!(await this.tracking())) return;
      const store = await this.checkpoints();
      if (!store) return;
      try {
        await task(store);
      } catch (error) {
        this.host.logger.warn(`checkpoint failed: ${errorMessage(error)}`);
      }
    });
  }
}
