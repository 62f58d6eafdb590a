import type { PoolClient } from "pg";
import { ErrorCodes, TandemError } from "../../errors.js";
import { advertiseUrlColumn, clusterSchemaStatements, fencedAppendFunction, peerColumns } from "./cluster-schema.js";

/** One schema change, applied once, in order of `version`, inside the start-up transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The SQLSTATE `tandem_append_events` raises when the log's last sequence number is not the writer's. */
export const sequenceConflictState = "TD001";

/**
 * The schema, as an ordered list: add a change as a new entry at the end with the next version
 * (never edit an applied one). `schema_migrations` records what a database has.
 */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: "sessions, events and session files",
    sql: `
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        has_workspace boolean NOT NULL DEFAULT false,
        cwd text NOT NULL DEFAULT '',
        summary_count integer NOT NULL DEFAULT 0,
        created_at text NOT NULL DEFAULT '',
        updated_at text NOT NULL DEFAULT '',
        summary text,
        model text,
        name text,
        last_seq bigint NOT NULL DEFAULT 0,
        modified_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX sessions_modified_at ON sessions (modified_at DESC);
      -- body is json, not jsonb: json keeps the event's text exactly as the runtime wrote it.
      CREATE TABLE events (
        session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq bigint NOT NULL CHECK (seq > 0),
        event_id text NOT NULL,
        type text NOT NULL,
        body json NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
      CREATE TABLE session_files (
        session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        name text NOT NULL,
        content text NOT NULL,
        modified_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, name)
      );
      -- Appends a batch after the writer's last known sequence number, in one transaction: the
      -- session row is locked, and a writer whose last seq is not the log's gets ${sequenceConflictState}.
      -- Ids and types come from the writer: extracting them here (->>) fails on an escaped NUL in the text.
      CREATE FUNCTION tandem_append_events(p_session text, p_expected bigint, p_events json[], p_ids text[], p_types text[]) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE
        current_seq bigint;
        added bigint := coalesce(array_length(p_events, 1), 0);
      BEGIN
        INSERT INTO sessions (id) VALUES (p_session) ON CONFLICT (id) DO NOTHING;
        SELECT last_seq INTO current_seq FROM sessions WHERE id = p_session FOR UPDATE;
        IF current_seq <> p_expected THEN
          RAISE EXCEPTION 'the event log of session % ends at seq %, not at % as this writer expected', p_session, current_seq, p_expected
            USING ERRCODE = '${sequenceConflictState}', DETAIL = current_seq::text;
        END IF;
        INSERT INTO events (session_id, seq, event_id, type, body)
          SELECT p_session, p_expected + t.ord, t.id, t.type, t.e
          FROM unnest(p_events, p_ids, p_types) WITH ORDINALITY AS t (e, id, type, ord);
        UPDATE sessions SET last_seq = p_expected + added, modified_at = now() WHERE id = p_session;
        RETURN p_expected + added;
      END
      $$;
    `,
  },
  {
    version: 2,
    name: "cluster: session leases, nodes, node mailbox, fenced appends",
    sql: [...clusterSchemaStatements, fencedAppendFunction].join(";\n"),
  },
  {
    version: 3,
    name: "cluster: index of expired leases (the orphan watcher's scan)",
    sql: "CREATE INDEX IF NOT EXISTS session_leases_expired ON session_leases (expires_at) WHERE expires_at > '-infinity'",
  },
  {
    version: 4,
    name: "cluster: each node's client-facing address (the owner hint)",
    sql: advertiseUrlColumn,
  },
  {
    version: 5,
    name: "cluster: each node's peer link address, incarnation and secret",
    sql: peerColumns,
  },
];

/**
 * Brings the database's schema up to date: under a transaction-scoped advisory lock (so runtimes
 * starting together apply each change once), creates `schema_migrations` when missing and applies
 * the entries it does not list, in order. A database newer than this runtime is refused.
 *
 * @example
 * await migrate(client, migrations); // [1] on a fresh database, [] afterwards
 */
export async function migrate(client: PoolClient, list: readonly Migration[] = migrations): Promise<number[]> {
  const applied: number[] = [];
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('tandem schema migrations'))");
    await client.query("CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
    const { rows } = await client.query<{ version: number }>("SELECT version FROM schema_migrations");
    const known = new Set(rows.map((row) => row.version));
    const newest = Math.max(0, ...list.map((migration) => migration.version));
    const newer = [...known].filter((version) => version > newest);
    if (newer.length > 0) {
      throw new TandemError(ErrorCodes.PersistenceFailed, `The database's schema (version ${Math.max(...newer)}) is newer than this runtime knows (version ${newest}); upgrade the runtime`, { schemaVersion: Math.max(...newer) });
    }
    for (const migration of [...list].sort((a, b) => a.version - b.version)) {
      if (known.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [migration.version, migration.name]);
      applied.push(migration.version);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
  return applied;
}
