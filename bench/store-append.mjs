// Events appended per second: the file store's EventLog against the PostgreSQL store's PgEventLog,
// through the same interface (packages/runtime/dist; run `npm run build` first). Two patterns:
// "bulk" (append everything, then one flush: batches as large as the logs make them) and "turns"
// (10 events then a flush that waits, as a turn end does). PostgreSQL is a throwaway server started
// here (initdb/pg_ctl, fsync and synchronous_commit ON, as a production server), or BENCH_PG_URL.
//
//   node bench/store-append.mjs            # 20,000 events per pattern
//   BENCH_EVENTS=50000 node bench/store-append.mjs
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dist = new URL("../packages/runtime/dist/", import.meta.url);
const { EventLog } = await import(new URL("store/event-log.js", dist));
const { openPostgresStore } = await import(new URL("store/postgres/open.js", dist));
const { Logger } = await import(new URL("log.js", dist));
const logger = new Logger("error", (line) => process.stderr.write(line));
const count = Number(process.env.BENCH_EVENTS ?? 20_000);

/** A realistic event line (~450 bytes), as the emitter writes it. */
function line(index) {
  return JSON.stringify({
    type: "tool.execution_complete",
    data: { toolCallId: `call_${index}`, success: true, result: { content: `output of step ${index}: ${"x".repeat(300)}` } },
    id: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
    timestamp: new Date().toISOString(),
    parentId: index > 0 ? `00000000-0000-4000-8000-${String(index - 1).padStart(12, "0")}` : null,
  });
}

async function measure(name, makeLog) {
  const results = {};
  for (const pattern of ["bulk", "turns"]) {
    const log = await makeLog(pattern);
    const started = performance.now();
    if (pattern === "bulk") {
      for (let index = 0; index < count; index++) log.append(line(index));
      await log.flush({ durable: true });
    } else {
      for (let index = 0; index < count; index++) {
        log.append(line(index));
        if (index % 10 === 9) await log.flush({ durable: true });
      }
      await log.flush({ durable: true });
    }
    const seconds = (performance.now() - started) / 1000;
    if (log.failure) throw log.failure;
    await log.close();
    results[pattern] = Math.round(count / seconds);
  }
  console.log(`${name.padEnd(12)} bulk ${String(results.bulk).padStart(8)} events/s   turns (10 events + durable flush) ${String(results.turns).padStart(7)} events/s`);
}

async function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A throwaway PostgreSQL with production durability settings; returns its URL and a stop function. */
async function startPostgres() {
  const root = "/usr/lib/postgresql";
  const version = readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => b - a)[0];
  const bin = join(root, version, "bin");
  const dir = mkdtempSync(join(tmpdir(), "tandem-bench-pg-"));
  chmodSync(dir, 0o755);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, 65534, 65534);
  const run = (tool, args) => (asRoot ? execFileSync("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", join(bin, tool), ...args]) : execFileSync(join(bin, tool), args));
  const data = join(dir, "data");
  run("initdb", ["-D", data, "-U", "tandem", "--auth=trust", "-E", "UTF8"]);
  const port = await freePort();
  run("pg_ctl", ["-D", data, "-o", `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${dir}`, "-l", join(dir, "log"), "-w", "start"]);
  return {
    url: `postgres://tandem@127.0.0.1:${port}/postgres`,
    stop() {
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const fileDir = mkdtempSync(join(tmpdir(), "tandem-bench-files-"));
const postgres = process.env.BENCH_PG_URL ? { url: process.env.BENCH_PG_URL, stop() {} } : await startPostgres();
try {
  console.log(`${count} events of ~${line(1).length} bytes per pattern`);
  await measure("files", async (pattern) => new EventLog(join(fileDir, `${pattern}.jsonl`), logger));
  const store = await openPostgresStore({ url: postgres.url, home: fileDir, logger });
  let session = 0;
  await measure("postgres", async () => {
    const id = `bench-${process.pid}-${++session}`;
    await store.createSessionDir(id);
    return store.openEventLog(id);
  });
  await store.close();
} finally {
  postgres.stop();
  rmSync(fileDir, { recursive: true, force: true });
}
