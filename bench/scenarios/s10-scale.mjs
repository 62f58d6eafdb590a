/**
 * 10. Scale-out (Tandem only; needs PostgreSQL's server binaries, else skipped): the same workload
 * on 1 node with the file store, and on 1, 2 and 3 nodes sharing one PostgreSQL database
 * (`--store`, `--node-id`; a real server from the system's packages, default durability: fsync
 * and synchronous commit on). Each configuration: `BENCH_SCALE_SESSIONS` (60) sessions created 10
 * at a time, spread round-robin over the nodes (each created and driven through its own node),
 * then all sent at once, each a 5-turn tool loop. Measured: sessions created per second, model
 * turns per second, events written per second (rows of `events`, lines of `events.jsonl`).
 * Then the latency of one turn (fresh session, one-line answer, `send` → `session.idle`, median of
 * 25): file store, PostgreSQL, and PostgreSQL with the client on another node than the session's
 * (every request and event crossing the node bus): the added latency of the database path and of
 * the cross-node path.
 * @module
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient, approveAll } from "@github/copilot-sdk";
import { now, withTimeout } from "../lib/clock.mjs";
import { benchTool, mapLimit, modelId, timedTurn } from "../lib/harness.mjs";
import { startPostgres } from "../lib/postgres.mjs";
import { prompt } from "../lib/scripts.mjs";
import { quantile } from "../lib/stats.mjs";

const sessions = Number(process.env.BENCH_SCALE_SESSIONS ?? 60);
const loopTurns = 5;
const latencyTurns = 25;

/** The configurations, in table order. */
const configurations = [
  { key: "file1", label: "1 node, file store", nodes: 1, store: "file" },
  { key: "pg1", label: "1 node, PostgreSQL", nodes: 1, store: "postgres" },
  { key: "pg2", label: "2 nodes, PostgreSQL", nodes: 2, store: "postgres" },
  { key: "pg3", label: "3 nodes, PostgreSQL", nodes: 3, store: "postgres" },
];

const metrics = [
  ...configurations.flatMap((config) => [
    { key: `scale_${config.key}_sessions_per_s`, label: `10. ${config.label}: sessions created /s`, unit: "1/s", better: "higher", info: config.key !== "file1" },
    { key: `scale_${config.key}_turns_per_s`, label: `10. ${config.label}: turns /s (${sessions} × ${loopTurns}-turn loops)`, unit: "1/s", better: "higher" },
    { key: `scale_${config.key}_events_per_s`, label: `10. ${config.label}: events written /s`, unit: "1/s", better: "higher", info: true },
  ]),
  { key: "scale_turn_file_ms", label: "10. one turn, file store", unit: "ms", better: "lower" },
  { key: "scale_turn_pg_ms", label: "10. one turn, PostgreSQL", unit: "ms", better: "lower" },
  { key: "scale_turn_pg_cross_node_ms", label: "10. one turn, PostgreSQL, client on another node", unit: "ms", better: "lower" },
  { key: "scale_added_pg_ms", label: "10. added per turn: database path", unit: "ms", better: "lower", info: true },
  { key: "scale_added_cross_node_ms", label: "10. added per turn: cross-node path", unit: "ms", better: "lower", info: true },
];

/** One `tandem --port 0` node; resolves once it listens. */
async function startNode(cliPath, env, args) {
  const child = spawn(process.execPath, [cliPath, "--port", "0", "--log-level", "error", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk.toString()));
  const port = await withTimeout(
    new Promise((resolve, reject) => {
      let stdout = "";
      child.once("exit", (code) => reject(new Error(`node exited (${code}) before listening: ${stderr.slice(-500)}`)));
      child.stdout.on("data", (chunk) => {
        stdout += chunk.toString();
        const match = /listening on port (\d+)/.exec(stdout);
        if (match) resolve(Number(match[1]));
      });
    }),
    30_000,
    "node start",
  );
  const client = new CopilotClient({ cliUrl: `127.0.0.1:${port}`, logLevel: "none" });
  await client.start();
  return {
    client,
    async stop() {
      await client.forceStop().catch(() => undefined);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await withTimeout(exited, 10_000, "node stop").catch(() => child.kill("SIGKILL"));
    },
  };
}

/** Counts stored events: rows of `events`, or lines of every `events.jsonl` under `home`. */
async function eventCount(home, db) {
  if (db) return Number((await db.query("SELECT count(*) AS n FROM events")).rows[0].n);
  const root = join(home, "session-state");
  let lines = 0;
  for (const id of readdirSync(root)) {
    try {
      const text = readFileSync(join(root, id, "events.jsonl"), "utf8");
      for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) lines++;
    } catch {
      // A session without events yet.
    }
  }
  return lines;
}

/** @type {import("../lib/scenario.mjs").Scenario} */
export default {
  id: 10,
  name: "scale-out",
  defaultRuns: 1,
  timeoutMs: 900_000,
  tandemOnly: true,
  metrics,
  async run(ctx) {
    const postgres = await startPostgres();
    if ("skipped" in postgres) throw new Error(`skipped: ${postgres.skipped}`);
    const { default: pg } = await import("pg");
    const started = [];
    const homes = [];
    const pools = [];
    /** @type {Record<string, number>} */
    const result = {};
    try {
      let databaseIndex = 0;
      /** Starts a configuration: its nodes, a client on each, and the database (if any). */
      const bring = async (config) => {
        const home = mkdtempSync(join(tmpdir(), `bench-scale-${config.key}-`));
        homes.push(home);
        const workdir = join(home, "project");
        mkdirSync(workdir, { recursive: true });
        const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, COPILOT_HOME: home, COPILOT_API_URL: ctx.model.url, GH_TOKEN: "x" };
        let db;
        if (config.store === "postgres") {
          const url = await postgres.createDatabase(`scale_${ctx.runIndex}_${++databaseIndex}`);
          Object.assign(env, { TANDEM_STORE_URL: url });
          db = new pg.Pool({ connectionString: url, max: 2 });
          pools.push(db);
        }
        const nodes = [];
        for (let index = 0; index < config.nodes; index++) {
          const node = await startNode(ctx.target.cliPath, env, config.store === "postgres" ? ["--node-id", `node-${index}`] : []);
          started.push(node);
          nodes.push(node);
        }
        const sessionConfig = { model: modelId, provider: { type: "openai", baseUrl: ctx.model.url, apiKey: "bench" }, onPermissionRequest: approveAll, workingDirectory: workdir, tools: [benchTool] };
        return { home, db, nodes, sessionConfig };
      };

      // Each run starts with another configuration: they share one database server, whose state
      // (WAL volume, checkpoints) drifts over a run, so the order is rotated rather than fixed.
      const order = configurations.map((_, index) => configurations[(index + ctx.runIndex) % configurations.length]);
      for (const config of order) {
        const { home, db, nodes, sessionConfig } = await bring(config);
        // Warm every node (first create loads the runtime's lazy parts; first turn connects to the model).
        for (const [index, node] of nodes.entries()) await timedTurn(await node.client.createSession(sessionConfig), prompt("loop2", `scale-warm-${config.key}-${ctx.runIndex}-${index}`));
        const createStarted = now();
        const opened = await mapLimit(Array.from({ length: sessions }, (_, index) => index), 10, (index) => nodes[index % nodes.length].client.createSession(sessionConfig));
        result[`scale_${config.key}_sessions_per_s`] = sessions / ((now() - createStarted) / 1000);
        await ctx.model.take();
        const eventsBefore = await eventCount(home, db);
        const loopStarted = now();
        const turns = await Promise.all(opened.map((session, index) => timedTurn(session, prompt("loop5", `scale-${config.key}-${ctx.runIndex}-${index}`), 600_000)));
        const seconds = (Math.max(...turns.map((turn) => turn.idleAt)) - loopStarted) / 1000;
        // Let the last batches reach the store before counting.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const written = (await eventCount(home, db)) - eventsBefore;
        const calls = await ctx.model.take();
        result[`scale_${config.key}_turns_per_s`] = calls.length / seconds;
        result[`scale_${config.key}_events_per_s`] = written / seconds;
        ctx.log(`${config.label}: ${sessions} sessions, ${calls.length} model turns in ${seconds.toFixed(2)} s, ${written} events written`);

        // Single-turn latency: file store, PostgreSQL on one node, and across two nodes.
        const latency = async (createOn, driveFrom, tag) => {
          const samples = [];
          for (let index = 0; index < latencyTurns; index++) {
            const created = await createOn.client.createSession(sessionConfig);
            const session = createOn === driveFrom ? created : await driveFrom.client.resumeSession(created.sessionId, sessionConfig);
            const turn = await timedTurn(session, prompt("plain", `scale-${tag}-${ctx.runIndex}-${index}`));
            samples.push(turn.idleAt - turn.sentAt);
          }
          samples.sort((a, b) => a - b);
          return quantile(samples, 0.5);
        };
        if (config.key === "file1") result.scale_turn_file_ms = await latency(nodes[0], nodes[0], "lat-file");
        if (config.key === "pg1") result.scale_turn_pg_ms = await latency(nodes[0], nodes[0], "lat-pg");
        if (config.key === "pg2") result.scale_turn_pg_cross_node_ms = await latency(nodes[0], nodes[1], "lat-cross");
        for (const node of nodes) await node.stop();
      }
      result.scale_added_pg_ms = result.scale_turn_pg_ms - result.scale_turn_file_ms;
      result.scale_added_cross_node_ms = result.scale_turn_pg_cross_node_ms - result.scale_turn_pg_ms;
      return result;
    } finally {
      for (const node of started) await node.stop().catch(() => undefined);
      for (const pool of pools) await pool.end().catch(() => undefined);
      await postgres.stop();
      if (!process.env.BENCH_KEEP) for (const home of homes) rmSync(home, { recursive: true, force: true, maxRetries: 3 });
    }
  },
};
