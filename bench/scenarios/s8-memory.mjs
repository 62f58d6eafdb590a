/**
 * 8. Peak resident memory of the runtime's process tree (VmRSS of the process and all its
 * descendants, sampled every 20 ms): idle after start, after 1 session with one turn, after
 * 100 sessions with one turn each (created 10 at a time, then all sent at once). Each figure is
 * the peak of its phase.
 * @module
 */
import { sleep } from "../lib/clock.mjs";
import { mapLimit, timedTurn } from "../lib/harness.mjs";
import { PeakRssSampler } from "../lib/proc.mjs";
import { prompt } from "../lib/scripts.mjs";

const sessions = Number(process.env.BENCH_SESSIONS ?? 100);
const mb = (bytes) => bytes / (1024 * 1024);

/** @type {import("../lib/scenario.mjs").Scenario} */
export default {
  id: 8,
  name: "memory",
  defaultRuns: 2,
  timeoutMs: 300_000,
  metrics: [
    { key: "rss_idle_mb", label: "8. peak RSS, idle", unit: "MiB", better: "lower", ratioTarget: { max: 1 / 5 } },
    { key: "rss_one_session_mb", label: "8. peak RSS, 1 session", unit: "MiB", better: "lower", ratioTarget: { max: 1 / 5 } },
    { key: "rss_many_sessions_mb", label: `8. peak RSS, ${sessions} sessions`, unit: "MiB", better: "lower", ratioTarget: { max: 1 / 5 } },
    { key: "rss_processes", label: "8. processes in the runtime tree (max)", unit: "count", better: "lower", info: true },
  ],
  async run(ctx) {
    const runtime = await ctx.launch();
    if (!runtime.pid) throw new Error("no runtime pid");
    const sampler = new PeakRssSampler(runtime.pid);
    try {
      await sleep(1500);
      const idle = sampler.mark();
      const first = await runtime.createSession();
      await timedTurn(first, prompt("plain", `mem-${ctx.runIndex}-0`));
      await sleep(300);
      const one = sampler.mark();
      const more = await mapLimit(Array.from({ length: sessions - 1 }, (_, index) => index), 10, () => runtime.createSession());
      await Promise.all(more.map((session, index) => timedTurn(session, prompt("plain", `mem-${ctx.runIndex}-${index + 1}`), 250_000)));
      await sleep(300);
      const many = sampler.mark();
      return {
        rss_idle_mb: mb(idle.peakBytes),
        rss_one_session_mb: mb(one.peakBytes),
        rss_many_sessions_mb: mb(many.peakBytes),
        rss_processes: Math.max(idle.processes, one.processes, many.processes),
      };
    } finally {
      sampler.stop();
    }
  },
};
