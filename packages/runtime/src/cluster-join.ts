import { isAdvertiseUrl, type RuntimeArgs } from "./args.js";
import type { Logger } from "./log.js";
import type { Runtime } from "./runtime.js";

/**
 * Joins the cluster of runtimes sharing the PostgreSQL store of `--store` / `TANDEM_STORE_URL`:
 * a runtime with that store is a cluster node from its start. Loaded by the CLI only then, so a
 * runtime on the file store does not parse the cluster's settings at start-up.
 *
 * @example
 * const { joinClusterAtStart } = await import("./cluster-join.js");
 * await joinClusterAtStart(await loader.load(), args, logger);
 */
export async function joinClusterAtStart(runtime: Runtime, args: RuntimeArgs, logger: Logger): Promise<void> {
  const { leaseTtlFromEnv, peerListenFor } = await import("./cluster/cluster-node.js");
  const { hostname } = await import("node:os");
  const url = args.store ?? process.env.TANDEM_STORE_URL ?? "";
  const nodeId = args.nodeId ?? (process.env.TANDEM_NODE_ID || `${hostname()}-${process.pid}`);
  const advertiseUrl = args.advertiseUrl ?? advertiseUrlFromEnv(process.env.TANDEM_ADVERTISE_URL, logger);
  const peerListen = peerListenFor(args.peerListen ?? (process.env.TANDEM_CLUSTER_PEER_LISTEN || undefined), advertiseUrl, hostname());
  const node = await runtime.joinCluster({
    url,
    nodeId,
    ttlMs: leaseTtlFromEnv(process.env),
    healthHost: args.host,
    ...(args.healthPort !== undefined ? { healthPort: args.healthPort } : {}),
    ...(advertiseUrl !== undefined ? { advertiseUrl } : {}),
    peerListen,
  });
  if (node.healthPort !== undefined) logger.info(`health endpoint on ${args.host}:${node.healthPort}/healthz`);
}

/** `TANDEM_ADVERTISE_URL` when it names an endpoint (a bad one is logged and ignored: the node still serves through forwarding). */
function advertiseUrlFromEnv(value: string | undefined, logger: Logger): string | undefined {
  if (!value) return undefined;
  if (isAdvertiseUrl(value)) return value;
  logger.warn(`TANDEM_ADVERTISE_URL=${value} is not host:port; clients are not told to connect to this node`);
  return undefined;
}
