import { access } from "node:fs/promises";
import { subAgentRunOf } from "../compat/profile.js";
import { join } from "node:path";
import type { SessionEvent } from "@tandem/protocol";
import { ErrorCodes, errorMessage, invalidParams, TandemError } from "../errors.js";
import type { SessionScopePort } from "../ports/session-scope.js";
import type { PersistedEventsPort } from "../ports/events.js";
import { HistoryRebuilder, type LiveEvent } from "../session/history.js";
import { GitCheckpoints, type Checkpoint, type FileChange } from "./git-checkpoints.js";
import { FileBackups, type ToolFileChange } from "./file-backups.js";
import { SessionWrites } from "./session-writes.js";
import { readWorktreeInfo } from "./worktree.js";

/** What {@link SessionHistory} reads of its session's scope (the emitter with its persisted log). */
export type HistoryHost = Pick<SessionScopePort, "sessionId" | "workingDirectory" | "workspacePath" | "messages" | "logger" | "config"> & { readonly emitter: PersistedEventsPort };

/** A rewind point (`HistoryRewindPoint` of the official SDK 1.0). */
export type RewindPoint = {
  eventId: string;
  userMessage: string;
  timestamp: string;
  canRestoreFiles: boolean;
  fileCount: number;
  turnChangedFiles: boolean;
  linesAdded: number;
  linesRemoved: number;
  isAutopilotContinuation: boolean;
}

/** Why files cannot be restored (official SDK 1.0 names). */
type UnavailableReason = "file-change-tracking-disabled" | "session-busy";

/** The result of a rewind (`HistoryRewindResult` of the official SDK 1.0). */
export type RewindResult = {
  outcome: "success" | "session-busy" | "file-change-tracking-disabled" | "files-rolled-back" | "rollback-incomplete";
  eventsRemoved?: number;
  restoredFiles: string[];
  skippedFiles: Array<{ path: string; reason: "user-modified" | "skipped-capture" }>;
  error?: string;
}

/** The result of a preview (`HistoryPreviewRewindResult`, plus Tandem's `message`). */
export type RewindPreview = {
  available: boolean;
  reason?: UnavailableReason;
  fileCount: number;
  files: FileChange[];
  message?: string;
}

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
  private readonly changeCache = new Map<string, Promise<FileChange[]>>();
  /** Tracking a session has without asking: earlier tracked turns, or its own worktree. */
  private inherited: Promise<boolean> | undefined;
  /** The untracked files the session made (the only untracked files its checkpoints capture). */
  private readonly writes = new SessionWrites();
  /** Outside a git work tree: what the file tools' writes replaced, per turn. */
  private readonly backups: FileBackups;

  /** @param isBusy whether the session is running a turn (a busy session lists no rewind points and does not rewind). */
  constructor(
    private readonly host: HistoryHost,
    private readonly isBusy: () => boolean,
  ) {
    this.backups = new FileBackups(join(host.workspacePath, "file-backups.jsonl"));
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
    if (await this.backups.any().catch(() => false)) return true;
    return (await readWorktreeInfo(this.host.workspacePath)) !== undefined;
  }

  private get indexFile(): string {
    return join(this.host.workspacePath, "checkpoint.index");
  }

  /** The session's git checkpoints; undefined outside a git work tree. */
  checkpoints(): Promise<GitCheckpoints | undefined> {
    this.store ??= GitCheckpoints.open(this.host.workingDirectory, this.host.sessionId, this.indexFile, {
      turnIds: () => this.turnIds(),
      captures: (path, root) => this.writes.owns(path, root),
    }).catch((error: unknown) => {
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
      await this.backups.record(turn, change).catch((error: unknown) => {
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
    const fileChangeTrackingEnabled = await this.tracking();
    if (this.isBusy()) return { fileChangeTrackingEnabled, unavailableReason: "session-busy", points: [] };
    await this.work;
    const store = fileChangeTrackingEnabled ? await this.checkpoints() : undefined;
    const turns = (await this.timeline()).live.filter((entry) => entry.turn);
    if (fileChangeTrackingEnabled && !store) {
      const points = await Promise.all(turns.map((entry, index) => this.pointFromBackups(entry, new Set(turns.slice(index).map((turn) => turn.id)))));
      return { fileChangeTrackingEnabled, points };
    }
    const points = await Promise.all(turns.map((entry) => this.pointOf(entry, store)));
    return { fileChangeTrackingEnabled, points };
  }

  /** The files a `conversation-and-files` rewind to `eventId` would change. */
  async previewRewind(eventId: string): Promise<RewindPreview> {
    const timeline = await this.timeline();
    this.liveTurn(timeline, eventId);
    if (this.isBusy()) return { available: false, reason: "session-busy", fileCount: 0, files: [] };
    await this.work;
    if ((await this.tracking()) && !(await this.gitTracking())) {
      const files = await this.backups.changesOf(turnsFrom(timeline, eventId));
      return { available: true, fileCount: files.length, files };
    }
    const start = await this.startCheckpoint(eventId);
    if (!start.checkpoint) return { available: false, reason: "file-change-tracking-disabled", fileCount: 0, files: [], message: start.why };
    const files = await start.store.changesSince(start.checkpoint.commit);
    return { available: true, fileCount: files.length, files };
  }

  /** Rewinds the conversation to before `eventId`; in `conversation-and-files` mode also restores the files. */
  async rewind(eventId: string, mode: "conversation" | "conversation-and-files"): Promise<RewindResult> {
    const unchanged = { restoredFiles: [], skippedFiles: [] };
    if (this.isBusy()) return { outcome: "session-busy", ...unchanged };
    await this.work;
    // A message may have arrived while the checkpoints settled.
    if (this.isBusy()) return { outcome: "session-busy", ...unchanged };
    const timeline = await this.timeline();
    this.liveTurn(timeline, eventId);
    let restoredFiles: string[] = [];
    if (mode === "conversation-and-files" && (await this.tracking()) && !(await this.gitTracking())) {
      try {
        restoredFiles = await this.backups.restore(turnsFrom(timeline, eventId));
      } catch (error) {
        // Nothing of the conversation is removed; the writes are kept for another try.
        return { outcome: "rollback-incomplete", restoredFiles: [], skippedFiles: [], error: errorMessage(error) };
      }
    } else if (mode === "conversation-and-files") {
      const start = await this.startCheckpoint(eventId);
      if (!start.checkpoint) return { outcome: "file-change-tracking-disabled", ...unchanged };
      const restored = await this.restoreFiles(start.store, start.checkpoint);
      if (!restored.ok) return restored.result;
      restoredFiles = restored.paths;
    }
    const eventsRemoved = this.truncateTo(timeline, eventId);
    return { outcome: "success", eventsRemoved, restoredFiles, skippedFiles: [] };
  }

  /** Removes `eventId` and every later event from the conversation; files are not touched. */
  async truncate(eventId: string): Promise<{ eventsRemoved: number }> {
    if (this.isBusy()) throw new TandemError(ErrorCodes.SessionBusy, `Session ${this.host.sessionId} is busy: truncate its history once it is idle.`, { sessionId: this.host.sessionId });
    await this.work;
    const timeline = await this.timeline();
    if (!timeline.live.some((entry) => entry.id === eventId)) throw notInConversation(eventId, "event");
    return { eventsRemoved: this.truncateTo(timeline, eventId) };
  }

  /** The conversation's persisted events as a rebuilder (rewinds applied). */
  async timeline(): Promise<HistoryRebuilder> {
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

  private async pointOf(entry: LiveEvent, store: GitCheckpoints | undefined): Promise<RewindPoint> {
    const turn = entry.turn ?? { userMessage: "", timestamp: "" };
    const point: RewindPoint = {
      eventId: entry.id,
      userMessage: turn.userMessage,
      timestamp: turn.timestamp,
      canRestoreFiles: false,
      fileCount: 0,
      turnChangedFiles: false,
      linesAdded: 0,
      linesRemoved: 0,
      isAutopilotContinuation: turn.source === "autopilot",
    };
    const start = store?.find(entry.id, "start");
    const latest = store?.latest;
    if (!store || !start || !latest) return point;
    const end = store.find(entry.id, "end") ?? latest;
    const [onward, own] = await Promise.all([this.changesBetween(store, start, latest), this.changesBetween(store, start, end)]);
    return {
      ...point,
      canRestoreFiles: onward.length > 0,
      fileCount: onward.length,
      turnChangedFiles: own.length > 0,
      linesAdded: own.reduce((sum, change) => sum + change.linesAdded, 0),
      linesRemoved: own.reduce((sum, change) => sum + change.linesRemoved, 0),
    };
  }

  /** A rewind point outside git: what the file tools wrote from this turn on (`onward`: its id and the later turns'). */
  private async pointFromBackups(entry: LiveEvent, onward: ReadonlySet<string>): Promise<RewindPoint> {
    const turn = entry.turn ?? { userMessage: "", timestamp: "" };
    const [all, own] = await Promise.all([this.backups.changesOf(onward), this.backups.changesOf(new Set([entry.id]))]);
    return {
      eventId: entry.id,
      userMessage: turn.userMessage,
      timestamp: turn.timestamp,
      canRestoreFiles: all.length > 0,
      fileCount: all.length,
      turnChangedFiles: own.length > 0,
      linesAdded: own.reduce((sum, change) => sum + change.linesAdded, 0),
      linesRemoved: own.reduce((sum, change) => sum + change.linesRemoved, 0),
      isAutopilotContinuation: turn.source === "autopilot",
    };
  }

  /** Changes between two checkpoints (commits never change, so the answer is kept). */
  private changesBetween(store: GitCheckpoints, from: Checkpoint, to: Checkpoint): Promise<FileChange[]> {
    const key = `${from.commit}..${to.commit}`;
    let changes = this.changeCache.get(key);
    if (!changes) {
      changes = store.changesBetween(from.commit, to.commit);
      this.changeCache.set(key, changes);
      changes.catch(() => this.changeCache.delete(key));
    }
    return changes;
  }

  private liveTurn(timeline: HistoryRebuilder, eventId: string): LiveEvent {
    const entry = timeline.live.find((item) => item.id === eventId && item.turn);
    if (!entry) throw notInConversation(eventId, "user message");
    return entry;
  }

  private async startCheckpoint(eventId: string): Promise<{ checkpoint?: undefined; why: string } | { checkpoint: Checkpoint; store: GitCheckpoints }> {
    if (!(await this.tracking())) {
      return { why: "File change tracking is not enabled for this session (enableFileChangeTracking): a rewind restores the conversation only." };
    }
    const store = await this.checkpoints();
    if (!store) return { why: `${this.host.workingDirectory} is not in a git repository: a rewind restores the conversation only, files are left as they are.` };
    const checkpoint = store.find(eventId, "start");
    if (!checkpoint) return { why: "No checkpoint was taken at the start of this turn: a rewind restores the conversation only." };
    return { checkpoint, store };
  }

  /**
   * Restores the files of a start checkpoint. The current state is checkpointed first
   * (`before-rewind`), so a failed restore is rolled back to it — and a rewind can be undone by hand.
   */
  private async restoreFiles(store: GitCheckpoints, target: Checkpoint): Promise<{ ok: true; paths: string[] } | { ok: false; result: RewindResult }> {
    const safety = await store.snapshot(target.eventId, "before-rewind");
    try {
      const paths = await store.restore(target.commit);
      await store.snapshot(target.eventId, "after-rewind", await store.treeOf(target.commit));
      return { ok: true, paths };
    } catch (error) {
      const failure = errorMessage(error);
      this.host.logger.warn(`restoring files failed, rolling back: ${failure}`);
      try {
        const paths = await store.restore(safety.commit);
        return { ok: false, result: { outcome: "files-rolled-back", restoredFiles: paths, skippedFiles: [], error: failure } };
      } catch (rollbackError) {
        return { ok: false, result: { outcome: "rollback-incomplete", restoredFiles: [], skippedFiles: [], error: `${failure}; rollback failed: ${errorMessage(rollbackError)}` } };
      }
    }
  }

  /** Emits the persisted `session.snapshot_rewind` and rebuilds the model's conversation from the events. */
  private truncateTo(timeline: HistoryRebuilder, eventId: string): number {
    const index = timeline.live.findLastIndex((entry) => entry.id === eventId);
    const eventsRemoved = timeline.live.length - index;
    const marker = this.host.emitter.emit("session.snapshot_rewind", { eventsRemoved, upToEventId: eventId });
    timeline.add(marker as SessionEvent);
    const { messages } = timeline.finish();
    this.host.messages.splice(0, this.host.messages.length, ...messages);
    this.openTurn = undefined;
    return eventsRemoved;
  }
}

/** The ids of the turn `eventId` and of every later turn still in the conversation. */
function turnsFrom(timeline: HistoryRebuilder, eventId: string): ReadonlySet<string> {
  const turns = timeline.live.filter((entry) => entry.turn);
  return new Set(turns.slice(turns.findIndex((entry) => entry.id === eventId)).map((entry) => entry.id));
}

function notInConversation(eventId: string, what: string): TandemError {
  return invalidParams(`No ${what} ${eventId} in the conversation: it never existed or a rewind already removed it.`, { eventId });
}
