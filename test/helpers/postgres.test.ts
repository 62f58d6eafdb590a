import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresServer } from "./postgres.js";

const started = await startPostgres();
if (started.skipped) console.warn(`postgres tests skipped: ${started.skipped}`);

describe.skipIf(!started.server)("test PostgreSQL server", () => {
  let server: PostgresServer;
  beforeAll(() => {
    server = started.server!;
  });
  afterAll(async () => {
    await server.stop();
  });

  it("serves a fresh database on loopback to the driver", async () => {
    const url = await server.createDatabase("harness_check");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const result = await client.query<{ db: string }>("select current_database() as db");
    await client.end();
    expect(result.rows[0]?.db).toBe("harness_check");
  });
});
