/**
 * Resume that reads only what it needs, and `getMessages` without an in-memory copy of the events.
 *
 * Design:
 * - Resuming replays `events.jsonl` through a {@link SessionReplay}: the {@link HistoryRebuilder}
 *   (messages, model, reasoning effort, mode, selected agent, first prompt, start time, cwd, last
 *   event id), the `allow-all` permission mode, the event count (`session.resume`'s `eventCount`)
 *   and the byte ranges of unreadable or blank lines (left out of `getMessages`).
 * - A **resume point** (`resume-point.json`, next to `events.jsonl`) is that replay state right
 *   after the line of the session's last successful root `session.compaction_complete`, with the
 *   line's byte range and event id. After a compaction the history is small, so the point is small,
 *   and a resume restores it and replays only the lines after it: the tail since the last
 *   compaction, not the whole session. `live` (rewind targets) is not kept: a tail rewind whose
 *   target is before the point makes the resume read the whole file instead.
 * - The point is written by a `ResumePointRecorder` (`resume-point-recorder.ts`) in the live
 *   session after each such compaction, once its line is on disk (durable): it replays from the previous valid point (or
 *   the start) up to that line — so each byte of the file is replayed once over the session's life
 *   — and writes the file atomically (temporary file + rename).
 * - On resume the point is checked against `events.jsonl`: readable, same version, the file holds
 *   a complete line at `[lineStart, offset)` preceded by a newline, whose event has the recorded id.
 *   Anything else (missing, torn, from another file, a crash between the compaction's line and the
 *   point's write) falls back to the previous state of affairs — a full read — so a crash can never
 *   make a session unresumable; an older point is as good as a newer one (more tail to replay).
 * - `getMessages` reads the file's bytes up to the log's last complete line, turns newlines into
 *   commas without parsing (each line is one event's JSON text), leaves out the recorded unreadable
 *   ranges and appends the lines not yet written (see `EventLog.position`). Ephemeral events were
 *   never part of it and still are not.
 */
import type { SessionEvent } from "@tandem/protocol";
import type { Logger } from "../log.js";
import type { LogRange as ByteRange, SessionEventLog, SessionFiles } from "../store/types.js";
import { HistoryRebuilder, type HistorySnapshot } from "./history.js";

/** The resume point's file name among the session's files. */
export const resumePointFileName = "resume-point.json";
const resumePointVersion = 1;

/** The replay state a resume point holds. */
interface ReplayData {
  count: number;
  skippedLines: number;
  excluded: Array<[number, number]>;
  approveAll: boolean;
  history: HistorySnapshot;
}

/** The content of `resume-point.json`. */
export interface ResumePoint {
  version: number;
  /** The log range of the `session.compaction_complete` entry the state is right after (bytes in the file store). */
  lineStart: number;
  offset: number;
  eventId: string;
  state: ReplayData;
}

/** The state of a session rebuilt from its events file, one line at a time. */
export class SessionReplay {
  history = new HistoryRebuilder();
  count = 0;
  skippedLines = 0;
  /** Unreadable or blank lines (left out of `getMessages`), in file order. */
  excluded: ByteRange[] = [];
  approveAll = false;
  /** The offset past the last complete line replayed. */
  end = 0;
  /** Bytes read from the events file to rebuild this state. */
  bytesRead = 0;
  /** Set when the replay started from a resume point rather than the file's start. */
  resumedFrom: number | undefined;
  private lineNumber = 0;

  constructor(
    private readonly log: SessionEventLog,
    private readonly logger: Logger,
  ) {}

  /** A replay that continues from a resume point. */
  static fromPoint(log: SessionEventLog, logger: Logger, point: ResumePoint): SessionReplay {
    const replay = new SessionReplay(log, logger);
    replay.history = HistoryRebuilder.restore(point.state.history);
    replay.count = point.state.count;
    replay.skippedLines = point.state.skippedLines;
    replay.excluded = point.state.excluded.map(([start, end]) => [start, end] as const);
    replay.approveAll = point.state.approveAll;
    replay.end = point.offset;
    replay.resumedFrom = point.offset;
    return replay;
  }

  /** Replays the lines from `this.end` on; with `untilEventId`, stops right after that event's line (returns its range). */
  async read(untilEventId?: string): Promise<ByteRange | undefined> {
    let found: ByteRange | undefined;
    const scan = await this.log.scan(this.end, (line, range) => {
      const event = this.take(line, range);
      if (untilEventId !== undefined && event?.id === untilEventId) {
        found = range;
        return false;
      }
      return true;
    });
    this.end = scan.end;
    this.bytesRead += scan.bytesRead;
    if (scan.tornBytes > 0) {
      // Cut off by the events log before its next append; never an event.
      this.skippedLines++;
      this.logger.warn(`skipping unreadable ${this.where(this.lineNumber + 1, scan.end)} of ${this.log.location} (a torn last line of ${scan.tornBytes} bytes)`);
    }
    return found;
  }

  /** The state as a resume point after the line `range` holding `eventId`. */
  point(range: ByteRange, eventId: string): ResumePoint {
    const state: ReplayData = {
      count: this.count,
      skippedLines: this.skippedLines,
      excluded: this.excluded.map(([start, end]) => [start, end]),
      approveAll: this.approveAll,
      history: this.history.snapshot(),
    };
    return { version: resumePointVersion, lineStart: range[0], offset: range[1], eventId, state };
  }

  /** Names a line in a warning: by number when the replay started at the file's start, else by offset. */
  private where(lineNumber: number, offset: number): string {
    return this.resumedFrom === undefined ? `line ${lineNumber}` : `the line at position ${offset}`;
  }

  private take(line: string, range: ByteRange): SessionEvent | undefined {
    this.lineNumber++;
    let event: SessionEvent;
    try {
      event = JSON.parse(line) as SessionEvent;
    } catch {
      this.excluded.push(range);
      if (line.trim() !== "") {
        this.skippedLines++;
        this.logger.warn(`skipping unreadable ${this.where(this.lineNumber, range[0])} of ${this.log.location} (torn write?)`);
      }
      return undefined;
    }
    this.count++;
    this.history.add(event);
    if (event.type === "session.permissions_changed") this.approveAll = event.data.mode === "allow-all";
    return event;
  }
}

/**
 * Rebuilds a session from its event log: from its valid resume point when there is one (reading
 * only the entries after it), else from the start.
 *
 * @example
 * const replay = await replaySession(store.openEventLog(id), store.files(id), logger);
 * const rebuilt = replay.history.finish();
 */
export async function replaySession(log: SessionEventLog, files: SessionFiles, logger: Logger): Promise<SessionReplay> {
  const point = await readResumePoint(files, log);
  if (point) {
    const replay = SessionReplay.fromPoint(log, logger, point);
    await replay.read();
    if (replay.history.unresolvedRewinds === 0) return replay;
    logger.debug(`${log.location}: a rewind reaches before the resume point; reading the whole log`);
  }
  const replay = new SessionReplay(log, logger);
  await replay.read();
  return replay;
}

/** The session's resume point when it is valid for its event log (see the module comment), else undefined. */
export async function readResumePoint(files: SessionFiles, log: SessionEventLog): Promise<ResumePoint | undefined> {
  let point: ResumePoint;
  try {
    const text = await files.read(resumePointFileName);
    if (text === undefined) return undefined;
    point = JSON.parse(text) as ResumePoint;
  } catch {
    return undefined;
  }
  if (!isPointShape(point)) return undefined;
  try {
    const line = await log.entryAt([point.lineStart, point.offset]);
    if (line === undefined) return undefined;
    const event = JSON.parse(line) as { id?: unknown; type?: unknown };
    return event.id === point.eventId && event.type === "session.compaction_complete" ? point : undefined;
  } catch {
    return undefined;
  }
}

function isPointShape(point: ResumePoint): boolean {
  const state = point?.state;
  return (
    point?.version === resumePointVersion &&
    Number.isSafeInteger(point.lineStart) &&
    Number.isSafeInteger(point.offset) &&
    point.lineStart >= 0 &&
    point.offset > point.lineStart &&
    typeof point.eventId === "string" &&
    typeof state === "object" &&
    state !== null &&
    Number.isSafeInteger(state.count) &&
    Number.isSafeInteger(state.skippedLines) &&
    Array.isArray(state.excluded) &&
    typeof state.approveAll === "boolean" &&
    Array.isArray(state.history?.messages) &&
    Array.isArray(state.history?.toolNames) &&
    Array.isArray(state.history?.followUps) &&
    typeof state.history?.fields === "object"
  );
}

/**
 * Writes the session's resume point for the root compaction `eventId` ended (see the module
 * comment): flushes the log, reads on from the previous point (or the start) to that event and
 * writes where a resume may start. Nothing is written when the log failed, the event is not in it,
 * or a rewind reaches back before the previous point; a failure is logged and leaves the older point
 * (or none), which resume handles. `ResumePointRecorder` calls it.
 *
 * @example
 * await recordResumePoint(log, store.files(id), logger, compactionEvent.id);
 */
export async function recordResumePoint(log: SessionEventLog, files: SessionFiles, logger: Logger, eventId: string): Promise<void> {
  try {
    await log.flush({ durable: true });
    if (log.failure) return;
    const previous = await readResumePoint(files, log);
    const replay = previous ? SessionReplay.fromPoint(log, logger, previous) : new SessionReplay(log, logger);
    const range = await replay.read(eventId);
    if (!range) return;
    // A rewind to before the previous point: its state cannot be continued from there.
    if (replay.history.unresolvedRewinds > 0) return;
    await files.write(resumePointFileName, JSON.stringify(replay.point(range, eventId)));
  } catch (error) {
    logger.warn(`could not write ${files.location(resumePointFileName)}`, error);
  }
}
