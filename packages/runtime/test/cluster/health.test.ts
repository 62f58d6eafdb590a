import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { HealthCheck, HealthServer } from "../../src/cluster/health.js";
import { startPostgres } from "../../../../test/helpers/postgres.js";

const started = await startPostgres();
if (started.skipped) console.warn(`cluster health tests skipped: ${started.skipped}`);

describe.skipIf(!started.server)("health endpoint (real PostgreSQL)", () => {
  const server = started.server!;
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await server.stop();
  });

  it("GET /healthz is 200 with the node id, store reachable and sessions owned; 503 once the database is down", async () => {
    const url = await server.createDatabase("health");
    const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 1000 });
    pool.on("error", () => undefined);
    closers.push(() => pool.end());
    const health = new HealthServer(new HealthCheck({ nodeId: "node-h", db: pool, sessionsOwned: () => 3, timeoutMs: 1500 }));
    closers.push(() => health.close());
    const port = await health.listen(0, "127.0.0.1");
    const up = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(up.status).toBe(200);
    expect(await up.json()).toMatchObject({ ok: true, nodeId: "node-h", store: { reachable: true }, sessionsOwned: 3 });
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    await server.stop();
    const down = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(down.status).toBe(503);
    const report = (await down.json()) as { ok: boolean; store: { reachable: boolean; error?: string } };
    expect(report.ok).toBe(false);
    expect(report.store.reachable).toBe(false);
    expect(report.store.error).toBeTruthy();
  });
});
