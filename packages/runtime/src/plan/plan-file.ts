import { mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { invalidParams } from "../errors.js";
import { resolveInside } from "../store/safe-path.js";
import type { SessionEmitter } from "../session/emitter.js";
import { persistenceFailed, writeFileAtomic } from "../store/persistence-error.js";

/**
 * The session's plan (`<session dir>/plan.md`) and its workspace files (`<session dir>/files/`).
 * Changes to the plan emit `session.plan_changed`, new and rewritten workspace files
 * `session.workspace_file_changed`. Writes replace a file whole or not at all (a full
 * disk keeps the old plan) and fail with a `PersistenceFailed` error naming the file.
 *
 * @example
 * const plan = new SessionWorkspace(session.workspacePath, session.emitter);
 * await plan.updatePlan("1. read the code\n2. fix the bug");
 */
export class SessionWorkspace {
  readonly planPath: string;
  readonly filesDir: string;

  constructor(
    workspacePath: string,
    private readonly emitter: SessionEmitter,
  ) {
    this.planPath = join(workspacePath, "plan.md");
    this.filesDir = join(workspacePath, "files");
  }

  async readPlan(): Promise<{ exists: boolean; content: string | null; path: string | null }> {
    try {
      return { exists: true, content: await readFile(this.planPath, "utf8"), path: this.planPath };
    } catch {
      return { exists: false, content: null, path: null };
    }
  }

  async updatePlan(content: string): Promise<void> {
    const existed = await exists(this.planPath);
    await writeFileAtomic(this.planPath, content);
    this.emitter.emit("session.plan_changed", { operation: existed ? "update" : "create" });
  }

  async deletePlan(): Promise<void> {
    if (!(await exists(this.planPath))) return;
    await rm(this.planPath, { force: true }).catch((error: unknown) => {
      throw persistenceFailed(this.planPath, error, "delete");
    });
    this.emitter.emit("session.plan_changed", { operation: "delete" });
  }

  /** Workspace files, as paths relative to the files folder, sorted. */
  async listFiles(): Promise<string[]> {
    const found: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile()) found.push(relative(this.filesDir, full).split(sep).join("/"));
      }
    };
    await walk(this.filesDir);
    return found.sort();
  }

  async readFile(path: string): Promise<string> {
    const full = await this.inside(path);
    try {
      return await readFile(full, "utf8");
    } catch {
      throw invalidParams(`Workspace file not found: ${path}`, { path });
    }
  }

  async createFile(path: string, content: string): Promise<void> {
    const full = await this.inside(path);
    if ((await stat(full).catch(() => undefined))?.isDirectory()) throw invalidParams(`Workspace file path ${path} names a folder`, { path });
    await mkdir(dirname(full), { recursive: true }).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTDIR" || code === "EEXIST") throw invalidParams(`Workspace file path ${path} passes through a file`, { path });
      throw persistenceFailed(dirname(full), error);
    });
    const existed = await exists(full);
    await writeFileAtomic(full, content);
    this.emitter.emit("session.workspace_file_changed", { operation: existed ? "update" : "create", path: relative(this.filesDir, full).split(sep).join("/") });
  }

  /** Resolves a workspace path, refusing anything that leaves the files folder (also through a link). */
  private async inside(path: string): Promise<string> {
    return resolveInside(this.filesDir, path, "Workspace file paths");
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
