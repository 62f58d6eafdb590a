/**
 * 4. A 20-turn custom-tool loop (19 tool calls, then a one-line answer; every tool call asks
 * permission and runs in the client): runtime overhead per turn = (wall − model time) / turns.
 * Model time is measured by the model server (request arrival → response written).
 * @module
 */
import { timedTurn } from "../lib/harness.mjs";
import { callsOf, modelTime } from "../lib/model-server.mjs";
import { prompt, tagOf } from "../lib/scripts.mjs";

const turns = 20;

/** @type {import("../lib/scenario.mjs").Scenario} */
export default {
  id: 4,
  name: "tool-loop",
  defaultRuns: 3,
  timeoutMs: 180_000,
  metrics: [
    { key: "loop_overhead_per_turn_ms", label: "4. 20-turn tool loop: overhead per turn", unit: "ms", better: "lower", ratioTarget: { max: 1 / 50 } },
    { key: "loop_wall_ms", label: "4. 20-turn tool loop: wall", unit: "ms", better: "lower" },
    { key: "loop_cpu_per_turn_ms", label: "4. 20-turn tool loop: runtime CPU per turn", unit: "ms", better: "lower", info: true },
    { key: "loop_client_busy_per_turn_ms", label: "4. 20-turn tool loop: client (SDK) busy time per turn", unit: "ms", better: "lower", info: true },
  ],
  async run(ctx) {
    const runtime = await ctx.launch();
    const warm = await runtime.createSession();
    await timedTurn(warm, prompt("loop2", `warm-${ctx.runIndex}`));
    const session = await runtime.createSession();
    await ctx.model.take();
    const id = String(ctx.runIndex);
    const cpuBefore = runtime.cpuMs();
    const busyBefore = performance.eventLoopUtilization();
    const turn = await timedTurn(session, prompt("loop20", id));
    const cpu = runtime.cpuMs() - cpuBefore;
    const clientBusy = performance.eventLoopUtilization(busyBefore).active;
    const calls = callsOf(await ctx.model.take(), tagOf("loop20", id));
    if (calls.length !== turns) throw new Error(`expected ${turns} model calls, saw ${calls.length}`);
    const wall = turn.idleAt - turn.sentAt;
    return { loop_overhead_per_turn_ms: (wall - modelTime(calls)) / turns, loop_wall_ms: wall, loop_cpu_per_turn_ms: cpu / turns, loop_client_busy_per_turn_ms: clientBusy / turns };
  },
};
