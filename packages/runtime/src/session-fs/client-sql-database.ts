import type { QueryRequest, SqlDatabase, TodoRow } from "../tools/builtin/sql/session-database.js";
import { scriptText, type StatementOutcome } from "../tools/builtin/sql/result-text.js";
import { todoSchema } from "../tools/builtin/sql/todo-schema.js";
import type { ClientFileSystem, SqliteResult } from "./client-file-system.js";

/** Statements answered with rows. */
const rowStatement = /^(select|with|pragma|explain|values)\b/i;
/** Statements that change rows (the client reports how many, and the last row id). */
const changeStatement = /^(insert|update|delete|replace)\b/i;

/**
 * The `sql` tool's database kept by the client that provides the session file system (it declared
 * `capabilities.sqlite`): each statement of a query is one `sessionFs.sqliteQuery`, typed `query`
 * (rows), `run` (changes) or `exec` (schema and the rest); the model reads the same text as from
 * the runtime's own database. The todo list's tables are created (`exec`, `IF NOT EXISTS`) before
 * the first query. Queries run one at a time. A statement the client's database refuses rejects
 * with its message (the model's to fix); a client that went away rejects with `PersistenceFailed`.
 *
 * @example
 * const database = new ClientSqlDatabase(fs, sessionId);
 * await database.run({ query: "SELECT 1", statement: "SELECT 1", mayWrite: false });
 */
export class ClientSqlDatabase implements SqlDatabase {
  private queue: Promise<unknown> = Promise.resolve();
  private prepared = false;
  private closed = false;

  constructor(
    private readonly fs: ClientFileSystem,
    private readonly sessionId: string,
  ) {}

  run(request: QueryRequest): Promise<string> {
    const result = this.queue.then(() => this.runNow(request));
    this.queue = result.catch(() => undefined);
    return result;
  }

  async readTodos(): Promise<{ rows: TodoRow[]; dependencies: Array<{ todoId: string; dependsOn: string }> }> {
    const empty = { rows: [], dependencies: [] };
    if (this.closed) return empty;
    if (!this.prepared && !(await this.fs.sqliteExists(this.sessionId).catch(() => false))) return empty;
    const rows = await this.rows("SELECT * FROM todos").catch(() => []);
    const edges = await this.rows("SELECT * FROM todo_deps").catch(() => []);
    const columns = ["id", "title", "description", "status"] as const;
    return {
      rows: rows.map((row) => Object.fromEntries(columns.filter((column) => row[column] !== null && row[column] !== undefined).map((column) => [column, String(row[column])]))),
      dependencies: edges.flatMap((edge) => (edge.todo_id == null || edge.depends_on == null ? [] : [{ todoId: String(edge.todo_id), dependsOn: String(edge.depends_on) }])),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private async rows(query: string): Promise<Array<Record<string, unknown>>> {
    const result = this.queue.then(async () => {
      await this.prepare();
      return (await this.fs.sqliteQuery(this.sessionId, query, "query")).rows;
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async runNow(request: QueryRequest): Promise<string> {
    if (this.closed) throw new Error("The session's database is closed.");
    request.signal?.throwIfAborted();
    await this.prepare();
    const outcomes: StatementOutcome[] = [];
    for (const statement of splitStatements(request.query)) {
      request.signal?.throwIfAborted();
      const queryType = rowStatement.test(statement) ? "query" : changeStatement.test(statement) ? "run" : "exec";
      outcomes.push(outcomeOf(statement, await this.fs.sqliteQuery(this.sessionId, statement, queryType)));
    }
    if (request.answerAs === "rows") return JSON.stringify(outcomes.at(-1)?.rows ?? null);
    return scriptText(request.statement, outcomes);
  }

  /** Creates the todo list's tables once. */
  private async prepare(): Promise<void> {
    if (this.prepared) return;
    await this.fs.sqliteQuery(this.sessionId, todoSchema.trim(), "exec");
    this.prepared = true;
  }
}

/** What one statement did, in the form the tool's text is made from. */
function outcomeOf(statement: string, result: SqliteResult): StatementOutcome {
  const columns = result.columns.length > 0 ? result.columns : Object.keys(result.rows[0] ?? {});
  const values = result.rows.map((row) => columns.map((column) => (row[column] ?? null) as string | number | null));
  const rows = columns.length > 0 && values.length > 0 ? { columns, values } : undefined;
  return { sql: statement, rows, rowsModified: result.rowsAffected, lastInsertRowId: result.lastInsertRowid ?? 0 };
}

/**
 * A script's statements, split at semicolons outside quotes, brackets and comments, without the
 * empty ones (a `CREATE TRIGGER … BEGIN …; END` body is kept whole).
 *
 * @example
 * splitStatements("INSERT INTO t VALUES ('a;b'); SELECT 1;"); // ["INSERT INTO t VALUES ('a;b')", "SELECT 1"]
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let index = 0;
  let triggerDepth = 0;
  const push = (end: number): void => {
    const text = script.slice(start, end).trim();
    if (text !== "" && !/^(--[^\n]*\n?|\/\*[\s\S]*?\*\/|\s)*$/.test(text)) statements.push(text);
  };
  while (index < script.length) {
    const char = script[index]!;
    if (char === "'" || char === '"' || char === "`" || char === "[") {
      const close = char === "[" ? "]" : char;
      const end = script.indexOf(close, index + 1);
      index = end === -1 ? script.length : end + 1;
      continue;
    }
    if (script.startsWith("--", index)) {
      const end = script.indexOf("\n", index);
      index = end === -1 ? script.length : end + 1;
      continue;
    }
    if (script.startsWith("/*", index)) {
      const end = script.indexOf("*/", index + 2);
      index = end === -1 ? script.length : end + 2;
      continue;
    }
    const word = /^[A-Za-z_]+/.exec(script.slice(index, index + 16))?.[0];
    if (word) {
      const upper = word.toUpperCase();
      const before = index === 0 ? " " : script[index - 1]!;
      if (!/[A-Za-z0-9_]/.test(before)) {
        if (upper === "BEGIN" && /^\s*CREATE\b[\s\S]*\bTRIGGER\b/i.test(script.slice(start, index))) triggerDepth++;
        else if (upper === "END" && triggerDepth > 0) triggerDepth--;
      }
      index += word.length;
      continue;
    }
    if (char === ";" && triggerDepth === 0) {
      push(index);
      start = index + 1;
    }
    index++;
  }
  push(script.length);
  return statements;
}
