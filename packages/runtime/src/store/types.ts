/**
 * The session store: where a session's persisted state lives. Two implementations: the files of
 * `<home>/session-state/<id>/` (the default, `file-store.ts`) and PostgreSQL (`postgres/`, loaded
 * only when a `postgres://` store is configured). Sessions depend on these interfaces only; the
 * implementations import nothing from `session/`.
 *
 * What a store holds per session:
 * - the workspace info (`workspace.yaml` in the file store),
 * - an append-only **event log** (`events.jsonl`): one JSON text per persisted event, in order,
 * - small **files** by name: `plan.md`, `resume-point.json`, `checkpoints/*`, `files/*`
 *   (`session.workspace.*`).
 *
 * Positions in a log are opaque numbers that only the log that made them interprets: byte offsets
 * of line starts in the file store, sequence numbers in PostgreSQL. A position is "between two
 * entries"; 0 is the start. An entry occupies a {@link LogRange} `[start, end)` of positions.
 */
import type { LogProgress } from "./log-progress.js";
import type { TandemError } from "../errors.js";

/** A session's workspace info (`workspace.yaml` in the file store). */
export interface WorkspaceInfo {
  id: string;
  cwd: string;
  summary_count: number;
  created_at: string;
  updated_at: string;
  summary?: string;
  model?: string;
  /** The name the user gave the session (`session.name.set`). */
  name?: string;
  /** The SDK generation (`"0.2"` or `"1.0"`) of the client that created or last resumed the session. */
  client_generation?: string;
}

/** A persisted session as listing finds it. */
export interface StoredSessionInfo {
  sessionId: string;
  workspace: WorkspaceInfo;
  modifiedTime: Date;
}

/** The positions `[start, end)` one log entry occupies (bytes with its newline, or `[seq - 1, seq)`). */
export type LogRange = readonly [start: number, end: number];

/** Where a page read continues: a position between entries, and the direction of paging. */
export interface LogPosition {
  offset: number;
  direction: "forward" | "backward";
}

/** One page of persisted events, as JSON text lines. */
export interface LogPage {
  /** The events' JSON text, oldest first. */
  lines: string[];
  /** Where the next page in the same direction starts. */
  next: LogPosition;
  /** More events lie beyond `next` in the read's direction. */
  hasMore: boolean;
  /** The position was not between two entries of this log (it was rewritten): the page starts at a boundary instead. */
  expired: boolean;
}

/** What a pass over a log's entries saw. */
export interface LogScan {
  /** The position just past the last complete entry seen. */
  end: number;
  /** Bytes read to do it. */
  bytesRead: number;
  /** Bytes after the last complete entry (a torn last line of a file); 0 when the pass stopped early. */
  tornBytes: number;
}

/** Told when a log stops being writable. */
export interface EventLogObserver {
  /** A write failed (once per failure, not again for each failed retry); `error` is `PersistenceFailed`. */
  failed(error: TandemError): void;
}

/**
 * One session's append-only event log. Appends are buffered and written in batches off the event
 * path; a failed write keeps the unwritten entries in memory, in order, reports the failure once to
 * the observers and is retried by the next explicit `flush` (see `SessionPersistence`). A log only
 * read from (`scan`, `readPage`) needs no `close`. A writer continues where it last saw the log end
 * (its last write, or a `scan` that reached the end): a store that can tell (PostgreSQL) refuses a
 * batch when another writer appended in between, rather than forking the log.
 */
export interface SessionEventLog {
  /** Names the log in messages (a path, or `postgres:…/<session id>`). */
  readonly location: string;
  /** The standing write failure, or undefined while the log is writable. */
  readonly failure: TandemError | undefined;
  /** How many entries wait in memory. */
  readonly heldLines: number;
  /** Adds an observer of write failures; returns a function that removes it. */
  watch(observer: EventLogObserver): () => void;
  /** How many entries were appended and how many of them are written (see `log-progress.ts`). */
  readonly progress: LogProgress;
  /**
   * Whether the session's clients get the events this log holds in memory after a failed write.
   * True for the local file log (a full disk is reported at once; the held events are written
   * first when space returns, by this same process); false for a shared database, where a node
   * that cannot write may also have lost the session to another node, so its clients only ever
   * see committed events.
   */
  readonly showsHeldEvents: boolean;
  /** Queues one event's JSON text (no newline). */
  append(line: string): void;
  /** Writes what is queued (and retries what a failure held back); never rejects — check `failure`. */
  flush(options?: { durable?: boolean }): Promise<void>;
  /** Flushes and releases the log. */
  close(): Promise<void>;
  /**
   * Once the writes under way are done: the position past the last entry written through this
   * log (undefined when it wrote nothing yet) and the entries not yet written, in order.
   */
  position(): Promise<{ endOffset: number | undefined; pending: readonly string[] }>;
  /** Calls `onLine` for each complete entry from position `start` on, in order; `false` stops. */
  scan(start: number, onLine: (line: string, range: LogRange) => boolean | void): Promise<LogScan>;
  /** The entry's text when exactly one complete entry occupies `range`, else undefined. */
  entryAt(range: LogRange): Promise<string | undefined>;
  /**
   * The entries before position `end` (minus the `excluded` ranges) followed by `pending`, as the
   * UTF-8 bytes of a JSON array between `prefix` and `suffix`, without re-serialising an event.
   */
  arrayBytes(end: number, excluded: readonly LogRange[], pending: readonly string[], prefix: string, suffix: string): Promise<Buffer>;
  /** One bounded page of entries (`session.eventLog.read`), `accept` filtering them. */
  readPage(position: LogPosition, max: number, accept: (line: string) => boolean): Promise<LogPage>;
  /** The position just past the last complete entry. */
  tail(): Promise<LogPosition>;
}

/**
 * A session's small files, by name relative to the session (`plan.md`, `resume-point.json`,
 * `checkpoints/001-x.md`, `files/notes/a.md`). Writes replace a file whole or not at all and fail
 * with `PersistenceFailed`; reads of a missing file give undefined.
 */
export interface SessionFiles {
  /** Names a file in messages and results (a path in the file store). */
  location(name: string): string;
  read(name: string): Promise<string | undefined>;
  exists(name: string): Promise<boolean>;
  write(name: string, content: string): Promise<void>;
  append(name: string, content: string): Promise<void>;
  /** Removes a file; false when there was none. */
  remove(name: string): Promise<boolean>;
  /** The files under `folder` (recursively), as names relative to it, sorted. */
  list(folder: string): Promise<string[]>;
  /**
   * A client's `session.workspace.*` path as a name under `files/`, refusing anything that leaves
   * that folder or names a folder (-32602).
   */
  workspaceFileName(path: string): Promise<string>;
}

/**
 * Cluster fencing, the optional part of a store that several nodes share: the lease a node's
 * appends to a session must carry (see `cluster/leases.ts`; the SQL is `postgres/lease-sql.ts`).
 */
export interface AppendFence {
  /** This node's lease of the session; undefined when it holds none (its appends are refused). */
  leaseOf(sessionId: string): { nodeId: string; epoch: number } | undefined;
  readonly nodeId: string;
  /**
   * An append under this node's lease was refused (the lease expired, or another node took the
   * session): resolves true when the lease is this node's again (it expired untouched and was
   * reclaimed: the append is retried), false when it is lost (the node steps down).
   */
  refused?(sessionId: string): Promise<boolean>;
}

/** The store of every session (see the module comment). */
export interface SessionStore {
  /** `file`, `postgres`, or `client` (the file system a client provides, `sessionFs.setProvider`). */
  readonly kind: "file" | "postgres" | "client";
  /** The local state folder (extensions, worktrees, per-node scratch), also with a database store. */
  readonly home: string;
  /** The local folder of one session (git checkpoint index, worktree); throws -32602 for an unsafe id. */
  sessionDir(sessionId: string): string;
  /** Prepares a session (its local folder, and the store's own place for it); returns the local folder. */
  createSessionDir(sessionId: string): Promise<string>;
  /** Whether a session is persisted. */
  exists(sessionId: string): Promise<boolean>;
  /** Every persisted session with workspace info, newest first. */
  list(): Promise<StoredSessionInfo[]>;
  /** Deletes a session and everything stored for it; false when there was none. */
  delete(sessionId: string): Promise<boolean>;
  /** Writes the workspace info whole or not at all; throws `PersistenceFailed`. */
  writeWorkspace(info: WorkspaceInfo): Promise<void>;
  /** The workspace info, or undefined when missing or unreadable. */
  readWorkspace(sessionId: string): Promise<WorkspaceInfo | undefined>;
  /** Names the workspace info in messages. */
  workspaceFilePath(sessionId: string): string;
  /** A writer/reader of the session's event log. */
  openEventLog(sessionId: string): SessionEventLog;
  /** Replaces a new session's whole event log (fork, import); throws `PersistenceFailed`. */
  writeEvents(sessionId: string, lines: readonly string[]): Promise<void>;
  /** The session's files. */
  files(sessionId: string): SessionFiles;
  /** Releases connections (runtime exit). */
  close(): Promise<void>;
  /**
   * Called once per opened session with its event stream, for stores that keep something of their
   * own in step with the session (PostgreSQL: the plan's local mirror at each turn end).
   */
  watchSession?(sessionId: string, events: SessionEventSource, onError: (error: unknown) => void): void;
  /** Cluster (stores several nodes share): from now on, appends run only under this node's lease of their session. */
  useLeases?(fence: AppendFence): void;
}

/** A session's events, as {@link SessionStore.watchSession} listens to them. */
export interface SessionEventSource {
  addListener(listener: (event: { type: string }) => void): () => void;
}
