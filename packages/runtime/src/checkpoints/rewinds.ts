import type { SessionEvent } from "@tandem/protocol";
import { ErrorCodes, errorMessage, invalidParams, TandemError } from "../errors.js";
import type { HistoryRebuilder, LiveEvent } from "../session/history.js";
import type { FileBackups } from "./file-backups.js";
import type { Checkpoint, FileChange, GitCheckpoints } from "./git-checkpoints.js";
import type { HistoryHost } from "./history-host.js";

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
export type UnavailableReason = "file-change-tracking-disabled" | "session-busy";

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

/** What the rewinds read of their session's history (`SessionHistory`, which loads this module on the first history request). */
export interface RewindSource {
  readonly host: HistoryHost;
  /** Whether the session is running a turn (a busy session lists no rewind points and does not rewind). */
  isBusy(): boolean;
  tracking(): Promise<boolean>;
  /** The git checkpoints when tracking is on in a git work tree. */
  gitTracking(): Promise<GitCheckpoints | undefined>;
  checkpoints(): Promise<GitCheckpoints | undefined>;
  /** Resolves when the checkpoint work queued so far is done. */
  settled(): Promise<void>;
  backups(): Promise<FileBackups>;
  timeline(): Promise<HistoryRebuilder>;
  /** A rewind removed the open turn: its end checkpoint is not taken. */
  closeOpenTurn(): void;
}

/**
 * A session's rewind points, rewind previews, rewinds and truncations (`session.history.*`), on
 * its {@link RewindSource}'s checkpoints and file backups. See `SessionHistory` for how the
 * conversation and the files go back.
 *
 * @example
 * const rewinds = new SessionRewinds(source);
 * const { points } = await rewinds.listRewindPoints();
 * await rewinds.rewind(points[1].eventId, "conversation-and-files");
 */
export class SessionRewinds {
  private readonly changeCache = new Map<string, Promise<FileChange[]>>();

  constructor(private readonly source: RewindSource) {}

  /** The root user turns still in the conversation, with what their rewind would restore. */
  async listRewindPoints(): Promise<{ fileChangeTrackingEnabled: boolean; unavailableReason?: UnavailableReason; points: RewindPoint[] }> {
    const fileChangeTrackingEnabled = await this.source.tracking();
    if (this.source.isBusy()) return { fileChangeTrackingEnabled, unavailableReason: "session-busy", points: [] };
    await this.source.settled();
    const store = fileChangeTrackingEnabled ? await this.source.checkpoints() : undefined;
    const turns = (await this.source.timeline()).live.filter((entry) => entry.turn);
    if (fileChangeTrackingEnabled && !store) {
      const points = await Promise.all(turns.map((entry, index) => this.pointFromBackups(entry, new Set(turns.slice(index).map((turn) => turn.id)))));
      return { fileChangeTrackingEnabled, points };
    }
    const points = await Promise.all(turns.map((entry) => this.pointOf(entry, store)));
    return { fileChangeTrackingEnabled, points };
  }

  /** The files a `conversation-and-files` rewind to `eventId` would change. */
  async previewRewind(eventId: string): Promise<RewindPreview> {
    const timeline = await this.source.timeline();
    this.liveTurn(timeline, eventId);
    if (this.source.isBusy()) return { available: false, reason: "session-busy", fileCount: 0, files: [] };
    await this.source.settled();
    if ((await this.source.tracking()) && !(await this.source.gitTracking())) {
      const files = await (await this.source.backups()).changesOf(turnsFrom(timeline, eventId));
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
    if (this.source.isBusy()) return { outcome: "session-busy", ...unchanged };
    await this.source.settled();
    // A message may have arrived while the checkpoints settled.
    if (this.source.isBusy()) return { outcome: "session-busy", ...unchanged };
    const timeline = await this.source.timeline();
    this.liveTurn(timeline, eventId);
    let restoredFiles: string[] = [];
    if (mode === "conversation-and-files" && (await this.source.tracking()) && !(await this.source.gitTracking())) {
      try {
        restoredFiles = await (await this.source.backups()).restore(turnsFrom(timeline, eventId));
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
    if (this.source.isBusy()) throw new TandemError(ErrorCodes.SessionBusy, `Session ${this.source.host.sessionId} is busy: truncate its history once it is idle.`, { sessionId: this.source.host.sessionId });
    await this.source.settled();
    const timeline = await this.source.timeline();
    if (!timeline.live.some((entry) => entry.id === eventId)) throw notInConversation(eventId, "event");
    return { eventsRemoved: this.truncateTo(timeline, eventId) };
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
    const backups = await this.source.backups();
    const [all, own] = await Promise.all([backups.changesOf(onward), backups.changesOf(new Set([entry.id]))]);
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
    if (!(await this.source.tracking())) {
      return { why: "File change tracking is not enabled for this session (enableFileChangeTracking): a rewind restores the conversation only." };
    }
    const store = await this.source.checkpoints();
    if (!store) return { why: `${this.source.host.workingDirectory} is not in a git repository: a rewind restores the conversation only, files are left as they are.` };
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
      this.source.host.logger.warn(`restoring files failed, rolling back: ${failure}`);
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
    const marker = this.source.host.emitter.emit("session.snapshot_rewind", { eventsRemoved, upToEventId: eventId });
    timeline.add(marker as SessionEvent);
    const { messages } = timeline.finish();
    this.source.host.messages.splice(0, this.source.host.messages.length, ...messages);
    this.source.closeOpenTurn();
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
