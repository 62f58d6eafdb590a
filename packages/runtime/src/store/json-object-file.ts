import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../errors.js";

/**
 * A small JSON file holding one object (the user's `config.json`, the location approvals, the MCP
 * configuration): several parts of the runtime may keep keys in one. Every change is a
 * read-modify-write of the whole object, one after another, written to a temporary file (mode 0600)
 * renamed into place, so two changes never lose each other's keys and a reader never sees half a
 * file. A file that is not a JSON object is refused, never overwritten.
 *
 * @example
 * const config = new JsonObjectFile("/home/me/.tandem/config.json");
 * await config.update((current) => ({ ...current, disabledSkills: ["draft-pr"] }));
 */
export class JsonObjectFile {
  /** Changes run one after another (each a read-modify-write). */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

  /** The file's object; a missing or empty file is `{}`. Throws `PersistenceFailed` naming the file otherwise. */
  async read(): Promise<Record<string, unknown>> {
    const text = await readFile(this.path, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw new TandemError(ErrorCodes.PersistenceFailed, `${this.path} cannot be read: ${error.message}`, { path: this.path, code: error.code });
    });
    if (text === undefined || text.trim() === "") return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new TandemError(ErrorCodes.PersistenceFailed, `${this.path} is not valid JSON (${(error as Error).message}); fix or remove it (it was left as it is)`, { path: this.path });
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new TandemError(ErrorCodes.PersistenceFailed, `${this.path} is not a JSON object; fix or remove it (it was left as it is)`, { path: this.path });
    }
    return parsed as Record<string, unknown>;
  }

  /**
   * Applies `change` to the current object and writes the result before resolving with it; a
   * `change` that returns `undefined` writes nothing.
   */
  update(change: (current: Record<string, unknown>) => Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    const write = this.writing.then(async () => {
      const current = await this.read();
      const next = change(current);
      if (next === undefined) return current;
      const temporary = `${this.path}.${process.pid}.tmp`;
      try {
        await mkdir(dirname(this.path), { recursive: true });
        await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
        await rename(temporary, this.path);
      } catch (error) {
        throw new TandemError(ErrorCodes.PersistenceFailed, `${this.path} cannot be written: ${(error as Error).message}`, { path: this.path });
      }
      return next;
    });
    this.writing = write.catch(() => undefined);
    return write;
  }
}
