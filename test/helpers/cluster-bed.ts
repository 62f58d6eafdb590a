/**
 * What a cluster test file shares: a bed that holds each test's database, model world, runtime
 * nodes and clients and tears them down after the test (and `freePort`).
 */
import { afterAll, afterEach } from "vitest";
import { startWorld, type TestWorld } from "./harness.js";
import type { PostgresStart } from "./postgres.js";
import { startTcpRuntime, type TcpRuntime } from "./tcp.js";

export { freePort } from "./ports.js";


/**
 * One test's cluster: a fresh database of the file's PostgreSQL server, a model world, the nodes
 * started in it and whatever must stop after the test (`stops`). {@link clusterBed} registers the
 * teardown with vitest.
 */
export class ClusterBed {
  /** The current test's database URL. */
  url = "";
  private current: TestWorld | undefined;
  private databases = 0;
  readonly nodes: TcpRuntime[] = [];
  /** Run (in order) after each test, before the nodes stop: clients to close, servers to stop. */
  readonly stops: Array<() => Promise<unknown>> = [];

  constructor(
    private readonly started: PostgresStart,
    private readonly prefix: string,
  ) {}

  /** The current test's world (after {@link open}). */
  get world(): TestWorld {
    if (!this.current) throw new Error("the cluster bed is not open: call open() first");
    return this.current;
  }

  /** A fresh database and a model world serving `scripts`, with `env` for every node. */
  async open(scripts: string[], env: Record<string, string>): Promise<TestWorld> {
    if (!this.started.server) throw new Error(`PostgreSQL is not available: ${this.started.skipped}`);
    this.url = await this.started.server.createDatabase(`${this.prefix}_${process.pid}_${++this.databases}`);
    this.current = await startWorld(scripts, { TANDEM_STORE_URL: this.url, ...env });
    return this.current;
  }

  /** Starts a node (the built runtime over TCP) in the current world with `args`. */
  async startNode(args: string[]): Promise<TcpRuntime> {
    const runtime = await startTcpRuntime(this.world.env, { args });
    this.nodes.push(runtime);
    return runtime;
  }

  /** Stops what the test started and drops its world. */
  async reset(): Promise<void> {
    for (const stop of this.stops.splice(0)) await stop().catch(() => undefined);
    for (const node of this.nodes.splice(0)) await node.stop("SIGTERM");
    await this.current?.dispose();
    this.current = undefined;
  }
}

/** A {@link ClusterBed} torn down after each test of the file; the PostgreSQL server stops after the file. */
export function clusterBed(started: PostgresStart, prefix: string): ClusterBed {
  const bed = new ClusterBed(started, prefix);
  afterEach(() => bed.reset());
  afterAll(async () => {
    await started.server?.stop();
  });
  return bed;
}
