/**
 * Worker-thread body: runs the testkit ModelServer on its own event loop (so the client's work in
 * the main thread does not delay model answers) and timestamps every request: arrival (the HTTP
 * `request` event) and finish (the response's `finish` event).
 * @module
 */
import { parentPort, workerData } from "node:worker_threads";
import { ModelServer } from "@tandem/testkit";
import { now } from "./clock.mjs";

const server = new ModelServer({ scripts: workerData.scripts });
const { url } = await server.start(0, "127.0.0.1");

/** @type {Array<{ record: any, arrivedAt: number, finishedAt?: number }>} */
let timings = [];
// The testkit's own handler runs first and pushes its record synchronously, so the last record
// is this request's. `server.server` is the testkit's private http.Server.
server.server.on("request", (request, response) => {
  const records = request.method === "GET" && /\/models$/.test(new URL(request.url ?? "/", "http://x").pathname) ? server.modelListRequests : server.requests;
  const entry = { record: records[records.length - 1], arrivedAt: now() };
  timings.push(entry);
  response.once("finish", () => {
    entry.finishedAt = now();
  });
});

parentPort.on("message", async (message) => {
  if (message.type === "take") {
    const taken = timings;
    timings = [];
    server.requests.length = 0;
    server.modelListRequests.length = 0;
    parentPort.postMessage({ type: "records", id: message.id, records: taken.map(describe) });
  } else if (message.type === "reset") {
    // Sequential scripts start over (their cursors and hit counters are cleared).
    server.reset();
    timings = [];
    parentPort.postMessage({ type: "reset", id: message.id });
  } else if (message.type === "stop") {
    await server.stop();
    parentPort.postMessage({ type: "stopped", id: message.id });
    parentPort.close();
  }
});
parentPort.postMessage({ type: "ready", url });

/**
 * The parts of a request the benchmarks need; the session tag comes from the first user message.
 * @param {{ record: any, arrivedAt: number, finishedAt?: number }} entry
 */
function describe(entry) {
  const { record } = entry;
  return {
    path: record?.path,
    status: record?.status,
    outcome: record?.outcome,
    stepIndex: record?.stepIndex,
    error: record?.error,
    arrivedAt: entry.arrivedAt,
    finishedAt: entry.finishedAt,
    tag: findTag(record?.body),
    messageCount: Array.isArray(record?.body?.messages) ? record.body.messages.length : undefined,
  };
}

/**
 * The `[tag:…]` marker of the first user message, if any.
 * @param {any} body
 * @returns {string | undefined}
 */
function findTag(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const firstUser = messages.find((message) => message?.role === "user");
  if (!firstUser) return undefined;
  const text = typeof firstUser.content === "string" ? firstUser.content : JSON.stringify(firstUser.content);
  return /\[tag:([^\]]+)\]/.exec(text)?.[1];
}
