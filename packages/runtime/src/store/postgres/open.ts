import type { Pool } from "pg";
import { errorMessage, ErrorCodes, TandemError } from "../../errors.js";
import type { Logger } from "../../log.js";
import { migrate, migrations, type Migration } from "./migrations.js";
import { PgSessionStore } from "./pg-store.js";

/** How long the start-up connection may take before the runtime gives up. */
const connectTimeoutMs = 10_000;
/** A query that hangs (a database that stopped answering) fails after this long, as a write to a dead disk would. */
const queryTimeoutMs = 30_000;

/** What opening the PostgreSQL store needs. */
export interface PostgresStoreOptions {
  /** `postgres://user[:password]@host[:port]/database[?…]`. */
  url: string;
  /** The local state folder (per-machine session folders). */
  home: string;
  logger: Logger;
  /** The schema changes to apply (default: all of `migrations`). */
  migrations?: readonly Migration[];
  /** Connections the pool may open (default 10). */
  maxConnections?: number;
}

/**
 * The URL without its password, for messages.
 *
 * @example
 * describeDatabase("postgres://me:secret@db:5432/tandem"); // "postgres://me@db:5432/tandem"
 */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    parsed.search = "";
    return parsed.toString();
  } catch {
    return "(an unparsable URL)";
  }
}

/** Whether a `--store` value names PostgreSQL. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * Connects to PostgreSQL (the `pg` driver is loaded here, on first use), checks the connection and
 * applies the schema's migrations, so that a bad URL or an unreachable database fails at start with
 * a clear message rather than at the first send.
 *
 * @example
 * const store = await openPostgresStore({ url: "postgres://tandem@db/tandem", home, logger });
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PgSessionStore> {
  const { pool, database } = await connectPostgres(options);
  return new PgSessionStore(pool, options.home, database, options.logger);
}

/** The connection pool of {@link openPostgresStore}, schema migrated, and the database's name for messages. */
export async function connectPostgres(options: Omit<PostgresStoreOptions, "home">): Promise<{ pool: Pool; database: string }> {
  const database = describeDatabase(options.url);
  if (!isPostgresUrl(options.url)) throw storeError(`The session store ${JSON.stringify(database)} is not a postgres:// URL`, database);
  try {
    new URL(options.url);
  } catch {
    throw storeError(`The session store URL is not a valid URL`, database);
  }
  const { default: pg } = await import("pg");
  const pool: Pool = new pg.Pool({ connectionString: options.url, max: options.maxConnections ?? 10, connectionTimeoutMillis: connectTimeoutMs, idleTimeoutMillis: 30_000, query_timeout: queryTimeoutMs });
  // An idle connection the server dropped (restart, failover) must not crash the runtime; the next query reconnects.
  pool.on("error", (error) => options.logger.warn(`PostgreSQL connection lost (${database}): ${error.message}`));
  try {
    const client = await pool.connect();
    try {
      const applied = await migrate(client, options.migrations ?? migrations);
      if (applied.length > 0) options.logger.info(`${database}: applied schema migration(s) ${applied.join(", ")}`);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (error instanceof TandemError) throw error;
    throw storeError(`Cannot open the session store ${database}: ${errorMessage(error)}`, database);
  }
  return { pool, database };
}

function storeError(message: string, database: string): TandemError {
  return new TandemError(ErrorCodes.PersistenceFailed, message, { store: database });
}
