import { checkpointIndexHeader, checkpointIndexName } from "../compaction/checkpoints.js";
import type { Logger } from "../log.js";
import { assertSessionId } from "../store/safe-path.js";
import type { SessionEventLog, SessionFiles, SessionStore, StoredSessionInfo, WorkspaceInfo } from "../store/types.js";
import { parseWorkspaceYaml, workspaceYaml } from "../store/workspace-yaml.js";
import { SessionDatabase, type SessionDatabaseOptions, type SqlDatabase } from "../tools/builtin/sql/session-database.js";
import type { ClientFileSystem } from "./client-file-system.js";
import { ClientEventLog } from "./client-event-log.js";
import { ClientSessionFiles } from "./client-session-files.js";
import { ClientSqlDatabase } from "./client-sql-database.js";

/**
 * Sessions kept in the file system a client provides (`sessionFs.setProvider`): the same layout as
 * the runtime's own folder — `events.jsonl`, `workspace.yaml`, `plan.md`, `resume-point.json`,
 * `checkpoints/` (with `index.md` from the start), `files/`, `temp/` — under the declared state
 * folder, read and written through `sessionFs.*` requests. What only makes sense on this machine
 * (git worktrees, the git checkpoint index, extensions, the user's config) stays in the runtime's
 * home (`home`, `sessionDir`), which this store never writes session state to.
 *
 * The client's file system holds one session per id and cannot be listed: `list` is empty, and a
 * session is found by its id (`exists`, resume).
 *
 * @example
 * const store = new ClientFsSessionStore(fs, fileStore, logger);
 * await store.createSessionDir(sessionId);
 */
export class ClientFsSessionStore implements SessionStore {
  readonly kind = "client";

  constructor(
    readonly fs: ClientFileSystem,
    private readonly local: SessionStore,
    private readonly logger: Logger,
  ) {}

  get home(): string {
    return this.local.home;
  }

  /** The session's folder on this machine (worktrees, git checkpoint index); not created here. */
  sessionDir(sessionId: string): string {
    return this.local.sessionDir(sessionId);
  }

  /** Creates the state folder in the client, its `files/` folder and the checkpoint index. */
  async createSessionDir(sessionId: string): Promise<string> {
    assertSessionId(sessionId);
    const files = this.files(sessionId);
    await this.fs.mkdirs(sessionId, this.fs.statePath("files"));
    if (!(await files.exists(checkpointIndexName))) await files.write(checkpointIndexName, checkpointIndexHeader);
    return this.local.sessionDir(sessionId);
  }

  async exists(sessionId: string): Promise<boolean> {
    assertSessionId(sessionId);
    return this.fs.exists(sessionId, this.fs.statePath("events.jsonl"));
  }

  async list(): Promise<StoredSessionInfo[]> {
    return [];
  }

  async delete(sessionId: string): Promise<boolean> {
    if (!(await this.exists(sessionId))) return false;
    await this.fs.remove(sessionId, this.fs.statePath());
    return true;
  }

  async writeWorkspace(info: WorkspaceInfo): Promise<void> {
    await this.fs.write(info.id, this.workspaceFilePath(info.id), workspaceYaml(info));
  }

  async readWorkspace(sessionId: string): Promise<WorkspaceInfo | undefined> {
    const text = await this.fs.read(sessionId, this.workspaceFilePath(sessionId)).catch((error: unknown) => {
      this.logger.warn(`could not read the workspace info of session ${sessionId}`, error);
      return undefined;
    });
    return text === undefined ? undefined : parseWorkspaceYaml(text, sessionId, this.logger);
  }

  workspaceFilePath(_sessionId: string): string {
    return this.fs.statePath("workspace.yaml");
  }

  openEventLog(sessionId: string): SessionEventLog {
    return new ClientEventLog(this.fs, sessionId, this.logger);
  }

  async writeEvents(sessionId: string, lines: readonly string[]): Promise<void> {
    await this.fs.mkdirs(sessionId, this.fs.statePath());
    await this.fs.write(sessionId, this.fs.statePath("events.jsonl"), lines.length > 0 ? `${lines.join("\n")}\n` : "");
  }

  files(sessionId: string): SessionFiles {
    return new ClientSessionFiles(this.fs, sessionId);
  }

  /**
   * The `sql` tool's database of a session: the client's own when it declared
   * `capabilities.sqlite`, else one in memory (nothing is written to this machine).
   */
  sqlDatabase(sessionId: string, options: SessionDatabaseOptions = {}): SqlDatabase {
    if (this.fs.config.sqlite) return new ClientSqlDatabase(this.fs, sessionId);
    return new SessionDatabase(undefined, options);
  }

  /** Nothing to release: the client's connection is the runtime's. */
  async close(): Promise<void> {}
}
