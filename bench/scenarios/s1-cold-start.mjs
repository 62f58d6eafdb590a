/**
 * 1. Cold start: spawn → first `ping` answered (what `client.start()` waits for: spawn, connect,
 * protocol-version ping). A fresh process and state folder each run.
 * @module
 */

/** @type {import("../lib/scenario.mjs").Scenario} */
export default {
  id: 1,
  name: "cold-start",
  defaultRuns: 5,
  timeoutMs: 60_000,
  metrics: [{ key: "start_ms", label: "1. cold start: spawn → first ping", unit: "ms", better: "lower", ratioTarget: { max: 1 / 20 } }],
  async run(ctx) {
    const runtime = await ctx.launch();
    return { start_ms: runtime.startMs };
  },
};
