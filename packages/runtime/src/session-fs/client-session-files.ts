import { posix } from "node:path";
import { invalidParams } from "../errors.js";
import type { SessionFiles } from "../store/types.js";
import type { ClientFileSystem } from "./client-file-system.js";

/**
 * A session's small files (`plan.md`, `resume-point.json`, `checkpoints/*`, `files/*`, spilled tool
 * output under `temp/`) in the file system a client provides, under the declared state folder.
 * Writes create the folders above a file first; failures are `PersistenceFailed` (see
 * {@link ClientFileSystem}); reading a missing file gives undefined.
 *
 * @example
 * const files = new ClientSessionFiles(fs, sessionId);
 * await files.write("plan.md", "1. read the code");
 */
export class ClientSessionFiles implements SessionFiles {
  /** Folders known to exist, so each is created once. */
  private readonly madeFolders = new Set<string>();

  constructor(
    private readonly fs: ClientFileSystem,
    private readonly sessionId: string,
  ) {}

  location(name: string): string {
    return this.fs.statePath(name);
  }

  read(name: string): Promise<string | undefined> {
    return this.fs.read(this.sessionId, this.location(name));
  }

  exists(name: string): Promise<boolean> {
    return this.fs.exists(this.sessionId, this.location(name));
  }

  async write(name: string, content: string): Promise<void> {
    await this.makeFolder(name);
    await this.fs.write(this.sessionId, this.location(name), content);
  }

  async append(name: string, content: string): Promise<void> {
    await this.makeFolder(name);
    await this.fs.append(this.sessionId, this.location(name), content);
  }

  async remove(name: string): Promise<boolean> {
    if (!(await this.exists(name))) return false;
    await this.fs.remove(this.sessionId, this.location(name));
    return true;
  }

  async list(folder: string): Promise<string[]> {
    const found: string[] = [];
    const walk = async (relative: string): Promise<void> => {
      const entries = await this.fs.list(this.sessionId, this.location(relative === "" ? folder : `${folder}/${relative}`));
      for (const entry of entries) {
        const name = relative === "" ? entry.name : `${relative}/${entry.name}`;
        if (entry.type === "directory") await walk(name);
        else found.push(name);
      }
    };
    await walk("");
    return found.sort();
  }

  /** A workspace path as a name under `files/`; one that leaves that folder is refused (-32602). */
  async workspaceFileName(path: string): Promise<string> {
    const normalized = posix.normalize(path.replace(/\\/g, "/")).replace(/^\.\//, "");
    if (normalized === "" || normalized === "." || normalized.startsWith("/") || normalized === ".." || normalized.startsWith("../") || /^[A-Za-z]:/.test(normalized)) {
      throw invalidParams(`Workspace file paths must stay inside the workspace files directory: ${path}`, { path });
    }
    if (normalized.endsWith("/")) throw invalidParams(`Workspace file path ${path} names a folder`, { path });
    return `files/${normalized}`;
  }

  /** Creates the state folder's sub-folders above `name`, once. */
  private async makeFolder(name: string): Promise<void> {
    const slash = name.lastIndexOf("/");
    const folder = slash === -1 ? "" : name.slice(0, slash);
    if (this.madeFolders.has(folder)) return;
    await this.fs.mkdirs(this.sessionId, this.location(folder));
    this.madeFolders.add(folder);
  }
}
