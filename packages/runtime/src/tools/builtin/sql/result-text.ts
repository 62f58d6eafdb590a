import type { QueryExecResult } from "sql.js";

/**
 * How the `sql` tool words a query's result. Loaded by the worker thread only (it formats there, so
 * a result of millions of rows never costs the runtime's main thread).
 */

/** Statements whose result is a table ("Query returned 0 rows." when empty). */
const readOnlyStatement = /^(select|with|pragma|explain|values)\b/i;
const schemaStatement = /^(create|drop|alter)\b/i;
/** A table stops growing past this many characters (the tool's output is cut far below it anyway). */
const MAX_TABLE_CHARS = 1024 * 1024;

/** What a statement (or script) did. */
export interface QueryOutcome {
  /** The rows of the last statement that returned any. */
  rows: QueryExecResult | undefined;
  /** `sqlite3_changes()` after the script. */
  rowsModified: number;
  /** `last_insert_rowid()` after the script. */
  lastInsertRowId: number;
}

/** What one statement of a script did. */
export interface StatementOutcome {
  /** The statement's text. */
  sql: string;
  /** Its rows, when it returns any columns. */
  rows: QueryExecResult | undefined;
  rowsModified: number;
  lastInsertRowId: number;
}

/**
 * The text the model reads for a script: a single statement's {@link resultText}; for several,
 * what each did, numbered and indented under its keyword.
 *
 * @example
 * scriptText("INSERT …; INSERT …", outcomes); // "Executed 2 statement(s):\n\n1. INSERT\n   1 row(s) inserted. …"
 */
export function scriptText(script: string, outcomes: readonly StatementOutcome[]): string {
  if (outcomes.length <= 1) {
    const only = outcomes[0];
    return resultText(script, { rows: only?.rows, rowsModified: only?.rowsModified ?? 0, lastInsertRowId: only?.lastInsertRowId ?? 0 });
  }
  const parts = outcomes.map((outcome, index) => {
    const statement = withoutLeadingComments(outcome.sql);
    const keyword = (/^\w+/.exec(statement)?.[0] ?? "SQL").toUpperCase();
    // Indented under its number; blank lines stay blank.
    const text = resultText(statement, outcome).replace(/\n(?=.)/g, "\n   ");
    return `${index + 1}. ${keyword}\n   ${text}`;
  });
  return `Executed ${outcomes.length} statement(s):\n\n${parts.join("\n\n")}`;
}

/** A statement without leading whitespace and SQL comments. */
function withoutLeadingComments(sql: string): string {
  return sql.replace(/^(\s+|--[^\n]*(\n|$)|\/\*[\s\S]*?(\*\/|$))*/, "");
}

/**
 * The text the model reads for a query's outcome: a markdown table after a row count, or what the
 * statement did.
 *
 * @example
 * resultText("DELETE FROM notes", { rows: undefined, rowsModified: 2, lastInsertRowId: 0 }); // "2 row(s) deleted."
 */
export function resultText(statement: string, outcome: QueryOutcome): string {
  if (outcome.rows && outcome.rows.values.length > 0) return table(outcome.rows.columns, outcome.rows.values);
  const keyword = /^\w+/.exec(statement)?.[0]?.toLowerCase();
  if (readOnlyStatement.test(statement)) return "Query returned 0 rows.";
  if (schemaStatement.test(statement)) return "Schema operation completed successfully.";
  switch (keyword) {
    case "insert":
    case "replace":
      return `${outcome.rowsModified} row(s) inserted. Last inserted row ID: ${outcome.lastInsertRowId}.`;
    case "update":
      return `${outcome.rowsModified} row(s) updated.`;
    case "delete":
      return `${outcome.rowsModified} row(s) deleted.`;
    default:
      return "Query executed successfully.";
  }
}

/** Rows as a markdown table, after a count; rows past {@link MAX_TABLE_CHARS} are counted, not shown. */
function table(columns: readonly string[], rows: readonly unknown[][]): string {
  const lines = [`| ${columns.map(cell).join(" | ")} |`, `| ${columns.map(() => "---").join(" | ")} |`];
  let chars = 0;
  let shown = 0;
  for (const row of rows) {
    const line = `| ${row.map(cell).join(" | ")} |`;
    chars += line.length + 1;
    if (chars > MAX_TABLE_CHARS) break;
    lines.push(line);
    shown++;
  }
  const rest = rows.length - shown;
  const note = rest > 0 ? `\n\n(${rest} more row(s) not shown: add a LIMIT or select fewer columns.)` : "";
  return `${rows.length} row(s) returned:\n\n${lines.join("\n")}${note}`;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (value instanceof Uint8Array) return `<blob of ${value.length} bytes>`;
  return String(value).replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}
