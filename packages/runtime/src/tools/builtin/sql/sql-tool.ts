import { z } from "zod";
import { errorMessage } from "../../../errors.js";
import type { Tool, ToolOutcome } from "../../types.js";
import { defineBuiltinTool } from "../define.js";
import type { SqlDatabase } from "./session-database.js";

/** Statements that cannot change the database (a `WITH … INSERT` or a `PRAGMA x = y` can). */
const neverWrites = /^(select|explain|values)\b/i;
/** Writes to these tables are the agent's todo list changing (`session.todos_changed`). */
const todoTables = /\b(todos|todo_deps)\b/i;

/** The arguments of `sql`, built once for every session's tool. */
const sqlArguments = z.object({
  description: z.string().describe("A few words on what this query does"),
  query: z.string().describe("The SQL to run (SQLite dialect)"),
  database: z
    .enum(["session", "session_store"])
    .default("session")
    .describe('"session" (default): this session\'s database. "session_store": the store shared by sessions (not enabled).'),
});

/**
 * `sql`: a SQLite database of the session's own (`database: "session"`), where the agent keeps
 * structured state such as its todo list (`todos`, `todo_deps`). Writes to those tables emit
 * `session.todos_changed`. The cross-session store (`session_store`) is not available.
 *
 * @example
 * const sql = sqlTool(new SessionDatabase(workspacePath));
 */
export function sqlTool(database: SqlDatabase): Tool {
  return defineBuiltinTool({
    name: "sql",
    description: [
      "Runs SQLite queries against a database that belongs to this session and lasts as long as it (also across resume).",
      "Use it to keep structured state while you work. Your todo list has its tables already: `todos` (id TEXT PRIMARY KEY, title, description, status 'pending' | 'in_progress' | 'done' | 'blocked', created_at, updated_at) and `todo_deps` (todo_id, depends_on); insert, update and select them.",
      "Several statements may be separated by semicolons; what each one did is reported in order.",
    ].join(" "),
    schema: sqlArguments,
    dispose: () => database.close(),
    async execute({ query, database: which }, context): Promise<ToolOutcome> {
      if (which === "session_store") {
        const text = "Error: Session store is not enabled. Enable the SESSION_STORE experimental feature flag.";
        return { resultType: "failure", textForModel: text, errorMessage: text };
      }
      const statement = withoutLeadingComments(query);
      const mayWrite = !neverWrites.test(statement);
      let text: string;
      try {
        text = await database.run({ query, statement, mayWrite, signal: context.signal });
      } catch (error) {
        if (context.signal.aborted) throw error;
        const message = `Error: ${errorMessage(error)}`;
        return { resultType: "failure", textForModel: `SQL Error: ${message}`, errorMessage: message };
      }
      if (mayWrite && todoTables.test(query)) context.emitter.emit("session.todos_changed", {});
      return { resultType: "success", textForModel: text, detailedContent: `SQL: ${query}\n\n${text}` };
    },
  });
}

/** The query without leading whitespace and SQL comments (to tell what kind of statement it is). */
function withoutLeadingComments(query: string): string {
  let rest = query.trimStart();
  for (;;) {
    if (rest.startsWith("--")) {
      const end = rest.indexOf("\n");
      rest = end === -1 ? "" : rest.slice(end + 1).trimStart();
    } else if (rest.startsWith("/*")) {
      const end = rest.indexOf("*/");
      rest = end === -1 ? "" : rest.slice(end + 2).trimStart();
    } else {
      return rest;
    }
  }
}
