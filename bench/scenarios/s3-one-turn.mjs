/**
 * 3. One turn, one-line reply, instant model: `send` → `session.idle`. After a warm-up turn in
 * the same process, each measured turn is the first turn of a new session.
 * @module
 */
import { timedTurn } from "../lib/harness.mjs";
import { prompt, tagOf } from "../lib/scripts.mjs";
import { callsOf, modelTime } from "../lib/model-server.mjs";

const turnsPerRun = 5;

/** @type {import("../lib/scenario.mjs").Scenario} */
export default {
  id: 3,
  name: "one-turn",
  defaultRuns: 3,
  timeoutMs: 120_000,
  metrics: [
    { key: "turn_ms", label: "3. one turn: send → idle", unit: "ms", better: "lower" },
    { key: "turn_overhead_ms", label: "3. one turn minus model time", unit: "ms", better: "lower" },
    { key: "turn_cpu_ms", label: "3. one turn: runtime CPU time", unit: "ms", better: "lower", info: true },
  ],
  async run(ctx) {
    const runtime = await ctx.launch();
    const warm = await runtime.createSession();
    await timedTurn(warm, prompt("plain", `warm-${ctx.runIndex}`));
    const turns = [];
    const overheads = [];
    let cpu = 0;
    for (let index = 0; index < turnsPerRun; index++) {
      const session = await runtime.createSession();
      await ctx.model.take();
      const id = `${ctx.runIndex}-${index}`;
      const cpuBefore = runtime.cpuMs();
      const turn = await timedTurn(session, prompt("plain", id));
      cpu += runtime.cpuMs() - cpuBefore;
      const calls = callsOf(await ctx.model.take(), tagOf("plain", id));
      turns.push(turn.idleAt - turn.sentAt);
      overheads.push(turn.idleAt - turn.sentAt - modelTime(calls));
    }
    return { turn_ms: turns, turn_overhead_ms: overheads, turn_cpu_ms: cpu / turnsPerRun };
  },
};
