/**
 * The `sql` tool's worker thread: it owns the session's SQLite database (`sql.js`), runs one query
 * at a time and writes the database back to its file after every query that may have changed it.
 * The runtime terminates this thread when a query outlives its time limit or its turn is aborted;
 * the file then holds what the last completed query left (it is replaced whole, through a temporary
 * file, so a thread stopped mid-write leaves the previous version).
 *
 * Started by `SessionDatabase` (`session-database.ts`) as its own bundle entry (`bundle/sql-worker.js`).
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import type { Database } from "sql.js";
import { scriptText, type StatementOutcome } from "./result-text.js";
import { todoSchema } from "./todo-schema.js";
import type { SqlWorkerAnswer, SqlWorkerData, SqlWorkerReply, SqlWorkerRequest } from "./sql-worker-messages.js";

const port = parentPort;
if (!port) throw new Error("sql-worker.js runs as a worker thread only");
const { path } = workerData as SqlWorkerData;

// The database opens first (loading sql.js, reading the file); the runtime sends queries, and
// counts their time, once it is open.
openDatabase(path).then(
  (database) => {
    port.on("message", (request: SqlWorkerRequest) => port.postMessage(answer(database, request)));
    port.postMessage({ kind: "opened" } satisfies SqlWorkerReply);
  },
  (error: unknown) => port.postMessage({ kind: "open-failed", message: messageOf(error) } satisfies SqlWorkerReply),
);

function answer(database: Database, request: SqlWorkerRequest): SqlWorkerAnswer {
  try {
    return { kind: "answer", id: request.id, ok: true, text: run(database, request) };
  } catch (error) {
    return { kind: "answer", id: request.id, ok: false, message: messageOf(error) };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function run(database: Database, request: SqlWorkerRequest): string {
  const outcomes: StatementOutcome[] = [];
  try {
    // One statement at a time, so each one's effect (rows changed, last row id) can be reported.
    for (const statement of database.iterateStatements(request.query)) {
      const columns = statement.getColumnNames();
      const values: unknown[][] = [];
      while (statement.step()) values.push(statement.get());
      // Read before saving: sql.js reopens the database to export it, which resets both.
      const rowsModified = database.getRowsModified();
      const lastInsertRowId = Number(database.exec("SELECT last_insert_rowid()")[0]?.values[0]?.[0] ?? 0);
      outcomes.push({ sql: statement.getSQL(), rows: columns.length > 0 ? { columns, values } : undefined, rowsModified, lastInsertRowId });
    }
  } catch (error) {
    // A failed script may still have changed the database before its failing statement.
    if (request.mayWrite) save(database);
    throw error;
  }
  if (request.mayWrite) save(database);
  if (request.answerAs === "rows") return JSON.stringify(outcomes.at(-1)?.rows ?? null);
  return scriptText(request.statement, outcomes);
}

async function openDatabase(file: string | undefined): Promise<Database> {
  const { default: initSqlJs } = await import("sql.js");
  const SQL = await initSqlJs();
  const database = new SQL.Database(file === undefined ? undefined : readExisting(file));
  // The todo list's tables are there from the start (kept in the file with the next write).
  database.exec(todoSchema);
  return database;
}

function readExisting(file: string): Uint8Array | undefined {
  try {
    return new Uint8Array(readFileSync(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Replaces the database file whole: written and flushed to a temporary file, then renamed over it. */
function save(database: Database): void {
  if (path === undefined) return;
  const bytes = database.export();
  const temporary = `${path}.tmp`;
  const descriptor = openSync(temporary, "w", 0o600);
  try {
    writeFileSync(descriptor, bytes);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  renameSync(temporary, path);
}
