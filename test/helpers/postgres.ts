/**
 * A real PostgreSQL server for tests: `initdb` + `pg_ctl` from the system's packages, in a
 * temporary directory, on a free loopback port. As root it runs under the unprivileged `nobody`
 * user (PostgreSQL refuses to run as root). Where the server binaries are not installed,
 * `startPostgres` returns `{ skipped: reason }` so a suite can skip with a printed reason;
 * `.ci/run` installs them (`apt-get install postgresql`).
 */
import { execFile } from "node:child_process";
import { chmod, chown, mkdtemp, readdir, rm } from "node:fs/promises";
import { freePort } from "./ports.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A running PostgreSQL server owned by a test. */
export interface PostgresServer {
  /** `postgres://tandem@127.0.0.1:<port>/<db>` for a fresh database made by `createDatabase`. */
  url(database?: string): string;
  readonly port: number;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown) and removes its directory. */
  stop(): Promise<void>;
  /** Stops the server (`-m fast`: connections are cut), keeping its data: clients see the database go away. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port and data. */
  restart(): Promise<void>;
}

/** Either a running server or the reason there is none. */
export type PostgresStart = { server: PostgresServer; skipped?: undefined } | { server?: undefined; skipped: string };

/** The folder of `initdb`/`pg_ctl`, or undefined when PostgreSQL's server is not installed. */
export async function findPostgresBin(): Promise<string | undefined> {
  const fromEnv = process.env.TANDEM_PG_BIN;
  if (fromEnv) return fromEnv;
  const root = "/usr/lib/postgresql";
  const versions = await readdir(root).catch(() => [] as string[]);
  const newestFirst = versions.filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  for (const version of newestFirst) {
    const bin = join(root, version, "bin");
    const entries = await readdir(bin).catch(() => [] as string[]);
    if (entries.includes("initdb") && entries.includes("pg_ctl")) return bin;
  }
  return undefined;
}


const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

/** Runs a PostgreSQL binary, as `nobody` when we are root. */
async function runPg(bin: string, args: string[]): Promise<string> {
  const command = isRoot ? "setpriv" : bin;
  const argv = isRoot ? ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", bin, ...args] : args;
  const { stdout } = await run(command, argv, { env: { ...process.env, LC_ALL: "C" }, timeout: 60_000 });
  return stdout;
}

/**
 * Starts a throwaway PostgreSQL server. Trust authentication on loopback only, user `tandem`
 * (superuser), fsync off (tests do not survive power loss, and it is much faster).
 */
export async function startPostgres(): Promise<PostgresStart> {
  const bin = await findPostgresBin();
  if (!bin) return { skipped: "PostgreSQL server binaries not found (apt-get install postgresql)" };
  const dir = await mkdtemp(join(tmpdir(), "tandem-pg-"));
  await chmod(dir, 0o755);
  const dataDir = join(dir, "data");
  if (isRoot) await chown(dir, 65534, 65534);
  await runPg(join(bin, "initdb"), ["-D", dataDir, "-U", "tandem", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  const start = () => runPg(join(bin, "pg_ctl"), ["-D", dataDir, "-o", options, "-l", join(dir, "server.log"), "-w", "-t", "60", "start"]);
  await start();
  const url = (database = "postgres"): string => `postgres://tandem@127.0.0.1:${port}/${database}`;
  const server: PostgresServer = {
    port,
    url,
    async createDatabase(name: string): Promise<string> {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name: ${name}`);
      await runPg(join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "tandem", name]);
      return url(name);
    },
    async halt(): Promise<void> {
      // Fast, not immediate: with synchronous_commit off an immediate stop loses the last commits.
      await runPg(join(bin, "pg_ctl"), ["-D", dataDir, "-m", "fast", "-w", "stop"]);
    },
    async restart(): Promise<void> {
      await start();
    },
    async stop(): Promise<void> {
      await runPg(join(bin, "pg_ctl"), ["-D", dataDir, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  return { server };
}
