import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Database, QueryExecResult } from "sql.js";

/** The file of a session's database, in its session folder (it survives resume). */
export const SESSION_DATABASE_FILE = "session.db";

/** What one statement (or script) did. */
export interface QueryResult {
  /** The rows of the last statement that returned any. */
  rows?: QueryExecResult;
  /** `sqlite3_changes()` after the script. */
  rowsModified: number;
  /** `last_insert_rowid()` after the script. */
  lastInsertRowId: number;
}

/**
 * A session's SQLite database (`sql.js`, SQLite compiled to WebAssembly: nothing to compile or
 * download at install). It is opened on the first query — from `session.db` in the session folder
 * when that exists — and written back to that file after every query that may have changed it.
 *
 * @example
 * const db = new SessionDatabase(session.workspacePath);
 * await db.run("CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT)", { mayWrite: true });
 */
export class SessionDatabase {
  private opening: Promise<Database> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  /** @param folder the session folder; without one the database lives in memory only. */
  constructor(private readonly folder: string | undefined) {}

  /** The database file, if the database has one. */
  get path(): string | undefined {
    return this.folder === undefined ? undefined : join(this.folder, SESSION_DATABASE_FILE);
  }

  /**
   * Runs `query` (one or more statements). SQL errors are thrown as sql.js reports them
   * (`near "SELEC": syntax error`). With `mayWrite`, the database is saved afterwards.
   */
  async run(query: string, options: { mayWrite: boolean }): Promise<QueryResult> {
    const db = await this.open();
    let results: QueryExecResult[];
    try {
      results = db.exec(query);
    } catch (error) {
      // A failed script may still have changed the database before its failing statement.
      if (options.mayWrite) await this.save(db);
      throw error;
    }
    // Read before saving: sql.js reopens the database to export it, which resets both.
    const rowsModified = db.getRowsModified();
    const lastInsertRowId = Number(db.exec("SELECT last_insert_rowid()")[0]?.values[0]?.[0] ?? 0);
    if (options.mayWrite) await this.save(db);
    const rows = results.at(-1);
    return { ...(rows ? { rows } : {}), rowsModified, lastInsertRowId };
  }

  /** Waits for pending writes and frees the database's memory. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const opening = this.opening;
    if (!opening) return;
    await this.writing;
    (await opening.catch(() => undefined))?.close();
  }

  private open(): Promise<Database> {
    if (this.closed) return Promise.reject(new Error("The session's database is closed."));
    this.opening ??= openDatabase(this.path).catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }

  /** Writes the database to its file (whole, through a temporary file), one write at a time. */
  private save(db: Database): Promise<void> {
    const path = this.path;
    if (path === undefined) return Promise.resolve();
    const bytes = db.export();
    const write = this.writing.then(async () => {
      const temporary = `${path}.tmp`;
      await writeFile(temporary, bytes, { mode: 0o600 });
      await rename(temporary, path);
    });
    this.writing = write.catch(() => undefined);
    return write;
  }
}

async function openDatabase(path: string | undefined): Promise<Database> {
  const { default: initSqlJs } = await import("sql.js");
  const SQL = await initSqlJs();
  const existing =
    path === undefined
      ? undefined
      : await readFile(path).catch((error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT") return undefined;
          throw error;
        });
  return new SQL.Database(existing ? new Uint8Array(existing) : undefined);
}
