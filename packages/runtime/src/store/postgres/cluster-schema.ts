import type { Queryable } from "./queryable.js";

/**
 * The cluster's tables: who owns which session (`session_leases`), which nodes are alive
 * (`cluster_nodes`) and the node-to-node mailbox (`node_messages`). Statements are idempotent;
 * the PostgreSQL store's migration list runs them as one of its versioned steps.
 */
export const clusterSchemaStatements: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS session_leases (
     session_id text PRIMARY KEY,
     node_id text NOT NULL,
     expires_at timestamptz NOT NULL,
     epoch bigint NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS session_leases_node ON session_leases (node_id)`,
  // Heartbeats and node messages are unlogged: no WAL, so their commits never wait for a disk
  // flush (they are only worth anything while the nodes that wrote them live; after a database
  // crash the tables come back empty and nodes beat again). Leases stay logged: they fence appends.
  `CREATE UNLOGGED TABLE IF NOT EXISTS cluster_nodes (
     node_id text PRIMARY KEY,
     started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
     heartbeat_at timestamptz NOT NULL
   )`,
  `CREATE UNLOGGED TABLE IF NOT EXISTS node_messages (
     id bigserial PRIMARY KEY,
     target_node text NOT NULL,
     source_node text NOT NULL,
     body jsonb NOT NULL,
     created_at timestamptz NOT NULL DEFAULT clock_timestamp()
   )`,
  `CREATE INDEX IF NOT EXISTS node_messages_target ON node_messages (target_node, id)`,
];

/** Where clients reach each node (`--advertise-url`), written with its heartbeat; null when it advertises none. */
export const advertiseUrlColumn = "ALTER TABLE cluster_nodes ADD COLUMN IF NOT EXISTS advertise_url text";

/**
 * What peer links need of each node (see `cluster/peer-links.ts`), written with its heartbeat: where
 * other nodes reach it (`peer_address`, null when it takes no links), its process incarnation and
 * the random secret that process proves itself with. Whoever can read this table can impersonate a
 * node: the database is the links' trust root.
 */
export const peerColumns =
  "ALTER TABLE cluster_nodes ADD COLUMN IF NOT EXISTS peer_address text, ADD COLUMN IF NOT EXISTS incarnation text, ADD COLUMN IF NOT EXISTS peer_secret text";

/** The SQLSTATE of an append whose lease is not current (`tandem_append_events_fenced`). */
export const leaseLostState = "TD002";

/**
 * Appends (see `tandem_append_events`) only while `p_node` holds the session's lease at `p_epoch`:
 * the lease row is share-locked for the transaction, so a takeover waits for this append to commit
 * and every append after the takeover is refused.
 */
export const fencedAppendFunction = `
  CREATE OR REPLACE FUNCTION tandem_append_events_fenced(p_session text, p_expected bigint, p_events json[], p_ids text[], p_types text[], p_node text, p_epoch bigint) RETURNS bigint
  LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM 1 FROM session_leases
      WHERE session_id = p_session AND node_id = p_node AND epoch = p_epoch AND expires_at > clock_timestamp()
      FOR SHARE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'node % no longer holds the lease of session % (epoch %)', p_node, p_session, p_epoch USING ERRCODE = '${leaseLostState}';
    END IF;
    RETURN tandem_append_events(p_session, p_expected, p_events, p_ids, p_types);
  END
  $$`;

/** Creates the cluster's tables when they are missing (for callers without the store's migrations). */
export async function ensureClusterSchema(db: Queryable): Promise<void> {
  for (const statement of [...clusterSchemaStatements, advertiseUrlColumn, peerColumns]) await db.query(statement);
}
