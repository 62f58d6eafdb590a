import { ClusterHealth } from "@tandem/protocol";
import { ErrorCodes, TandemError } from "../../errors.js";
import type { Runtime } from "../../runtime.js";
import type { MethodTable } from "../dispatch.js";

/** Cluster methods: `cluster.health`, the JSON-RPC twin of `GET /healthz`. */
export function registerClusterMethods(table: MethodTable, runtime: Runtime): void {
  table.on(ClusterHealth, async () => {
    const node = runtime.cluster;
    if (!node) throw new TandemError(ErrorCodes.NotAvailable, "This runtime is not a cluster node: start it with --store postgres://… to run several nodes.");
    return node.healthReport();
  });
}
