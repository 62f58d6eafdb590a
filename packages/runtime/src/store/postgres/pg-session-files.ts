import { posix } from "node:path";
import type { Pool } from "pg";
import { invalidParams } from "../../errors.js";
import { persistenceFailed, type PersistenceOperation } from "../persistence-error.js";
import type { SessionFiles } from "../types.js";

/**
 * A session's files as rows of `session_files(session_id, name, content)`. A write is one
 * statement (whole or not at all); an append concatenates in the database.
 *
 * @example
 * const files = new PgSessionFiles(pool, "s1", "postgres://db/tandem");
 * await files.write("plan.md", "1. read the code");
 */
export class PgSessionFiles implements SessionFiles {
  constructor(
    private readonly pool: Pool,
    private readonly sessionId: string,
    private readonly database: string,
  ) {}

  location(name: string): string {
    return `${this.database} session ${this.sessionId} file ${name}`;
  }

  async read(name: string): Promise<string | undefined> {
    const rows = await this.query<{ content: string }>(name, "read", "SELECT content FROM session_files WHERE session_id = $1 AND name = $2", [this.sessionId, name]);
    return rows[0]?.content;
  }

  async exists(name: string): Promise<boolean> {
    return (await this.read(name)) !== undefined;
  }

  async write(name: string, content: string): Promise<void> {
    await this.checkFolders(name);
    await this.query(
      name,
      "write",
      `INSERT INTO session_files (session_id, name, content) VALUES ($1, $2, $3)
       ON CONFLICT (session_id, name) DO UPDATE SET content = EXCLUDED.content, modified_at = now()`,
      [this.sessionId, name, content],
    );
  }

  async append(name: string, content: string): Promise<void> {
    await this.query(
      name,
      "write",
      `INSERT INTO session_files (session_id, name, content) VALUES ($1, $2, $3)
       ON CONFLICT (session_id, name) DO UPDATE SET content = session_files.content || EXCLUDED.content, modified_at = now()`,
      [this.sessionId, name, content],
    );
  }

  async remove(name: string): Promise<boolean> {
    const { rowCount } = await this.pool.query("DELETE FROM session_files WHERE session_id = $1 AND name = $2", [this.sessionId, name]).catch((error: unknown) => {
      throw persistenceFailed(this.location(name), error, "delete");
    });
    return (rowCount ?? 0) > 0;
  }

  async list(folder: string): Promise<string[]> {
    const prefix = folder === "" ? "" : `${folder}/`;
    const rows = await this.query<{ name: string }>(folder, "read", "SELECT name FROM session_files WHERE session_id = $1 AND starts_with(name, $2) ORDER BY name", [this.sessionId, prefix]);
    return rows.map((row) => row.name.slice(prefix.length)).sort();
  }

  /** Checks a workspace path as written (there are no links here): relative, inside `files/`, not a folder. */
  async workspaceFileName(path: string): Promise<string> {
    if (path === "" || path.includes("\0") || posix.isAbsolute(path) || /^[a-zA-Z]:[\\/]/.test(path)) {
      throw invalidParams(`Workspace file paths must be a relative path inside the workspace files directory: ${JSON.stringify(path)}`, { path });
    }
    const normal = posix.normalize(path.replaceAll("\\", "/"));
    if (normal === "." || normal === ".." || normal.startsWith("../") || normal.endsWith("/")) {
      throw invalidParams(`Workspace file paths must stay inside the workspace files directory: ${JSON.stringify(path)}`, { path });
    }
    const name = `files/${normal}`;
    if ((await this.list(name)).length > 0) throw invalidParams(`Workspace file path ${path} names a folder`, { path });
    return name;
  }

  /** A name below an existing file (`files/a.md/b.md`) passes through a file, as on disk (-32602). */
  private async checkFolders(name: string): Promise<void> {
    if (!name.startsWith("files/")) return;
    const parts = name.split("/");
    const parents = parts.slice(2, -1).map((_, index) => parts.slice(0, index + 2).join("/"));
    if (parents.length === 0) return;
    const rows = await this.query<{ name: string }>(name, "read", "SELECT name FROM session_files WHERE session_id = $1 AND name = ANY($2)", [this.sessionId, parents]);
    if (rows.length > 0) {
      const path = name.slice("files/".length);
      throw invalidParams(`Workspace file path ${path} passes through a file`, { path });
    }
  }

  private async query<T extends object>(name: string, operation: PersistenceOperation, sql: string, values: unknown[]): Promise<T[]> {
    try {
      return (await this.pool.query<T & Record<string, unknown>>(sql, values)).rows;
    } catch (error) {
      throw persistenceFailed(this.location(name), error, operation);
    }
  }
}
