/**
 * `splitStatements`: the statements of a `sql` tool script, sent one at a time to the database a
 * client keeps, split at semicolons that end a statement and nowhere else.
 */
import { describe, expect, it } from "vitest";
import { splitStatements } from "../../src/session-fs/client-sql-database.js";

describe("splitStatements", () => {
  it("splits at semicolons, drops empty statements and trailing whitespace", () => {
    expect(splitStatements("CREATE TABLE t (a TEXT);\n INSERT INTO t VALUES ('x');;  ")).toEqual(["CREATE TABLE t (a TEXT)", "INSERT INTO t VALUES ('x')"]);
  });

  it("keeps semicolons inside strings, quoted names and comments", () => {
    const script = `INSERT INTO t VALUES ('a;b', "c;d", [e;f]) -- a comment; still a comment
; /* block; comment */ SELECT 'it''s; fine'`;
    expect(splitStatements(script)).toEqual([`INSERT INTO t VALUES ('a;b', "c;d", [e;f]) -- a comment; still a comment`, `/* block; comment */ SELECT 'it''s; fine'`]);
  });

  it("keeps a trigger body whole, and a statement that is only a comment is none", () => {
    const trigger = "CREATE TRIGGER touch AFTER UPDATE ON todos BEGIN UPDATE todos SET updated_at = CURRENT_TIMESTAMP WHERE id = NEW.id; END";
    expect(splitStatements(`${trigger}; -- done\n`)).toEqual([trigger]);
  });
});
