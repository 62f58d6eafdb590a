import { randomBytes } from "node:crypto";
import { invalidParams } from "../errors.js";
import type { EventEmitterPort } from "../ports/events.js";
import type { SessionFiles } from "../store/types.js";

const planName = "plan.md";
const filesFolder = "files";

/**
 * The session's plan (`plan.md` among its files) and its workspace files (`files/*`).
 * Changes to the plan emit `session.plan_changed`, new and rewritten workspace files
 * `session.workspace_file_changed`. Writes replace a file whole or not at all (a full
 * disk keeps the old plan) and fail with a `PersistenceFailed` error naming the file.
 *
 * @example
 * const plan = new SessionWorkspace(store.files(sessionId), session.emitter);
 * await plan.updatePlan("1. read the code\n2. fix the bug");
 */
export class SessionWorkspace {
  constructor(
    private readonly files: SessionFiles,
    private readonly emitter: EventEmitterPort,
  ) {}

  /** Where the plan is (a path in the file store). */
  get planPath(): string {
    return this.files.location(planName);
  }

  async readPlan(): Promise<{ exists: boolean; content: string | null; path: string | null }> {
    const content = await this.files.read(planName);
    if (content === undefined) return { exists: false, content: null, path: null };
    return { exists: true, content, path: this.planPath };
  }

  async updatePlan(content: string): Promise<void> {
    const existed = await this.files.exists(planName);
    await this.files.write(planName, content);
    this.emitter.emit("session.plan_changed", { operation: existed ? "update" : "create" });
  }

  async deletePlan(): Promise<void> {
    if (!(await this.files.remove(planName))) return;
    this.emitter.emit("session.plan_changed", { operation: "delete" });
  }

  /** Workspace files, as paths relative to the files folder, sorted. */
  async listFiles(): Promise<string[]> {
    return this.files.list(filesFolder);
  }

  async readFile(path: string): Promise<string> {
    const name = await this.files.workspaceFileName(path);
    const content = await this.files.read(name);
    if (content === undefined) throw invalidParams(`Workspace file not found: ${path}`, { path });
    return content;
  }

  /**
   * `session.workspaces.saveLargePaste`: keeps pasted text as a new workspace file
   * (`paste-<time>-<random>.txt`); answers its name (for `readFile`), full path and size in bytes.
   * Empty text is not saved (null).
   */
  async savePaste(content: string): Promise<{ filename: string; filePath: string; sizeBytes: number } | null> {
    if (content.length === 0) return null;
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const filename = `paste-${stamp}-${randomBytes(3).toString("hex")}.txt`;
    await this.createFile(filename, content);
    return { filename, filePath: this.files.location(await this.files.workspaceFileName(filename)), sizeBytes: Buffer.byteLength(content, "utf8") };
  }

  async createFile(path: string, content: string): Promise<void> {
    const name = await this.files.workspaceFileName(path);
    const existed = await this.files.exists(name);
    await this.files.write(name, content);
    this.emitter.emit("session.workspace_file_changed", { operation: existed ? "update" : "create", path: name.slice(filesFolder.length + 1) });
  }
}
