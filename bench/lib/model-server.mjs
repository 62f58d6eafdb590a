/**
 * The fake model (testkit ModelServer) in a worker thread, with per-request timings.
 * @module
 */
import { Worker } from "node:worker_threads";
import { withTimeout } from "./clock.mjs";

/**
 * @typedef {object} ModelCall
 * @property {string} path
 * @property {number} [status]
 * @property {number} arrivedAt epoch ms (fractional) when the request arrived
 * @property {number} [finishedAt] epoch ms when the response was fully written
 * @property {string} [tag] the `[tag:…]` marker of the conversation's first user message
 * @property {number} [stepIndex]
 * @property {string} [error]
 */

/** A running fake model server. */
export class BenchModelServer {
  /**
   * Starts a server serving `scripts` (testkit script objects).
   * @param {object[]} scripts
   * @returns {Promise<BenchModelServer>}
   */
  static async start(scripts) {
    const worker = new Worker(new URL("./model-worker.mjs", import.meta.url), { workerData: { scripts } });
    const url = await withTimeout(
      new Promise((resolve, reject) => {
        worker.once("error", reject);
        worker.once("message", (message) => (message.type === "ready" ? resolve(message.url) : reject(new Error("unexpected worker message"))));
      }),
      15_000,
      "model server start",
    );
    return new BenchModelServer(worker, url);
  }

  /**
   * @param {Worker} worker
   * @param {string} url
   */
  constructor(worker, url) {
    this.worker = worker;
    this.url = url;
    this.nextId = 1;
  }

  /**
   * Takes (and forgets) the requests served since the last call.
   * @returns {Promise<ModelCall[]>}
   */
  take() {
    return this.call("take").then((message) => message.records);
  }

  /** Forgets requests and starts sequential scripts over. */
  async reset() {
    await this.call("reset");
  }

  /** Stops the server and the worker. */
  async stop() {
    await this.call("stop").catch(() => undefined);
    await this.worker.terminate();
  }

  /**
   * @param {string} type
   * @returns {Promise<any>}
   */
  call(type) {
    const id = this.nextId++;
    return withTimeout(
      new Promise((resolve) => {
        const onMessage = (message) => {
          if (message.id !== id) return;
          this.worker.off("message", onMessage);
          resolve(message);
        };
        this.worker.on("message", onMessage);
        this.worker.postMessage({ type, id });
      }),
      15_000,
      `model server ${type}`,
    );
  }
}

/**
 * Model time of a set of calls: the sum of (finish - arrival), in ms.
 * @param {ModelCall[]} calls
 * @returns {number}
 */
export function modelTime(calls) {
  let total = 0;
  for (const call of calls) if (call.finishedAt !== undefined) total += call.finishedAt - call.arrivedAt;
  return total;
}

/**
 * The model calls of one conversation (by tag), in arrival order.
 * @param {ModelCall[]} calls
 * @param {string} tag
 * @returns {ModelCall[]}
 */
export function callsOf(calls, tag) {
  return calls.filter((call) => call.tag === tag && call.path.endsWith("/chat/completions")).sort((a, b) => a.arrivedAt - b.arrivedAt);
}
