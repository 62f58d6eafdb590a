import { createServer, type Server } from "node:http";
import type { ClusterHealthReport } from "@tandem/protocol";
import { errorMessage } from "../errors.js";
import type { Queryable } from "../store/postgres/queryable.js";

/** What a health probe answers (`GET /healthz`, and the `cluster.health` JSON-RPC method). */
export type HealthReport = ClusterHealthReport;

/** What {@link HealthCheck} reads. */
export interface HealthSources {
  nodeId: string;
  db: Queryable;
  sessionsOwned(): number;
  /** Sessions open here whose last write failed (they cannot make progress until one succeeds). */
  stuckSessions?(): Array<{ sessionId: string; reason: string }>;
  /** Bus messages this node sent and received since it started (through the database, and over peer links). */
  busMessages?(): { sent: number; received: number; peerSent: number; peerReceived: number };
  /** How long the store may take to answer `SELECT 1` (default 2 s). */
  timeoutMs?: number;
}

/** Builds a node's health report: the store is probed with `SELECT 1`. */
export class HealthCheck {
  constructor(private readonly sources: HealthSources) {}

  async report(): Promise<HealthReport> {
    const { nodeId, db } = this.sources;
    const started = performance.now();
    const timeoutMs = this.sources.timeoutMs ?? 2000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the store did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const store = await Promise.race([db.query("SELECT 1"), timeout]).then(
      () => ({ reachable: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 }),
      (error: unknown) => ({ reachable: false, error: errorMessage(error) }),
    );
    clearTimeout(timer);
    const stuckSessions = this.sources.stuckSessions?.() ?? [];
    const busMessages = this.sources.busMessages?.();
    return { ok: store.reachable && stuckSessions.length === 0, nodeId, store, sessionsOwned: this.sources.sessionsOwned(), stuckSessions, ...(busMessages ? { busMessages } : {}) };
  }
}

/**
 * `--health-port`: an HTTP endpoint for load balancers. `GET /healthz` answers 200 with the
 * {@link HealthReport} as JSON while the store is reachable and no session is stuck, 503 with the
 * same report otherwise; any other path is 404.
 */
export class HealthServer {
  private server: Server | undefined;

  constructor(private readonly check: HealthCheck) {}

  /** Listens; resolves with the bound port (a free one when `port` is 0). */
  listen(port: number, host: string): Promise<number> {
    const server = createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0];
      if (request.method !== "GET" || path !== "/healthz") {
        response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found; the probe is GET /healthz" }));
        return;
      }
      void this.check.report().then((report) => {
        response.writeHead(report.ok ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(report));
      });
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        const address = server.address();
        resolve(typeof address === "object" && address ? address.port : port);
      });
    });
  }

  close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return Promise.resolve();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}
