/**
 * The session stores an e2e suite can run against: the default file store, and PostgreSQL (a real
 * server from `postgres.ts`, one per test file, a fresh database per test). Where PostgreSQL's
 * binaries are missing, the PostgreSQL variant is skipped with the printed reason.
 *
 * @example
 * const stores = storeVariants();
 * describe.each(stores.variants)("$store store", ({ env }) => { ... world = await startWorld([...], await env()); });
 * afterAll(() => stores.stop());
 */
import pg from "pg";
import { startPostgres, type PostgresServer, type PostgresStart } from "./postgres.js";

/** One store: `env()` makes the runtime environment for a fresh, empty store. */
export interface StoreVariant {
  store: "file" | "postgres";
  /** Extra runtime environment (`TANDEM_STORE_URL` for PostgreSQL; nothing for files). */
  env(): Promise<Record<string, string>>;
  /** Skip reason, when the store cannot run here. */
  skipped?: string;
}

/** The variants, plus access to the PostgreSQL server and the last database made. */
export interface StoreVariants {
  variants: StoreVariant[];
  /** The running server (started on first use). */
  server(): Promise<PostgresServer>;
  /** The URL of the database the last `env()` of the PostgreSQL variant made. */
  lastUrl(): string;
  /** Rows of a query against the last database. */
  query<T extends Record<string, unknown>>(sql: string, values?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

let databaseCounter = 0;

/** Builds the variants; PostgreSQL starts once, on the first test that needs it. */
export function storeVariants(started: PostgresStart | undefined): StoreVariants {
  let url = "";
  const server = async (): Promise<PostgresServer> => {
    if (!started?.server) throw new Error(`no PostgreSQL: ${started?.skipped ?? "not started"}`);
    return started.server;
  };
  const variants: StoreVariant[] = [
    { store: "file", env: async () => ({}) },
    {
      store: "postgres",
      ...(started?.skipped ? { skipped: started.skipped } : {}),
      env: async () => {
        url = await (await server()).createDatabase(`t${process.pid}_${++databaseCounter}`);
        // Short leases: a runtime killed mid-test gives its sessions up to the next one quickly.
        return { TANDEM_STORE_URL: url, TANDEM_LEASE_TTL_MS: "1000" };
      },
    },
  ];
  return {
    variants,
    server,
    lastUrl: () => url,
    query: <T extends Record<string, unknown>>(sql: string, values: unknown[] = []) => queryDatabase<T>(url, sql, values),
    async stop() {
      await started?.server?.stop();
    },
  };
}

/** Starts PostgreSQL for a suite, printing why it is skipped when it cannot. */
export async function startSuitePostgres(): Promise<PostgresStart> {
  const started = await startPostgres();
  if (started.skipped) console.warn(`PostgreSQL store tests skipped: ${started.skipped}`);
  return started;
}

/** Rows of one query against the database at `url`, on a connection of its own. */
export async function queryDatabase<T extends Record<string, unknown>>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}
