/**
 * The messages between the runtime and the `sql` tool's worker thread (`sql-worker.ts`). Types only:
 * the worker bundle must not share code with the runtime's chunks (see `build.mjs`).
 */

/** What the worker is started with. */
export interface SqlWorkerData {
  /** The database file; without one the database lives in the worker's memory only. */
  path: string | undefined;
}

/** One query for the worker. */
export interface SqlWorkerRequest {
  id: number;
  query: string;
  /** The query without leading comments: tells what kind of statement it is. */
  statement: string;
  /** Save the database to its file afterwards (also after a failure). */
  mayWrite: boolean;
  /** `text` (default): the text the model reads. `rows`: the last statement's rows as JSON (`{columns, values}` or null). */
  answerAs?: "text" | "rows";
}

/** The worker's answer to one {@link SqlWorkerRequest}. */
export type SqlWorkerAnswer = { kind: "answer"; id: number; ok: true; text: string } | { kind: "answer"; id: number; ok: false; message: string };

/** What the worker posts: once, whether it opened the database; then one answer per request. */
export type SqlWorkerReply = { kind: "opened" } | { kind: "open-failed"; message: string } | SqlWorkerAnswer;
