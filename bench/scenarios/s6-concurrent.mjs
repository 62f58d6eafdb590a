/**
 * 6. 100 concurrent sessions in one runtime, each a 5-turn tool loop, all sent at once: total
 * time (first send → last idle) and the p99 of the runtime overhead per turn.
 *
 * Overhead of one turn = the time the conversation spent outside the model: send → first model
 * request, then each response written → next request (tool call, permission and event round
 * trips included), and for the last turn also response written → `session.idle`.
 * @module
 */
import { mapLimit, timedTurn } from "../lib/harness.mjs";
import { callsOf } from "../lib/model-server.mjs";
import { prompt, tagOf } from "../lib/scripts.mjs";
import { quantile } from "../lib/stats.mjs";

const sessions = Number(process.env.BENCH_SESSIONS ?? 100);
const turns = 5;

/** @type {import("../lib/scenario.mjs").Scenario} */
export default {
  id: 6,
  name: "concurrent-sessions",
  defaultRuns: 2,
  timeoutMs: 300_000,
  metrics: [
    { key: "concurrent_total_ms", label: `6. ${sessions} sessions × 5-turn loop: total`, unit: "ms", better: "lower" },
    { key: "concurrent_p99_turn_overhead_ms", label: "6. concurrent: p99 overhead per turn", unit: "ms", better: "lower", absoluteTarget: { max: 10 } },
    { key: "concurrent_median_turn_overhead_ms", label: "6. concurrent: median overhead per turn", unit: "ms", better: "lower", info: true },
    { key: "concurrent_cpu_per_turn_ms", label: "6. concurrent: runtime CPU per turn", unit: "ms", better: "lower", info: true },
    { key: "concurrent_client_busy_per_turn_ms", label: "6. concurrent: client (SDK) busy time per turn", unit: "ms", better: "lower", info: true },
  ],
  async run(ctx) {
    const runtime = await ctx.launch();
    const warm = await runtime.createSession();
    await timedTurn(warm, prompt("loop2", `warm-${ctx.runIndex}`));
    const opened = await mapLimit(Array.from({ length: sessions }, (_, index) => index), 10, () => runtime.createSession());
    await ctx.model.take();
    const cpuBefore = runtime.cpuMs();
    const busyBefore = performance.eventLoopUtilization();
    const started = performance.timeOrigin + performance.now();
    const results = await Promise.all(opened.map((session, index) => timedTurn(session, prompt("loop5", `${ctx.runIndex}-${index}`), 280_000)));
    const total = Math.max(...results.map((result) => result.idleAt)) - started;
    const cpu = runtime.cpuMs() - cpuBefore;
    const clientBusy = performance.eventLoopUtilization(busyBefore).active;
    const calls = await ctx.model.take();
    const overheads = [];
    results.forEach((result, index) => {
      const mine = callsOf(calls, tagOf("loop5", `${ctx.runIndex}-${index}`));
      if (mine.length !== turns) throw new Error(`session ${index}: expected ${turns} model calls, saw ${mine.length}`);
      for (let turn = 0; turn < turns; turn++) {
        let overhead = turn === 0 ? mine[0].arrivedAt - result.sentAt : mine[turn].arrivedAt - mine[turn - 1].finishedAt;
        if (turn === turns - 1) overhead += result.idleAt - mine[turn].finishedAt;
        overheads.push(overhead);
      }
    });
    overheads.sort((a, b) => a - b);
    return {
      concurrent_total_ms: total,
      concurrent_p99_turn_overhead_ms: quantile(overheads, 0.99),
      concurrent_median_turn_overhead_ms: quantile(overheads, 0.5),
      concurrent_cpu_per_turn_ms: cpu / (sessions * turns),
      concurrent_client_busy_per_turn_ms: clientBusy / (sessions * turns),
    };
  },
};
