import type { SessionMetadata } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { sessionNotFound, TandemError } from "../errors.js";
import type { StoredSessionInfo } from "../store/types.js";
import { diskUsage } from "./disk-usage.js";

/** Where the sessions are: what `SessionAdmin` needs from the store and the open sessions. */
export interface SessionAdminHost {
  /** Every stored session, newest first. */
  listStored(): Promise<StoredSessionInfo[]>;
  /** Stored sessions as `session.list` describes them (those with at least one message), newest first. */
  listSessions(filter?: { cwd?: string }): Promise<SessionMetadata[]>;
  /** The local folder holding a session's files. */
  sessionDir(sessionId: string): string;
  /** Whether the session is open in this runtime. */
  isOpen(sessionId: string): boolean;
  /** Whether the session is stored. */
  isStored(sessionId: string): Promise<boolean>;
  /** Writes an open session's pending events (durably) and its workspace info. */
  saveOpen(sessionId: string): Promise<void>;
  /** Closes an open session (its files stay). */
  close(sessionId: string): Promise<void>;
  /** Deletes a session and its files; false when there was none. */
  delete(sessionId: string): Promise<boolean>;
}

/** What `sessions.pruneOld` did (or, with `dryRun`, would do). */
export type PruneOutcome = {
  deleted: string[];
  candidates: string[];
  skipped: string[];
  freedBytes: number;
  dryRun: boolean;
};

const dayMs = 24 * 60 * 60 * 1000;

/**
 * The server-scoped `sessions.*` operations on stored sessions: save and close open ones, measure,
 * find, delete and prune stored ones. Open sessions are never deleted by pruning (they are skipped).
 *
 * @example
 * const admin = new SessionAdmin(host);
 * const { freedBytes } = await admin.bulkDelete(["1234"]);
 */
export class SessionAdmin {
  constructor(private readonly host: SessionAdminHost) {}

  /** Writes an open session's state now; a stored but closed session has nothing to write. */
  async save(sessionId: string): Promise<void> {
    if (this.host.isOpen(sessionId)) {
      await this.host.saveOpen(sessionId);
      return;
    }
    if (!(await this.host.isStored(sessionId))) throw sessionNotFound(sessionId);
  }

  /** Closes an open session; a closed or unknown one is already closed. */
  async close(sessionId: string): Promise<void> {
    if (this.host.isOpen(sessionId)) await this.host.close(sessionId);
  }

  /**
   * Tandem holds a session only while it is open (and, in a cluster, its lease is released when it
   * closes), so there is nothing to release for a closed one; an open one must be closed first.
   */
  releaseLock(sessionId: string): void {
    if (!this.host.isOpen(sessionId)) return;
    throw new TandemError(ErrorCodes.SessionBusy, `Session ${sessionId} is open in this runtime; close it (sessions.close) to release it`, { sessionId });
  }

  /** The ids that are open in this runtime. */
  checkInUse(sessionIds: readonly string[]): string[] {
    return sessionIds.filter((sessionId) => this.host.isOpen(sessionId));
  }

  /** The one stored session whose id starts with `prefix`; undefined when none or several do. */
  async findByPrefix(prefix: string): Promise<string | undefined> {
    const matches = (await this.host.listStored()).filter((info) => info.sessionId.startsWith(prefix));
    return matches.length === 1 ? matches[0]?.sessionId : undefined;
  }

  /** The newest stored session (with at least one message) that ran in `cwd` (any, without one). */
  async lastForContext(cwd: string | undefined): Promise<string | undefined> {
    const [latest] = await this.host.listSessions(cwd === undefined ? undefined : { cwd });
    return latest?.sessionId;
  }

  /** Bytes on disk of every stored session. */
  async sizes(): Promise<Record<string, number>> {
    const stored = await this.host.listStored();
    const sizes = await Promise.all(stored.map((info) => diskUsage(this.host.sessionDir(info.sessionId))));
    return Object.fromEntries(stored.map((info, index) => [info.sessionId, sizes[index] ?? 0]));
  }

  /** Deletes each session (open ones are closed first); the bytes freed per id, 0 for an unknown one. */
  async bulkDelete(sessionIds: readonly string[]): Promise<Record<string, number>> {
    const freed: Record<string, number> = {};
    for (const sessionId of new Set(sessionIds)) {
      const bytes = await diskUsage(this.host.sessionDir(sessionId));
      freed[sessionId] = (await this.host.delete(sessionId)) ? bytes : 0;
    }
    return freed;
  }

  /**
   * Deletes the stored sessions not modified for `olderThanDays` days; open sessions, excluded ids
   * and (unless `includeNamed`) named sessions are skipped. With `dryRun` nothing is deleted:
   * `candidates` and `freedBytes` say what would be.
   */
  async pruneOld(options: { olderThanDays: number; dryRun?: boolean; includeNamed?: boolean; excludeSessionIds?: readonly string[] }): Promise<PruneOutcome> {
    const cutoff = Date.now() - options.olderThanDays * dayMs;
    const excluded = new Set(options.excludeSessionIds ?? []);
    const dryRun = options.dryRun === true;
    const candidates: string[] = [];
    const skipped: string[] = [];
    for (const info of await this.host.listStored()) {
      if (info.modifiedTime.getTime() > cutoff) continue;
      const keep = excluded.has(info.sessionId) || this.host.isOpen(info.sessionId) || (info.workspace.name !== undefined && options.includeNamed !== true);
      (keep ? skipped : candidates).push(info.sessionId);
    }
    let freedBytes = 0;
    const deleted: string[] = [];
    for (const sessionId of candidates) {
      const bytes = await diskUsage(this.host.sessionDir(sessionId));
      if (dryRun) {
        freedBytes += bytes;
        continue;
      }
      if (!(await this.host.delete(sessionId))) continue;
      freedBytes += bytes;
      deleted.push(sessionId);
    }
    return { deleted, candidates, skipped, freedBytes, dryRun };
  }

  /** Fills in what the store knows of each session: times, summary, name, working directory. */
  async enrich<T extends { sessionId: string }>(sessions: readonly T[]): Promise<T[]> {
    const stored = new Map((await this.host.listStored()).map((info) => [info.sessionId, info]));
    return sessions.map((session) => {
      const info = stored.get(session.sessionId);
      if (!info) return session;
      const { workspace } = info;
      return {
        ...session,
        startTime: workspace.created_at,
        modifiedTime: info.modifiedTime.toISOString(),
        ...(workspace.summary !== undefined ? { summary: workspace.summary } : {}),
        ...(workspace.name !== undefined ? { name: workspace.name } : {}),
        context: { ...(session as { context?: object }).context, cwd: workspace.cwd },
      };
    });
  }
}
