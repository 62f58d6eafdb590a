import { ErrorCodes, TandemError } from "../../../errors.js";
import { workerScriptUrl } from "../worker-url.js";
import type { GrepOutput, GrepQuery, GrepTarget, NodeGrepOptions } from "./node-grep.js";
import type { SearchWorkerData, SearchWorkerReply } from "./search-worker.js";

/** How long one Node search may run (a pattern with nested repetition can take exponential time). */
export const DEFAULT_SEARCH_TIMEOUT_MS = 60_000;

/** A search ran past its time limit and was stopped. */
export class SearchTimeout extends TandemError {
  constructor(readonly timeoutMs: number) {
    super(
      ErrorCodes.InvalidParams,
      `The search ran longer than ${timeoutMs} ms and was stopped. A pattern with nested repetition (such as (a|aa)+ or (a+)+) can take exponential time on some lines: simplify the pattern, or narrow the path or glob.`,
      { timeoutMs },
    );
    this.name = "SearchTimeout";
  }
}

/**
 * Runs {@link nodeGrep} on a worker thread of its own, so that no pattern, however slow on
 * however long a line, blocks the runtime (`ping`, other sessions, `session.abort`, the parent
 * watch). An abort of `signal` terminates the thread and rejects with the signal's reason; past
 * `timeoutMs` the thread is terminated and the search rejects with {@link SearchTimeout}.
 *
 * @example
 * const output = await nodeGrepOnThread(query, target, context.signal, { maxOutputChars: 60_000 });
 */
export async function nodeGrepOnThread(
  query: GrepQuery,
  target: GrepTarget,
  signal: AbortSignal,
  options: NodeGrepOptions = {},
  timeoutMs = DEFAULT_SEARCH_TIMEOUT_MS,
): Promise<GrepOutput> {
  signal.throwIfAborted();
  const { Worker } = await import("node:worker_threads");
  signal.throwIfAborted();
  const thread = new Worker(workerScriptUrl("search-worker.js", import.meta.url), { workerData: { query, target, options } satisfies SearchWorkerData });
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<GrepOutput>((resolve, reject) => {
      thread.once("message", (reply: SearchWorkerReply) => (reply.ok ? resolve(reply.output) : reject(new Error(reply.message))));
      thread.once("error", reject);
      thread.once("exit", (code) => reject(new Error(`the search stopped (exit code ${code})`)));
      timer = setTimeout(() => reject(new SearchTimeout(timeoutMs)), timeoutMs);
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
    void thread.terminate();
  }
}
