/**
 * The cost of one agent turn on a cluster (`npm run bench:cluster`; never part of `npm test`).
 *
 * A turn is 6 model calls and 5 `bash` calls, each with a permission round trip to the client
 * (the testkit's scripted model server, a real PostgreSQL server from the system's packages, the
 * built runtime over TCP, the official SDK 0.2.0 as the client). Per turn it reports:
 * - CPU ms of the runtime processes (every node) plus PostgreSQL (the postmaster's tree, exited
 *   backends included), from `/proc/<pid>/stat`;
 * - database transactions (`pg_stat_database.xact_commit` delta of the session database, read
 *   after the backends flushed their statistics, minus the idle rate of the same nodes);
 * - bus messages stored in the database (`busMessages.sent` of every node's `GET /healthz`) and
 *   sent over peer links between the nodes (`busMessages.peerSent`).
 *
 * Configurations: one node with the file store; one node with PostgreSQL; 3 nodes with the client
 * on the session's owner; 3 nodes with the client on another node (every request and event
 * forwarded); 3 nodes with `@tandem/sdk` connected to another node (it follows the owner hint).
 *
 * ```sh
 * npm run bench:cluster                          # builds, then 20 turns per configuration
 * BENCH_CLUSTER_TURNS=40 node bench/cluster-turn.mjs
 * BENCH_CLUSTER_CONFIGS=pg1,pg3-owner node bench/cluster-turn.mjs
 * ```
 * @module
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient, approveAll } from "@github/copilot-sdk";
import { withTimeout } from "./lib/clock.mjs";
import { BenchModelServer } from "./lib/model-server.mjs";
import { resultsDir, tandemCli } from "./lib/paths.mjs";
import { startPostgres } from "./lib/postgres.mjs";
import { cpuMs, processTree } from "./lib/proc.mjs";

const turns = Number(process.env.BENCH_CLUSTER_TURNS ?? 20);
const bashCalls = 5;
const modelId = "gpt-4.1";
/** How long a backend may keep its statistics before it reports them (PostgreSQL's idle flush interval is 10 s). */
const statsFlushMs = 11_500;

const configurations = [
  { key: "file1", label: "1 node, files", nodes: 1, store: "file", clientOn: 0, sdk: "official" },
  { key: "pg1", label: "1 node, PostgreSQL", nodes: 1, store: "postgres", clientOn: 0, sdk: "official" },
  { key: "pg3-owner", label: "3 nodes, client on the owner", nodes: 3, store: "postgres", clientOn: 0, sdk: "official" },
  { key: "pg3-elsewhere", label: "3 nodes, client on another node (forwarded)", nodes: 3, store: "postgres", clientOn: 1, sdk: "official" },
  { key: "pg3-routed", label: "3 nodes, @tandem/sdk connected to another node (follows the owner hint)", nodes: 3, store: "postgres", clientOn: 1, sdk: "tandem" },
];

const chosen = process.env.BENCH_CLUSTER_CONFIGS?.split(",") ?? configurations.map((config) => config.key);

/**
 * The scripted turns, served in order (the model server starts over for each configuration): each
 * 5 bash calls (each asks the client's permission), then a one-line answer; the warm-up turn first.
 */
function turnScript() {
  const steps = [];
  for (let turn = 0; turn <= turns; turn++) {
    for (let call = 0; call < bashCalls; call++) {
      steps.push({ reply: { toolCalls: [{ name: "bash", arguments: { command: `echo step ${call}`, description: `Step ${call}`, initial_wait: 30 } }] } });
    }
    steps.push({ reply: { content: "The five steps ran." } });
  }
  return { name: "cluster-turn", match: "[cluster-turn ", sequential: true, steps };
}

async function freePort() {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** utime + stime (+ reaped children's when `withChildren`) of one process, in ms. */
function ownCpuMs(pid, withChildren) {
  if (!withChildren) return cpuMs(pid);
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** CPU of PostgreSQL: the postmaster's live tree plus the backends that already exited. */
function postgresCpuMs(postmaster) {
  let total = ownCpuMs(postmaster, true);
  for (const member of processTree(postmaster)) if (member !== postmaster) total += cpuMs(member);
  return total;
}

/** One `tandem --port 0` node; resolves once it listens. */
async function startNode(env, args) {
  const child = spawn(process.execPath, [tandemCli, "--port", "0", "--log-level", "error", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
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
  return {
    child,
    port,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await withTimeout(exited, 10_000, "node stop").catch(() => child.kill("SIGKILL"));
    },
  };
}

/** Bus messages every node sent so far, through the database and over peer links (from `GET /healthz`). */
async function busMessagesSent(healthPorts) {
  const total = { database: 0, peer: 0 };
  for (const port of healthPorts) {
    const report = await (await fetch(`http://127.0.0.1:${port}/healthz`)).json();
    total.database += report.busMessages?.sent ?? Number.NaN;
    // A runtime from before peer links reports none.
    total.peer += report.busMessages?.peerSent ?? 0;
  }
  return total;
}

async function committed(db) {
  const { rows } = await db.query("SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()");
  return Number(rows[0].n);
}

/** Sends one prompt and waits for `session.idle`. */
async function turn(session, prompt) {
  let unsubscribe = () => undefined;
  const idle = new Promise((resolve, reject) => {
    unsubscribe = session.on((event) => {
      if (event.type === "session.idle") resolve();
      else if (event.type === "session.error") reject(new Error(`session.error: ${event.data?.message}`));
    });
  });
  try {
    await session.send({ prompt });
    await withTimeout(idle, 120_000, "waiting for session.idle");
  } finally {
    unsubscribe();
  }
}

/** The client of a configuration: the official SDK, or `@tandem/sdk` (which follows owner hints). */
async function connect(config, port, allPorts) {
  if (config.sdk === "official") {
    const client = new CopilotClient({ cliUrl: `127.0.0.1:${port}`, logLevel: "none" });
    await client.start();
    return { client, stop: () => client.forceStop().catch(() => undefined) };
  }
  const { CopilotClient: TandemClient } = await import("@tandem/sdk");
  const urls = [port, ...allPorts.filter((other) => other !== port)].map((other) => `127.0.0.1:${other}`);
  const client = new TandemClient({ cliUrls: urls, logLevel: "none" });
  await client.start();
  return { client, stop: () => client.forceStop().catch(() => undefined) };
}

async function main() {
  const model = await BenchModelServer.start([turnScript()]);
  const postgres = await startPostgres();
  if ("skipped" in postgres) throw new Error(postgres.skipped);
  const { default: pg } = await import("pg");
  const rows = [];
  let databaseIndex = 0;
  try {
    for (const config of configurations.filter((candidate) => chosen.includes(candidate.key))) {
      await model.reset();
      const home = mkdtempSync(join(tmpdir(), `bench-cluster-${config.key}-`));
      const workdir = join(home, "project");
      mkdirSync(workdir, { recursive: true });
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, COPILOT_HOME: home, COPILOT_API_URL: model.url, GH_TOKEN: "x" };
      let db;
      const nodes = [];
      const healthPorts = [];
      const clients = [];
      try {
        if (config.store === "postgres") {
          env.TANDEM_STORE_URL = await postgres.createDatabase(`cluster_turn_${process.pid}_${++databaseIndex}`);
          db = new pg.Pool({ connectionString: env.TANDEM_STORE_URL, max: 1 });
        }
        for (let index = 0; index < config.nodes; index++) {
          const healthPort = await freePort();
          // Each node on a port it knows in advance, so it can advertise it (owner hints).
          const port = await freePort();
          const clusterArgs = ["--port", String(port), "--advertise-url", `127.0.0.1:${port}`, "--node-id", `node-${index}`, "--health-port", String(healthPort)];
          const args = config.store === "postgres" ? clusterArgs : [];
          nodes.push(await startNode(env, args));
          if (config.store === "postgres") healthPorts.push(healthPort);
        }
        const sessionConfig = { model: modelId, provider: { type: "openai", baseUrl: model.url, apiKey: "bench" }, onPermissionRequest: approveAll, workingDirectory: workdir };
        // The session is created on node 0 (its owner); the measured client may be connected elsewhere.
        const creator = await connect({ sdk: "official" }, nodes[0].port, []);
        clients.push(creator);
        const created = await creator.client.createSession(sessionConfig);
        let session = created;
        if (config.clientOn !== 0) {
          const driver = await connect(config, nodes[config.clientOn].port, nodes.map((node) => node.port));
          clients.push(driver);
          session = await driver.client.resumeSession(created.sessionId, sessionConfig);
          await created.disconnect();
        }
        await turn(session, "[cluster-turn warm-up] run the five steps");
        const pids = nodes.map((node) => node.child.pid);
        const cpuBefore = () => pids.reduce((total, pid) => total + cpuMs(pid), 0) + (db ? postgresCpuMs(postgres.pid()) : 0);
        // Statistics of the warm-up reach pg_stat_database first; then the idle rate of the same nodes.
        let idlePerMs = 0;
        let xactStart = 0;
        if (db) {
          await new Promise((resolve) => setTimeout(resolve, statsFlushMs));
          const idleStart = await committed(db);
          const idleStarted = performance.now();
          await new Promise((resolve) => setTimeout(resolve, statsFlushMs));
          xactStart = await committed(db);
          // Our own two reads are transactions too.
          idlePerMs = Math.max(0, xactStart - idleStart - 1) / (performance.now() - idleStarted);
        }
        const busStart = db ? await busMessagesSent(healthPorts) : undefined;
        const cpuStart = cpuBefore();
        const started = performance.now();
        for (let index = 0; index < turns; index++) await turn(session, `[cluster-turn ${index}] run the five steps`);
        const wallMs = performance.now() - started;
        const cpuEnd = cpuBefore();
        const busEnd = db ? await busMessagesSent(healthPorts) : undefined;
        let xactPerTurn = Number.NaN;
        if (db) {
          const waitStarted = performance.now();
          await new Promise((resolve) => setTimeout(resolve, statsFlushMs));
          const xactEnd = await committed(db);
          // Without the idle transactions of the flush wait, and our own read.
          xactPerTurn = (xactEnd - xactStart - 1 - idlePerMs * (performance.now() - waitStarted)) / turns;
        }
        const row = {
          key: config.key,
          label: config.label,
          cpuMsPerTurn: (cpuEnd - cpuStart) / turns,
          wallMsPerTurn: wallMs / turns,
          transactionsPerTurn: xactPerTurn,
          busMessagesPerTurn: busStart && busEnd ? (busEnd.database - busStart.database) / turns : Number.NaN,
          peerMessagesPerTurn: busStart && busEnd ? (busEnd.peer - busStart.peer) / turns : Number.NaN,
        };
        rows.push(row);
        console.error(`${config.label}: ${JSON.stringify(row)}`);
      } finally {
        for (const client of clients) await client.stop();
        for (const node of nodes) await node.stop();
        await db?.end().catch(() => undefined);
        rmSync(home, { recursive: true, force: true, maxRetries: 3 });
      }
    }
  } finally {
    await postgres.stop();
    await model.stop();
  }
  const format = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : "–");
  console.log(`\n${turns} turns per configuration (each: 6 model calls, 5 bash calls with a permission round trip)\n`);
  console.log("| configuration | CPU ms / turn (runtime + PostgreSQL) | transactions / turn | bus messages / turn | peer messages / turn | wall ms / turn |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
  for (const row of rows) {
    console.log(`| ${row.label} | ${format(row.cpuMsPerTurn, 1)} | ${format(row.transactionsPerTurn, 1)} | ${format(row.busMessagesPerTurn, 1)} | ${format(row.peerMessagesPerTurn, 1)} | ${format(row.wallMsPerTurn, 1)} |`);
  }
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, "cluster-turn.json"), `${JSON.stringify({ turns, date: new Date().toISOString(), rows }, null, 2)}\n`);
}

await main();
