import { stat } from "node:fs/promises";
import { parseArgs } from "node:util";
import type { Logger } from "../log.js";

const usage = "Usage: tandem store import --from <home or session-state folder> --store <postgres://…> (or TANDEM_STORE_URL)\n";

/**
 * `tandem store import --from <dir> --store <url>`: copies a file store's sessions into PostgreSQL
 * and prints one line per session and a summary. Exit status 0 when every session is in the
 * database (imported now or before), 1 when some failed or differ, 2 for a usage error.
 *
 * @example
 * process.exitCode = await runStoreCommand(["import", "--from", home, "--store", url], { env: process.env, out: process.stdout, err: process.stderr, logger });
 */
export async function runStoreCommand(argv: readonly string[], io: { env: NodeJS.ProcessEnv; out: NodeJS.WritableStream; err: NodeJS.WritableStream; logger: Logger }): Promise<number> {
  const { env, out, err, logger } = io;
  let values: { from?: string; store?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...argv], options: { from: { type: "string" }, store: { type: "string" } }, allowPositionals: true, strict: true }));
  } catch (error) {
    err.write(`tandem store: ${(error as Error).message}\n${usage}`);
    return 2;
  }
  const url = values.store ?? (env.TANDEM_STORE_URL || undefined);
  if (positionals[0] !== "import" || positionals.length !== 1 || !values.from || !url) {
    err.write(usage);
    return 2;
  }
  if (!(await stat(values.from).catch(() => undefined))?.isDirectory()) {
    err.write(`tandem store: ${values.from} is not a folder (pass a Tandem home or its session-state folder)\n`);
    return 2;
  }
  const { connectPostgres } = await import("./postgres/open.js");
  const { importFileSessions } = await import("./postgres/import-sessions.js");
  let connection: Awaited<ReturnType<typeof connectPostgres>>;
  try {
    connection = await connectPostgres({ url, logger, maxConnections: 2 });
  } catch (error) {
    err.write(`tandem store: ${(error as Error).message}\n`);
    return 1;
  }
  try {
    const results = await importFileSessions(connection.pool, values.from, logger);
    const count = (outcome: string) => results.filter((result) => result.outcome === outcome).length;
    for (const result of results) {
      const detail = result.detail ? ` — ${result.detail}` : "";
      out.write(`${result.outcome.padEnd(16)} ${result.sessionId} (${result.events} events, ${result.files} files)${detail}\n`);
    }
    const skipped = results.reduce((total, result) => total + result.skippedLines, 0);
    out.write(
      `${results.length} session(s) in ${values.from} → ${connection.database}: ${count("imported")} imported, ${count("already-imported")} already imported, ${count("differs")} differ, ${count("failed")} failed; ${skipped} unreadable line(s) skipped\n`,
    );
    return count("failed") + count("differs") > 0 ? 1 : 0;
  } finally {
    await connection.pool.end().catch(() => undefined);
  }
}
