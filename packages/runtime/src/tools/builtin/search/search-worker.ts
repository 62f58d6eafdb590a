/**
 * The Node search's worker thread (the `grep` tool without `rg`): runs one {@link nodeGrep} with
 * what it was started with, posts the output and ends. A model-written pattern can take
 * exponential time on some lines (`(a|aa)+$`); here it costs this thread only, which the runtime
 * terminates on abort or at the time limit (see `node-grep-thread.ts`).
 *
 * Its own bundle entry (`bundle/search-worker.js`).
 */
import { parentPort, workerData } from "node:worker_threads";
import { nodeGrep, type GrepOutput, type GrepQuery, type GrepTarget, type NodeGrepOptions } from "./node-grep.js";

/** What the worker is started with. */
export interface SearchWorkerData {
  query: GrepQuery;
  target: GrepTarget;
  options: NodeGrepOptions;
}

/** What it posts once. */
export type SearchWorkerReply = { ok: true; output: GrepOutput } | { ok: false; message: string };

const port = parentPort;
if (!port) throw new Error("search-worker.js runs as a worker thread only");
const { query, target, options } = workerData as SearchWorkerData;
nodeGrep(query, target, new AbortController().signal, options).then(
  (output) => port.postMessage({ ok: true, output } satisfies SearchWorkerReply),
  (error: unknown) => port.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) } satisfies SearchWorkerReply),
);
