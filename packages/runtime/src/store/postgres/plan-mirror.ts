import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { persistenceFailed } from "../persistence-error.js";
import type { SessionEventSource, SessionFiles } from "../types.js";

/** The plan's name among a session's files (see `plan/plan-file.ts`). */
export const planFileName = "plan.md";

/**
 * A PostgreSQL session's files with a local mirror of its plan: the plan is a database row, but in
 * plan mode the agent writes it with its file tools, so `plan.md` also lives in the session's local
 * folder (`location` names it there). The local file is the working copy: reads of the plan first
 * copy a changed local file to the database ({@link syncPlan}, also run at the end of each turn);
 * writes go to both. When the session opens on a node, {@link materialisePlan} writes the
 * database's plan to the local folder (a stale copy from an earlier stay on this node is replaced),
 * so a plan written with `create`/`edit` survives a failover. Other files pass through.
 *
 * @example
 * const files = new PlanMirroredFiles(new PgSessionFiles(pool, id, db), store.sessionDir(id));
 * await files.materialisePlan();
 */
export class PlanMirroredFiles implements SessionFiles {
  constructor(
    private readonly inner: SessionFiles,
    /** The session's local folder (`store.sessionDir`). */
    private readonly localDir: string,
  ) {}

  private get localPlan(): string {
    return join(this.localDir, planFileName);
  }

  location(name: string): string {
    return name === planFileName ? this.localPlan : this.inner.location(name);
  }

  async read(name: string): Promise<string | undefined> {
    if (name !== planFileName) return this.inner.read(name);
    const local = await this.readLocal();
    if (local !== undefined) {
      await this.pushIfChanged(local);
      return local;
    }
    return this.inner.read(name);
  }

  async exists(name: string): Promise<boolean> {
    return (await this.read(name)) !== undefined;
  }

  async write(name: string, content: string): Promise<void> {
    await this.inner.write(name, content);
    if (name === planFileName) await this.writeLocal(content);
  }

  async append(name: string, content: string): Promise<void> {
    if (name !== planFileName) return this.inner.append(name, content);
    await this.write(name, ((await this.read(name)) ?? "") + content);
  }

  async remove(name: string): Promise<boolean> {
    if (name === planFileName) await rm(this.localPlan, { force: true }).catch((error: unknown) => Promise.reject(persistenceFailed(this.localPlan, error, "delete")));
    return this.inner.remove(name);
  }

  list(folder: string): Promise<string[]> {
    return this.inner.list(folder);
  }

  workspaceFileName(path: string): Promise<string> {
    return this.inner.workspaceFileName(path);
  }

  /** Copies the local plan to the database when it changed there (the agent's tools wrote it); true when it did. */
  async syncPlan(): Promise<boolean> {
    const local = await this.readLocal();
    if (local === undefined) return false;
    return this.pushIfChanged(local);
  }

  /** Writes the database's plan to the local folder (or removes a stale local copy when there is none). */
  async materialisePlan(): Promise<void> {
    const stored = await this.inner.read(planFileName);
    if (stored === undefined) {
      await rm(this.localPlan, { force: true }).catch((error: unknown) => Promise.reject(persistenceFailed(this.localPlan, error, "delete")));
      return;
    }
    await this.writeLocal(stored);
  }

  private async pushIfChanged(local: string): Promise<boolean> {
    if ((await this.inner.read(planFileName)) === local) return false;
    await this.inner.write(planFileName, local);
    return true;
  }

  private async readLocal(): Promise<string | undefined> {
    try {
      return await readFile(this.localPlan, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw persistenceFailed(this.localPlan, error, "read");
    }
  }

  /** Whole or not at all: a temporary file renamed over the plan. */
  private async writeLocal(content: string): Promise<void> {
    const temporary = `${this.localPlan}.${process.pid}.tmp`;
    try {
      await mkdir(this.localDir, { recursive: true });
      await writeFile(temporary, content, "utf8");
      await rename(temporary, this.localPlan);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw persistenceFailed(this.localPlan, error, "write");
    }
  }
}

/**
 * At the end of each turn (`session.idle`) the session's local plan is copied to the database when
 * the agent's tools changed it.
 */
export function syncPlanAtTurnEnds(files: () => PlanMirroredFiles, events: SessionEventSource, onError: (error: unknown) => void): void {
  events.addListener((event) => {
    if (event.type !== "session.idle") return;
    void files().syncPlan().catch(onError);
  });
}
