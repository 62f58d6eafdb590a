import { z } from "zod";
import { defineRequest } from "./method.js";

/** What a cluster node's health probe answers (the same JSON as `GET /healthz` of `--health-port`). */
export const ClusterHealthReport = z.looseObject({
  /** The store answered: a load balancer may send clients here. */
  ok: z.boolean(),
  nodeId: z.string(),
  store: z.looseObject({ reachable: z.boolean(), error: z.string().optional(), latencyMs: z.number().optional() }),
  /** Sessions whose loop runs on this node (whose lease it holds). */
  sessionsOwned: z.number(),
  /**
   * Sessions open on this node that cannot make progress: their last write to the store failed
   * (sends are refused with -32007 until one succeeds). Any makes `ok` false (503).
   */
  stuckSessions: z.array(z.looseObject({ sessionId: z.string(), reason: z.string() })).optional(),
  /**
   * Node-to-node messages since the node started: stored for other nodes in the database (`sent`;
   * a broadcast counts once) and read from its database mailbox (`received`), and sent and read
   * over direct peer links (`peerSent`, `peerReceived`; absent from nodes older than peer links).
   */
  busMessages: z
    .looseObject({ sent: z.number(), received: z.number(), peerSent: z.number().optional(), peerReceived: z.number().optional() })
    .optional(),
});
export type ClusterHealthReport = z.infer<typeof ClusterHealthReport>;

/**
 * Tandem: where a session runs when it is another node than the one the client asked. A client that
 * can connect there directly (`@tandem/sdk` does) saves every request and event the hop through
 * the node it is connected to; one that ignores it keeps working through that node.
 */
export const SessionOwnerHint = z.looseObject({
  /** The node that runs the session (holds its lease). */
  nodeId: z.string(),
  /** Its client-facing address (`--advertise-url`), e.g. `10.0.0.7:4321`. */
  url: z.string(),
});
export type SessionOwnerHint = z.infer<typeof SessionOwnerHint>;

/**
 * `cluster.health` (Tandem): the node's health, for a load balancer that probes over JSON-RPC.
 * A runtime that is not a cluster node (no PostgreSQL `--store`) answers -32005.
 */
export const ClusterHealth = defineRequest("cluster.health", () => z.looseObject({}).optional(), ClusterHealthReport);
