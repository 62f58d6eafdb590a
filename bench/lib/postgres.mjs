/**
 * A throwaway PostgreSQL server for the scale scenario: `initdb` + `pg_ctl` from the system's
 * packages in a temp dir, on a free loopback port, as `nobody` when run as root (the same recipe
 * as `test/helpers/postgres.ts`, which the benchmarks cannot import: it is TypeScript).
 * @module
 */
import { execFile } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;

/** The folder of `initdb`/`pg_ctl`, or undefined. */
export function findPostgresBin() {
  if (process.env.TANDEM_PG_BIN) return process.env.TANDEM_PG_BIN;
  const root = "/usr/lib/postgresql";
  let versions = [];
  try {
    versions = readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
  } catch {
    return undefined;
  }
  for (const version of versions) {
    const bin = join(root, version, "bin");
    try {
      const entries = readdirSync(bin);
      if (entries.includes("initdb") && entries.includes("pg_ctl")) return bin;
    } catch {
      // Not this one.
    }
  }
  return undefined;
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

async function runPg(bin, args) {
  const command = isRoot ? "setpriv" : bin;
  const argv = isRoot ? ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", bin, ...args] : args;
  const { stdout } = await run(command, argv, { env: { ...process.env, LC_ALL: "C" }, timeout: 60_000 });
  return stdout;
}

/**
 * Starts a server (durability settings as shipped: fsync and synchronous_commit on, so the
 * figures include real commits).
 * @returns {Promise<{ createDatabase(name: string): Promise<string>, pid(): number, stop(): Promise<void> } | { skipped: string }>}
 */
export async function startPostgres() {
  const bin = findPostgresBin();
  if (!bin) return { skipped: "PostgreSQL server binaries not found (apt-get install postgresql)" };
  const dir = mkdtempSync(join(tmpdir(), "bench-pg-"));
  chmodSync(dir, 0o755);
  if (isRoot) chownSync(dir, 65534, 65534);
  const dataDir = join(dir, "data");
  await runPg(join(bin, "initdb"), ["-D", dataDir, "-U", "tandem", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const options = [`-p ${port}`, "-c listen_addresses=127.0.0.1", `-c unix_socket_directories=${dir}`, "-c max_connections=200"].join(" ");
  await runPg(join(bin, "pg_ctl"), ["-D", dataDir, "-o", options, "-l", join(dir, "server.log"), "-w", "-t", "60", "start"]);
  return {
    async createDatabase(name) {
      await runPg(join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "tandem", name]);
      return `postgres://tandem@127.0.0.1:${port}/${name}`;
    },
    /** The postmaster's process id (its backends are its children). */
    pid() {
      return Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    },
    async stop() {
      await runPg(join(bin, "pg_ctl"), ["-D", dataDir, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
