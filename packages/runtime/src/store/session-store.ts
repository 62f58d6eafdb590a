import { lstat, mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { homedir } from "../node-os.js";
import { join } from "node:path";
import type { Logger } from "../log.js";
import { EventLog } from "./event-log.js";
import { FileSessionFiles } from "./file-session-files.js";
import { persistenceFailed, writeFileAtomic } from "./persistence-error.js";
import { probeSync } from "../fs-probe.js";
import { assertSessionId, isSafeSessionId } from "./safe-path.js";
import { parseWorkspaceYaml, workspaceYaml } from "./workspace-yaml.js";
import type { SessionFiles, SessionStore, StoredSessionInfo, WorkspaceInfo } from "./types.js";

export type { StoredSessionInfo, WorkspaceInfo } from "./types.js";

/** Where Tandem keeps its state: `$COPILOT_HOME`, else `$TANDEM_HOME`, else `~/.tandem`. */
export function resolveHome(env: NodeJS.ProcessEnv, override?: string): string {
  return override ?? env.COPILOT_HOME ?? env.TANDEM_HOME ?? join(homedir(), ".tandem");
}

/**
 * The file store (the default): `<home>/session-state/<id>/{events.jsonl, workspace.yaml, plan.md,
 * resume-point.json, checkpoints/, files/}`.
 *
 * @example
 * const store = new FileSessionStore("/home/me/.tandem", logger);
 * const dir = await store.createSessionDir(id);
 */
export class FileSessionStore implements SessionStore {
  readonly kind = "file";
  readonly sessionsRoot: string;

  constructor(
    readonly home: string,
    private readonly logger: Logger,
  ) {
    this.sessionsRoot = join(home, "session-state");
  }

  /** The folder of one session; throws -32602 for an id that is not one safe path component. */
  sessionDir(sessionId: string): string {
    assertSessionId(sessionId);
    return join(this.sessionsRoot, sessionId);
  }

  /** The events file of one session. */
  eventsPath(sessionId: string): string {
    return join(this.sessionDir(sessionId), "events.jsonl");
  }

  /** Creates the session folder (and its standard sub-folders). */
  async createSessionDir(sessionId: string): Promise<string> {
    const dir = this.sessionDir(sessionId);
    await mkdir(join(dir, "files"), { recursive: true }).catch((error: unknown) => {
      throw persistenceFailed(dir, error);
    });
    return dir;
  }

  /** An appender for the session's events file. */
  openEventLog(sessionId: string): EventLog {
    return new EventLog(this.eventsPath(sessionId), this.logger);
  }

  /** Writes a new session's whole `events.jsonl` (fork, import). */
  async writeEvents(sessionId: string, lines: readonly string[]): Promise<void> {
    await writeFileAtomic(this.eventsPath(sessionId), lines.length > 0 ? `${lines.join("\n")}\n` : "");
  }

  /** The session's plan, resume point, checkpoints and workspace files, in its folder. */
  files(sessionId: string): SessionFiles {
    return new FileSessionFiles(this.sessionDir(sessionId));
  }

  /** Nothing to release. */
  async close(): Promise<void> {}

  /** Whether a session has an events file on disk. */
  async exists(sessionId: string): Promise<boolean> {
    return pathExists(this.eventsPath(sessionId));
  }

  /** The `workspace.yaml` of one session. */
  workspaceFilePath(sessionId: string): string {
    return join(this.sessionDir(sessionId), "workspace.yaml");
  }

  /** Writes `workspace.yaml` whole or not at all; throws a `PersistenceFailed` error when it cannot. */
  async writeWorkspace(info: WorkspaceInfo): Promise<void> {
    await writeFileAtomic(this.workspaceFilePath(info.id), workspaceYaml(info));
  }

  /** Reads `workspace.yaml`, or undefined when it is missing or unreadable. */
  async readWorkspace(sessionId: string): Promise<WorkspaceInfo | undefined> {
    let text: string;
    try {
      text = await readFile(join(this.sessionDir(sessionId), "workspace.yaml"), "utf8");
    } catch {
      return undefined;
    }
    return parseWorkspaceYaml(text, sessionId, this.logger);
  }

  /** Every persisted session with an events file, newest first. */
  async list(): Promise<StoredSessionInfo[]> {
    let names: string[];
    try {
      names = await readdir(this.sessionsRoot);
    } catch {
      return [];
    }
    const found = await Promise.all(
      names.filter(isSafeSessionId).map(async (sessionId): Promise<StoredSessionInfo | undefined> => {
        const modified = await stat(this.eventsPath(sessionId)).catch(() => undefined);
        if (!modified) return undefined;
        const workspace = await this.readWorkspace(sessionId);
        if (!workspace) return undefined;
        return { sessionId, workspace, modifiedTime: modified.mtime };
      }),
    );
    return found
      .filter((item): item is StoredSessionInfo => item !== undefined)
      .sort((a, b) => b.modifiedTime.getTime() - a.modifiedTime.getTime());
  }

  /**
   * Deletes a session's folder. Returns false when there is no session folder by that id (a
   * folder holding neither an events file nor `workspace.yaml` is not a session's, and stays).
   */
  async delete(sessionId: string): Promise<boolean> {
    const dir = this.sessionDir(sessionId);
    const info = await lstat(dir).catch(() => undefined);
    if (!info?.isDirectory()) return false;
    const isSession = pathExists(join(dir, "events.jsonl")) || pathExists(join(dir, "workspace.yaml"));
    if (!isSession) return false;
    await rm(dir, { recursive: true, force: true });
    return true;
  }
}

/** Whether `path` exists (a synchronous probe: every create asks this of a new id, see {@link probeSync}). */
function pathExists(path: string): boolean {
  return probeSync(path) !== undefined;
}
