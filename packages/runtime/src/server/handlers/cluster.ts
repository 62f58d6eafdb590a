import { ClusterHealth } from "@tandem/protocol";
import { ErrorCodes, TandemError } from "../../errors.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/** Cluster methods: `cluster.health`, the JSON-RPC twin of `GET /healthz`. */
export function registerClusterMethods(table: MethodTable, runtime: RuntimeServices): void {
  table.on(ClusterHealth, async () => {
    const node = runtime.cluster;
    if (!node) throw new TandemError(ErrorCodes.NotAvailable, "This runtime is not a cluster node: start it with --store postgres://… to run several nodes.");
    return node.healthReport();
  });
}
