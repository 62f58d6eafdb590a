import type { Queryable } from "./sql.js";

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
  `CREATE TABLE IF NOT EXISTS cluster_nodes (
     node_id text PRIMARY KEY,
     started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
     heartbeat_at timestamptz NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS node_messages (
     id bigserial PRIMARY KEY,
     target_node text NOT NULL,
     source_node text NOT NULL,
     body jsonb NOT NULL,
     created_at timestamptz NOT NULL DEFAULT clock_timestamp()
   )`,
  `CREATE INDEX IF NOT EXISTS node_messages_target ON node_messages (target_node, id)`,
];

/** Creates the cluster's tables when they are missing (for callers without the store's migrations). */
export async function ensureClusterSchema(db: Queryable): Promise<void> {
  for (const statement of clusterSchemaStatements) await db.query(statement);
}
