/**
 * Runs one scenario against one runtime with one SDK and records what matters: every request
 * the model received, every session event each client saw (in arrival order), and what went
 * wrong. Every wait has a deadline; every process started is stopped.
 * @module
 */
import { readFileSync } from "node:fs";
import { parseScript } from "@tandem/testkit";
import { withTimeout } from "../../bench/lib/clock.mjs";
import { processTree } from "../../bench/lib/proc.mjs";
import { startWorld } from "./world.mjs";

/** The model every scenario asks for (the reference's catalog check refuses `gpt-4.1` on the fake model list). */
export const modelId = "claude-sonnet-4";

/**
 * @typedef {object} Target
 * @property {"reference" | "tandem"} id
 * @property {string} cliPath
 * @property {Record<string, string>} [env]
 */

/**
 * @typedef {object} RunRecord
 * @property {Array<{ path: string, body: any }>} modelRequests chat completion request bodies, in arrival order
 * @property {string[]} otherRequests method + path of every other request (model server and GitHub API)
 * @property {Array<{ session: string, event: any }>} events
 * @property {string[]} errors what failed (timeouts, rejected calls)
 * @property {{ home: string, workdir: string }} paths for normalisation
 * @property {number} ms wall time of the run
 */

/**
 * @param {import("./scenarios.mjs").Scenario} scenario
 * @param {Target} target
 * @param {import("./sdks.mjs").SdkAdapter} sdk
 * @returns {Promise<RunRecord>}
 */
export async function runScenario(scenario, target, sdk) {
  const started = Date.now();
  const label = `${target.id}-${scenario.id}`;
  const world = await startWorld([], label, target.env);
  for (const path of scenario.scripts) world.model.addScript(parseScript(readFileSync(path, "utf8").replaceAll("{{workdir}}", world.workdir), path));
  /** @type {RunRecord} */
  const record = { modelRequests: [], otherRequests: [], events: [], errors: [], paths: { home: world.home, workdir: world.workdir }, ms: 0 };
  const context = new ScenarioContext(world, target, sdk, record);
  try {
    await withTimeout(scenario.run(context), scenario.timeoutMs ?? 45_000, `${label}`);
  } catch (error) {
    record.errors.push(String(error instanceof Error ? error.message : error).split("\n")[0]);
  } finally {
    await context.stopAll();
    for (const request of [...world.model.modelListRequests, ...world.model.requests]) {
      if (request.path.endsWith("/chat/completions")) record.modelRequests.push({ path: request.path, body: request.body });
      else record.otherRequests.push(`${request.method} ${request.path}`);
    }
    for (const request of world.githubRequests) record.otherRequests.push(`github: ${request.method} ${request.path}`);
    await world.dispose();
  }
  record.ms = Date.now() - started;
  return record;
}

/** What a scenario driver gets: clients, sessions with recorded events, and waits. */
export class ScenarioContext {
  /**
   * @param {import("./world.mjs").World} world
   * @param {Target} target
   * @param {import("./sdks.mjs").SdkAdapter} sdk
   * @param {RunRecord} record
   */
  constructor(world, target, sdk, record) {
    this.world = world;
    this.target = target;
    this.sdk = sdk;
    this.record = record;
    this.workdir = world.workdir;
    /** @type {any[]} */
    this.clients = [];
    this.sessionCount = 0;
  }

  /** Starts a new client (a new runtime process). */
  async startClient() {
    const client = this.sdk.makeClient(this.target.cliPath, this.world.env, this.workdir);
    this.clients.push(client);
    await withTimeout(client.start(), 30_000, "client.start");
    return client;
  }

  /** The first client, started on demand. */
  async client() {
    return this.clients[0] ?? this.startClient();
  }

  /**
   * The session config every scenario shares, plus `extra`.
   * @param {Record<string, unknown>} [extra]
   */
  config(extra = {}) {
    return { model: modelId, workingDirectory: this.workdir, onPermissionRequest: () => this.sdk.approve(), ...extra };
  }

  /**
   * Creates a session on `client` (default: the first) and records its events (from `onEvent`).
   * @param {Record<string, unknown>} [extra]
   * @param {any} [client]
   */
  async createSession(extra, client) {
    const owner = client ?? (await this.client());
    return withTimeout(owner.createSession({ ...this.config(extra), onEvent: this.recorder() }), 30_000, "createSession");
  }

  /**
   * Resumes a session on `client` and records its events.
   * @param {any} client
   * @param {string} sessionId
   * @param {Record<string, unknown>} [extra]
   */
  async resumeSession(client, sessionId, extra) {
    return withTimeout(client.resumeSession(sessionId, { ...this.config(extra), onEvent: this.recorder() }), 30_000, "resumeSession");
  }

  /**
   * An `onEvent` handler that records a new session's events under the next label. Given to
   * `createSession`/`resumeSession`, it sees what an application sees, including the events a
   * runtime sends before it answers the call.
   */
  recorder() {
    const label = `s${this.sessionCount++}`;
    return (/** @type {any} */ event) => {
      this.record.events.push({ session: label, event });
    };
  }

  /**
   * Sends and waits for `session.idle` (a `session.error` does not end the wait: idle follows it).
   * @param {any} session
   * @param {Record<string, unknown>} options `session.send` options
   * @param {number} [timeoutMs]
   */
  async sendAndIdle(session, options, timeoutMs = 30_000) {
    const idle = this.waitFor(session, "session.idle", timeoutMs);
    await withTimeout(session.send(options), 30_000, "session.send");
    await idle;
  }

  /**
   * Resolves on the next event of `type` on `session`.
   * @param {any} session
   * @param {string} type
   * @param {number} [timeoutMs]
   */
  waitFor(session, type, timeoutMs = 30_000) {
    let unsubscribe = () => undefined;
    const seen = new Promise((resolve) => {
      unsubscribe = session.on((event) => {
        if (event.type === type) resolve(event);
      });
    });
    return withTimeout(seen, timeoutMs, `waiting for ${type}`).finally(() => unsubscribe());
  }

  /** Stops every client and makes sure its process tree is gone. */
  async stopAll() {
    for (const client of this.clients.splice(0).reverse()) await stopClient(client);
  }
}

/**
 * Stops a client (forcefully after 10 s) and kills what is left of its process tree.
 * @param {any} client
 */
export async function stopClient(client) {
  const pid = client.cliProcess?.pid;
  const tree = pid ? processTree(pid) : [];
  try {
    await withTimeout(client.stop(), 10_000, "client.stop");
  } catch {
    await client.forceStop?.().catch(() => undefined);
  }
  for (const member of tree) {
    try {
      process.kill(member, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
