import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Pool } from "pg";
import type { Logger } from "../../log.js";
import { persistenceFailed } from "../persistence-error.js";
import { assertSessionId } from "../safe-path.js";
import type { AppendFence, SessionEventLog, SessionEventSource, SessionFiles, SessionStore, StoredSessionInfo, WorkspaceInfo } from "../types.js";
import { batchFields } from "./event-fields.js";
import { PgEventLog } from "./pg-event-log.js";
import { PgSessionFiles } from "./pg-session-files.js";
import { PlanMirroredFiles, syncPlanAtTurnEnds } from "./plan-mirror.js";

/** A `sessions` row as read. */
interface SessionRow {
  id: string;
  has_workspace: boolean;
  cwd: string;
  summary_count: number;
  created_at: string;
  updated_at: string;
  summary: string | null;
  model: string | null;
  name: string | null;
  modified_at: Date;
}

/**
 * Sessions in PostgreSQL (see `migrations.ts` for the tables). The local folder
 * `<home>/session-state/<id>` still holds what is per machine (a worktree, the git checkpoint
 * index); the session's record — workspace info, events, plan, checkpoints, workspace files,
 * resume point — is in the database.
 *
 * @example
 * const store = await openPostgresStore({ url, home, logger }); // see open.ts
 * const log = store.openEventLog(sessionId);
 */
export class PgSessionStore implements SessionStore {
  readonly kind = "postgres";
  /** Cluster: set when this runtime is a node of a cluster; appends then carry its session leases. */
  private fence: AppendFence | undefined;
  /** Each session's workspace writes, in call order (concurrent upserts on two connections could commit out of order). */
  private readonly workspaceWrites = new Map<string, Promise<unknown>>();

  constructor(
    private readonly pool: Pool,
    readonly home: string,
    /** The database, for messages (no password). */
    readonly database: string,
    private readonly logger: Logger,
  ) {}

  sessionDir(sessionId: string): string {
    assertSessionId(sessionId);
    return join(this.home, "session-state", sessionId);
  }

  async createSessionDir(sessionId: string): Promise<string> {
    const dir = this.sessionDir(sessionId);
    await mkdir(dir, { recursive: true }).catch((error: unknown) => {
      throw persistenceFailed(dir, error);
    });
    await this.pool.query("INSERT INTO sessions (id) VALUES ($1) ON CONFLICT (id) DO NOTHING", [sessionId]).catch((error: unknown) => {
      throw persistenceFailed(this.workspaceFilePath(sessionId), error);
    });
    // The session opens on this node: its plan from the database becomes the local working copy.
    await this.files(sessionId).materialisePlan();
    return dir;
  }

  async exists(sessionId: string): Promise<boolean> {
    assertSessionId(sessionId);
    const { rows } = await this.pool.query("SELECT 1 FROM sessions WHERE id = $1 AND (last_seq > 0 OR has_workspace)", [sessionId]).catch((error: unknown) => {
      throw persistenceFailed(this.workspaceFilePath(sessionId), error, "read");
    });
    return rows.length > 0;
  }

  async list(): Promise<StoredSessionInfo[]> {
    const { rows } = await this.pool.query<SessionRow>("SELECT * FROM sessions WHERE has_workspace AND last_seq > 0 ORDER BY modified_at DESC").catch((error: unknown) => {
      throw persistenceFailed(`${this.database} sessions`, error, "read");
    });
    return rows.map((row) => ({ sessionId: row.id, workspace: workspaceOf(row), modifiedTime: row.modified_at }));
  }

  async delete(sessionId: string): Promise<boolean> {
    assertSessionId(sessionId);
    const { rowCount } = await this.pool.query("DELETE FROM sessions WHERE id = $1 AND (last_seq > 0 OR has_workspace)", [sessionId]).catch((error: unknown) => {
      throw persistenceFailed(this.workspaceFilePath(sessionId), error, "delete");
    });
    // The local folder (worktree, checkpoint index) goes with it; best effort, as it is per machine.
    await rm(this.sessionDir(sessionId), { recursive: true, force: true }).catch((error: unknown) => this.logger.warn(`could not remove ${this.sessionDir(sessionId)}`, error));
    return (rowCount ?? 0) > 0;
  }

  async writeWorkspace(info: WorkspaceInfo): Promise<void> {
    assertSessionId(info.id);
    const previous = this.workspaceWrites.get(info.id) ?? Promise.resolve();
    const write = previous.catch(() => undefined).then(() => this.upsertWorkspace(info));
    this.workspaceWrites.set(info.id, write);
    try {
      await write;
    } finally {
      if (this.workspaceWrites.get(info.id) === write) this.workspaceWrites.delete(info.id);
    }
  }

  private async upsertWorkspace(info: WorkspaceInfo): Promise<void> {
    await this.pool
      .query(
        `INSERT INTO sessions (id, has_workspace, cwd, summary_count, created_at, updated_at, summary, model, name)
         VALUES ($1, true, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET has_workspace = true, cwd = EXCLUDED.cwd, summary_count = EXCLUDED.summary_count,
           created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, summary = EXCLUDED.summary, model = EXCLUDED.model, name = EXCLUDED.name`,
        [info.id, info.cwd, info.summary_count, info.created_at, info.updated_at, info.summary ?? null, info.model ?? null, info.name ?? null],
      )
      .catch((error: unknown) => {
        throw persistenceFailed(this.workspaceFilePath(info.id), error);
      });
  }

  async readWorkspace(sessionId: string): Promise<WorkspaceInfo | undefined> {
    assertSessionId(sessionId);
    try {
      const { rows } = await this.pool.query<SessionRow>("SELECT * FROM sessions WHERE id = $1 AND has_workspace", [sessionId]);
      return rows[0] ? workspaceOf(rows[0]) : undefined;
    } catch (error) {
      this.logger.warn(`could not read the workspace info of session ${sessionId}`, error);
      return undefined;
    }
  }

  workspaceFilePath(sessionId: string): string {
    return `${this.database} session ${sessionId} workspace`;
  }

  openEventLog(sessionId: string): SessionEventLog {
    assertSessionId(sessionId);
    return new PgEventLog(this.pool, sessionId, this.database, this.logger, this.fence);
  }

  /** Cluster: from now on, event logs append only under this node's lease of their session. */
  useLeases(fence: AppendFence): void {
    this.fence = fence;
  }

  /** Writes a new session's whole log in one transaction (a session that has events conflicts). */
  async writeEvents(sessionId: string, lines: readonly string[]): Promise<void> {
    assertSessionId(sessionId);
    const { ids, types } = batchFields(lines);
    await this.pool.query("SELECT tandem_append_events($1, 0, $2::json[], $3::text[], $4::text[])", [sessionId, lines, ids, types]).catch((error: unknown) => {
      throw persistenceFailed(`${this.database} session ${sessionId} events`, error);
    });
  }

  /** The session's files; its plan has a local mirror the agent's file tools can write (see `plan-mirror.ts`). */
  files(sessionId: string): PlanMirroredFiles {
    assertSessionId(sessionId);
    return new PlanMirroredFiles(new PgSessionFiles(this.pool, sessionId, this.database), this.sessionDir(sessionId));
  }

  /** Keeps the plan's local mirror in step: synced to the database at each turn end. */
  watchSession(sessionId: string, events: SessionEventSource, onError: (error: unknown) => void): void {
    syncPlanAtTurnEnds(() => this.files(sessionId), events, onError);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

function workspaceOf(row: SessionRow): WorkspaceInfo {
  return {
    id: row.id,
    cwd: row.cwd,
    summary_count: row.summary_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...(row.summary !== null ? { summary: row.summary } : {}),
    ...(row.model !== null ? { model: row.model } : {}),
    ...(row.name !== null ? { name: row.name } : {}),
  };
}
