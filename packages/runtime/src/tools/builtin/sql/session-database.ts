import { access } from "node:fs/promises";
import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { ErrorCodes, TandemError } from "../../../errors.js";
import { workerScriptUrl } from "../worker-url.js";
import type { SqlWorkerData, SqlWorkerReply, SqlWorkerRequest } from "./sql-worker-messages.js";

/** The file of a session's database, in its session folder (it survives resume). */
export const SESSION_DATABASE_FILE = "session.db";

/** How long one query may run, unless `TANDEM_SQL_TIMEOUT_MS` says otherwise. */
export const DEFAULT_SQL_TIMEOUT_MS = 30_000;

/** Settings of a session's database. */
export interface SessionDatabaseOptions {
  /** How long one query may run before its worker is stopped (default {@link DEFAULT_SQL_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/**
 * Reads `TANDEM_SQL_TIMEOUT_MS` (a positive number of milliseconds), else the default.
 *
 * @example
 * sqlTimeoutFromEnv({ TANDEM_SQL_TIMEOUT_MS: "2000" }); // 2000
 */
export function sqlTimeoutFromEnv(env: NodeJS.ProcessEnv): number {
  const value = Number(env.TANDEM_SQL_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_SQL_TIMEOUT_MS;
}

/**
 * A query ran past the `sql` tool's time limit and was stopped (its worker thread terminated).
 * What earlier queries wrote is kept; what this one changed is not.
 */
export class SqlQueryTimeout extends TandemError {
  constructor(readonly timeoutMs: number) {
    super(
      ErrorCodes.InvalidParams,
      `The query ran longer than the sql tool's time limit (${timeoutMs} ms) and was stopped; its changes were not kept. Rewrite it so it ends sooner (for example, bound a recursive CTE with a LIMIT or a WHERE on its counter).`,
      { limit: "TANDEM_SQL_TIMEOUT_MS", timeoutMs },
    );
    this.name = "SqlQueryTimeout";
  }
}

/** The database's worker thread stopped before it answered (it crashed, or ran out of memory). */
export class SqlWorkerStopped extends TandemError {
  constructor(reason: string) {
    super(ErrorCodes.InternalError, `The database stopped while running the query (${reason}); its changes were not kept.`, { reason });
    this.name = "SqlWorkerStopped";
  }
}

/** The columns of a todo row that `session.plan.readSqlTodos` reports. */
const todoColumns = ["id", "title", "description", "status"] as const;

/** A row of the todo list as `session.plan.readSqlTodos` reports it. */
export type TodoRow = {
  id?: string;
  title?: string;
  description?: string;
  status?: string;
};

function fileExists(path: string): Promise<boolean> {
  return access(path).then(() => true, () => false);
}

/** One query for {@link SessionDatabase.run}. */
export interface QueryRequest {
  query: string;
  /** The query without leading comments (what kind of statement it is). */
  statement: string;
  /** Save the database to its file afterwards. */
  mayWrite: boolean;
  /** `rows`: answer the last statement's rows as JSON instead of the model's text. */
  answerAs?: "text" | "rows";
  /** Aborting stops the query at once (its worker is terminated). */
  signal?: AbortSignal;
}

/**
 * The `sql` tool's database as the tool and `session.plan.readSqlTodos*` use it: the runtime's own
 * ({@link SessionDatabase}) or one a client keeps (`session-fs/client-sql-database.ts`).
 */
export interface SqlDatabase {
  /** Runs one query (one or more statements) and resolves with the text the model reads; SQL errors reject. */
  run(request: QueryRequest): Promise<string>;
  /** The todo list (`todos`, `todo_deps`); empty when there is none yet. */
  readTodos(): Promise<{ rows: TodoRow[]; dependencies: Array<{ todoId: string; dependsOn: string }> }>;
  /** Releases the database; later queries are refused. */
  close(): Promise<void>;
}

/**
 * A session's SQLite database (`sql.js`, SQLite compiled to WebAssembly: nothing to compile or
 * download at install), owned by a worker thread so that no query, however long, blocks the
 * runtime: `ping`, `session.abort`, other sessions and the parent-process watch go on meanwhile.
 *
 * The worker starts on the first query and opens `session.db` from the session folder when that
 * exists; it writes the file back after every query that may have changed it. Queries run one at a
 * time. A query that outlives the time limit, or whose signal aborts, ends the worker
 * (`Worker.terminate`): the next query starts a fresh one from the file, so rows of completed queries
 * are kept. Without a session folder the database lives in the worker's memory and is lost with it.
 *
 * @example
 * const db = new SessionDatabase(session.workspacePath, { timeoutMs: 30_000 });
 * await db.run({ query: "CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT)", statement: "CREATE TABLE todos …", mayWrite: true });
 */
export class SessionDatabase implements SqlDatabase {
  private worker: DatabaseWorker | undefined;
  /** The last stopped worker's end: a new one starts after it (two never write the file at once). */
  private stopping: Promise<void> = Promise.resolve();
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly timeoutMs: number;

  /** @param folder the session folder; without one the database lives in memory only. */
  constructor(
    private readonly folder: string | undefined,
    options: SessionDatabaseOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SQL_TIMEOUT_MS;
  }

  /** The database file, if the database has one. */
  get path(): string | undefined {
    return this.folder === undefined ? undefined : join(this.folder, SESSION_DATABASE_FILE);
  }

  /**
   * Runs one query (one or more statements) and resolves with the text the model reads. SQL errors
   * reject with sql.js's message (`near "SELEC": syntax error`); the time limit with
   * {@link SqlQueryTimeout}; an abort with the signal's reason.
   */
  run(request: QueryRequest): Promise<string> {
    const result = this.queue.then(() => this.runNow(request));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * The todo list (`todos` and `todo_deps`) as rows, for `session.plan.readSqlTodos*`. Empty when
   * the session has no database yet (nothing is started for that) or the tables are missing.
   */
  async readTodos(): Promise<{ rows: TodoRow[]; dependencies: Array<{ todoId: string; dependsOn: string }> }> {
    const empty = { rows: [], dependencies: [] };
    if (this.closed) return empty;
    if (!this.worker && (this.path === undefined || !(await fileExists(this.path)))) return empty;
    // Every column, in insertion order: a table the agent made itself may lack some of the four.
    const rows = await this.readRows("SELECT * FROM todos").catch(() => []);
    const edges = await this.readRows("SELECT * FROM todo_deps").catch(() => []);
    return {
      rows: rows.map((row) => Object.fromEntries(todoColumns.filter((column) => row[column] !== null && row[column] !== undefined).map((column) => [column, String(row[column])]))),
      dependencies: edges.flatMap((edge) => (edge.todo_id == null || edge.depends_on == null ? [] : [{ todoId: String(edge.todo_id), dependsOn: String(edge.depends_on) }])),
    };
  }

  /** A read-only query's rows as objects keyed by column name. */
  private async readRows(query: string): Promise<Array<Record<string, unknown>>> {
    const result = this.queue.then(() => this.runNow({ query, statement: query, mayWrite: false, answerAs: "rows" }));
    this.queue = result.catch(() => undefined);
    const table = JSON.parse(await result) as { columns: string[]; values: unknown[][] } | null;
    if (!table) return [];
    return table.values.map((values) => Object.fromEntries(table.columns.map((column, index) => [column, values[index]])));
  }

  /** Ends the worker at once: a query in flight rejects (what it changed is not kept), later ones are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.stopWorker();
  }

  private async runNow(request: QueryRequest): Promise<string> {
    if (this.closed) throw new Error("The session's database is closed.");
    request.signal?.throwIfAborted();
    if (!this.worker || this.worker.isStopped) {
      await this.stopping;
      const started = await DatabaseWorker.start({ path: this.path }, request.signal);
      if (this.closed) {
        await started.terminate();
        throw new Error("The session's database is closed.");
      }
      this.worker = started;
    }
    const worker = this.worker;
    let stopReason: unknown;
    const stop = (reason: unknown): void => {
      stopReason = reason;
      void this.stopWorker();
    };
    const timer = setTimeout(() => stop(new SqlQueryTimeout(this.timeoutMs)), this.timeoutMs);
    const onAbort = (): void => stop(request.signal?.reason ?? new Error("aborted"));
    request.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await worker.query({ query: request.query, statement: request.statement, mayWrite: request.mayWrite, ...(request.answerAs ? { answerAs: request.answerAs } : {}) });
    } catch (error) {
      throw stopReason ?? error;
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
    }
  }

  private stopWorker(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) this.stopping = worker.terminate();
    return this.stopping;
  }
}

/** One worker thread and the query it is answering. */
class DatabaseWorker {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (text: string) => void; reject: (error: unknown) => void }>();
  private stopped: SqlWorkerStopped | undefined;

  private constructor(
    private readonly thread: Worker,
    private readonly opened: { resolve: () => void; reject: (error: unknown) => void },
  ) {
    thread.on("message", (reply: SqlWorkerReply) => {
      if (reply.kind === "opened") return opened.resolve();
      if (reply.kind === "open-failed") return opened.reject(new Error(`Could not open the session's database: ${reply.message}`));
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.text);
      else waiter.reject(new Error(reply.message));
    });
    thread.on("error", (error) => this.fail(error.message));
    thread.on("exit", (code) => this.fail(`exit code ${code}`));
    // An idle database never keeps the process alive; a query in flight has its timer.
    thread.unref();
  }

  /**
   * Starts the worker and waits until it has opened the database (`worker_threads` loads on the
   * first query, not with the runtime). An abort meanwhile ends the worker and rejects.
   */
  static async start(data: SqlWorkerData, signal: AbortSignal | undefined): Promise<DatabaseWorker> {
    const { Worker } = await import("node:worker_threads");
    signal?.throwIfAborted();
    let opened!: { resolve: () => void; reject: (error: unknown) => void };
    const open = new Promise<void>((resolve, reject) => (opened = { resolve, reject }));
    const worker = new DatabaseWorker(new Worker(workerScriptUrl("sql-worker.js", import.meta.url), { workerData: data }), opened);
    const onAbort = (): void => {
      opened.reject(signal?.reason);
      void worker.terminate();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await open;
      return worker;
    } catch (error) {
      await worker.terminate();
      throw error;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Whether the thread has ended (terminated, crashed): it answers no more queries. */
  get isStopped(): boolean {
    return this.stopped !== undefined;
  }

  query(request: Omit<SqlWorkerRequest, "id">): Promise<string> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.thread.postMessage({ id, ...request } satisfies SqlWorkerRequest);
    });
  }

  async terminate(): Promise<void> {
    this.fail("stopped");
    await this.thread.terminate();
  }

  private fail(reason: string): void {
    this.stopped ??= new SqlWorkerStopped(reason);
    this.opened.reject(this.stopped);
    for (const waiter of this.pending.values()) waiter.reject(this.stopped);
    this.pending.clear();
  }
}
