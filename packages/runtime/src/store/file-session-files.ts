import { appendFile, mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { invalidParams } from "../errors.js";
import { persistenceFailed, writeFileAtomic } from "./persistence-error.js";
import { resolveInside } from "./safe-path.js";
import type { SessionFiles } from "./types.js";

/**
 * A session's files in its folder of the file store: a name is a path relative to the folder
 * (`plan.md`, `checkpoints/001-x.md`, `files/notes/a.md`).
 *
 * @example
 * const files = new FileSessionFiles("/home/me/.tandem/session-state/s1");
 * await files.write("plan.md", "1. read the code");
 */
export class FileSessionFiles implements SessionFiles {
  constructor(readonly dir: string) {}

  location(name: string): string {
    return join(this.dir, ...name.split("/"));
  }

  async read(name: string): Promise<string | undefined> {
    return readFile(this.location(name), "utf8").catch(() => undefined);
  }

  async exists(name: string): Promise<boolean> {
    return stat(this.location(name)).then(
      () => true,
      () => false,
    );
  }

  async write(name: string, content: string): Promise<void> {
    const path = this.location(name);
    if (name.includes("/")) await this.makeFolder(name);
    await writeFileAtomic(path, content);
  }

  async append(name: string, content: string): Promise<void> {
    const path = this.location(name);
    if (name.includes("/")) await this.makeFolder(name);
    await appendFile(path, content).catch((error: unknown) => {
      throw persistenceFailed(path, error, "write");
    });
  }

  async remove(name: string): Promise<boolean> {
    const path = this.location(name);
    if (!(await this.exists(name))) return false;
    await rm(path, { force: true }).catch((error: unknown) => {
      throw persistenceFailed(path, error, "delete");
    });
    return true;
  }

  async list(folder: string): Promise<string[]> {
    const root = this.location(folder);
    const found: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile()) found.push(relative(root, full).split(sep).join("/"));
      }
    };
    await walk(root);
    return found.sort();
  }

  /** Resolves a workspace path, refusing anything that leaves the files folder (also through a link). */
  async workspaceFileName(path: string): Promise<string> {
    const filesDir = join(this.dir, "files");
    const full = await resolveInside(filesDir, path, "Workspace file paths", "the workspace files directory");
    if ((await stat(full).catch(() => undefined))?.isDirectory()) throw invalidParams(`Workspace file path ${path} names a folder`, { path });
    return `files/${relative(filesDir, full).split(sep).join("/")}`;
  }

  /** Creates the folders above `name` (a name passing through a file is the client's mistake, -32602). */
  private async makeFolder(name: string): Promise<void> {
    const folder = dirname(this.location(name));
    await mkdir(folder, { recursive: true }).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      const path = name.replace(/^files\//, "");
      if (code === "ENOTDIR" || code === "EEXIST") throw invalidParams(`Workspace file path ${path} passes through a file`, { path });
      throw persistenceFailed(folder, error, name.startsWith("files/") ? "write" : "open");
    });
  }
}
