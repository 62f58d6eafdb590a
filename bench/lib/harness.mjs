/**
 * Starting a runtime under the official SDK client (0.2.0 or 1.0.x, `BENCH_SDK`), sessions with
 * the benchmark tool, and timed turns. Both runtimes get the same client, the same environment and
 * the same session config.
 * @module
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { now, withTimeout } from "./clock.mjs";
import { processTree, treeCpuMs } from "./proc.mjs";
import { toolName } from "./scripts.mjs";
import { benchSdk } from "./sdk.mjs";

/** The SDK driving this run (`BENCH_SDK`). */
export const sdk = benchSdk();

/**
 * @typedef {object} Target
 * @property {"tandem" | "reference"} id
 * @property {string} label
 * @property {string} cliPath
 * @property {string} [version]
 * @property {Record<string, string>} [env]
 * @property {boolean} [baseline] another build of Tandem in the reference's place (`BENCH_BASELINE_DIR`)
 */

/** The model every session asks for. */
export const modelId = "gpt-4.1";

/** The custom tool of the loops: answers at once. */
export const benchTool = sdk.defineTool(toolName, {
  description: "Echoes the step number (benchmark tool).",
  parameters: { type: "object", properties: { step: { type: "number" }, text: { type: "string" } }, required: ["step"] },
  handler: async (args) => `echo ${args?.step}`,
});

/** A started runtime process with its client and private state folder. */
export class RuntimeHandle {
  /**
   * Spawns the runtime through the SDK and waits until its first `ping` is answered.
   * @param {Target} target
   * @param {string} modelUrl
   * @param {{ timeoutMs?: number, home?: string }} [options]
   * @returns {Promise<RuntimeHandle>}
   */
  static async launch(target, modelUrl, options = {}) {
    const home = options.home ?? mkdtempSync(join(tmpdir(), `bench-${target.id}-`));
    const workdir = join(home, "project");
    mkdirSync(workdir, { recursive: true });
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      COPILOT_HOME: home,
      COPILOT_API_URL: modelUrl,
      GH_TOKEN: "x",
      ...target.env,
    };
    const client = sdk.makeClient(target.cliPath, env, workdir);
    const handle = new RuntimeHandle(target, client, home, workdir, modelUrl);
    const started = now();
    try {
      await withTimeout(client.start(), options.timeoutMs ?? 60_000, `${target.id}: start`);
    } catch (error) {
      await handle.stop();
      throw error;
    }
    handle.startMs = now() - started;
    return handle;
  }

  /**
   * @param {Target} target
   * @param {any} client a client of the SDK driving the run
   * @param {string} home
   * @param {string} workdir
   * @param {string} modelUrl
   */
  constructor(target, client, home, workdir, modelUrl) {
    this.target = target;
    this.client = client;
    this.home = home;
    this.workdir = workdir;
    this.modelUrl = modelUrl;
    this.startMs = 0;
    this.stopped = false;
  }

  /** The runtime's process id (the SDK's child process). */
  get pid() {
    return this.client.cliProcess?.pid;
  }

  /** CPU time (user + system) the runtime's process tree has used so far, in ms. */
  cpuMs() {
    return this.pid ? treeCpuMs(this.pid) : 0;
  }

  /**
   * Session config shared by both runtimes: BYOK provider pointing at the fake model (the
   * reference needs it: with a fake GitHub token it refuses the Copilot API), the benchmark
   * tool, and a private working directory.
   * @param {{ streaming?: boolean, sessionId?: string }} [extra]
   */
  sessionConfig(extra = {}) {
    return {
      model: modelId,
      provider: { type: "openai", baseUrl: this.modelUrl, apiKey: "bench" },
      onPermissionRequest: sdk.approveAll,
      workingDirectory: this.workdir,
      tools: [benchTool],
      ...extra,
    };
  }

  /**
   * Creates a session.
   * @param {{ streaming?: boolean }} [extra]
   */
  createSession(extra) {
    return withTimeout(this.client.createSession(this.sessionConfig(extra)), 60_000, `${this.target.id}: session.create`);
  }

  /** Stops the client and makes sure the process tree is gone; removes the state folder. */
  async stop() {
    if (this.stopped) return;
    this.stopped = true;
    const pid = this.pid;
    const tree = pid ? processTree(pid) : [];
    try {
      await withTimeout(this.client.stop(), 10_000, "client.stop");
    } catch {
      await this.client.forceStop().catch(() => undefined);
    }
    // Give the process a moment to exit on its own (profiles are written at exit), then make sure.
    const deadline = Date.now() + 5000;
    while (pid && Date.now() < deadline && isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const member of tree) {
      try {
        process.kill(member, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    if (!process.env.BENCH_KEEP) rmSync(this.home, { recursive: true, force: true, maxRetries: 3 });
  }
}

/**
 * Whether a process still runs (a zombie counts as gone).
 * @param {number} pid
 */
function isAlive(pid) {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

/**
 * @typedef {object} TurnResult
 * @property {number} sentAt epoch ms just before `session.send`
 * @property {number} idleAt epoch ms when `session.idle` arrived
 * @property {number} events events received between send and idle
 * @property {Record<string, number>} counts events per type
 */

/**
 * Sends one prompt and waits for `session.idle` (a `session.error` fails the turn).
 * @param {import("@github/copilot-sdk").CopilotSession} session
 * @param {string} prompt
 * @param {number} [timeoutMs]
 * @returns {Promise<TurnResult>}
 */
export async function timedTurn(session, prompt, timeoutMs = 120_000) {
  /** @type {Record<string, number>} */
  const counts = {};
  let events = 0;
  let unsubscribe = () => undefined;
  const idle = new Promise((resolve, reject) => {
    unsubscribe = session.on((event) => {
      events++;
      counts[event.type] = (counts[event.type] ?? 0) + 1;
      if (event.type === "session.idle") resolve(now());
      else if (event.type === "session.error") reject(new Error(`session.error: ${event.data?.message}`));
    });
  });
  idle.catch(() => undefined);
  const sentAt = now();
  try {
    await session.send({ prompt });
    const idleAt = await withTimeout(idle, timeoutMs, "waiting for session.idle");
    return { sentAt, idleAt, events, counts };
  } finally {
    unsubscribe();
  }
}

/**
 * Runs `task` over `items` with at most `limit` at a time.
 * @template T, R
 * @param {T[]} items
 * @param {number} limit
 * @param {(item: T, index: number) => Promise<R>} task
 * @returns {Promise<R[]>}
 */
export async function mapLimit(items, limit, task) {
  const results = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  });
  await Promise.all(workers);
  return results;
}
