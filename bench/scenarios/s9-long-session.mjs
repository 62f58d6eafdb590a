/**
 * 9. A 1,000-turn tool session under a small window (`provider.maxPromptTokens` 8,000): the
 * runtime compacts in the background as it goes. Measured per block of 100 turns: wall time and
 * runtime CPU per turn, and the peak RSS of the runtime's tree; reported as first block, last
 * block and the least-squares slope per 100 turns (flat = compaction keeps the cost of a turn from
 * growing with the session). Then the session is resumed in a new runtime: time to resume and to
 * answer one more turn, the size of its events file, and how many messages the resumed history
 * sent to the model holds (the compacted history, not the 2,000 messages of the full one).
 * Tandem only: the reference ignores `maxPromptTokens` under this SDK.
 * @module
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { now, withTimeout } from "../lib/clock.mjs";
import { PeakRssSampler } from "../lib/proc.mjs";
import { longSessionTurns, longSessionWindow, prompt } from "../lib/scripts.mjs";

const blockTurns = 100;

/** Least-squares slope of `values` against their index. */
function slope(values) {
  const n = values.length;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((sum, value) => sum + value, 0) / n;
  let numerator = 0;
  let denominator = 0;
  values.forEach((value, index) => {
    numerator += (index - meanX) * (value - meanY);
    denominator += (index - meanX) ** 2;
  });
  return denominator === 0 ? 0 : numerator / denominator;
}

/** @type {import("../lib/scenario.mjs").Scenario} */
export default {
  id: 9,
  name: "long-session",
  defaultRuns: 1,
  timeoutMs: 900_000,
  tandemOnly: true,
  metrics: [
    { key: "long_wall_s", label: "9. 1,000-turn session, 8k window: wall", unit: "s", better: "lower", info: true },
    { key: "long_compactions", label: "9. compactions", unit: "count", better: "lower", info: true },
    { key: "long_cpu_first_ms", label: "9. runtime CPU per turn, turns 1–100", unit: "ms", better: "lower", info: true },
    { key: "long_cpu_last_ms", label: "9. runtime CPU per turn, turns 901–1000", unit: "ms", better: "lower", info: true },
    { key: "long_cpu_slope_ms", label: "9. CPU per turn: slope per 100 turns", unit: "ms", better: "lower", info: true },
    { key: "long_wall_first_ms", label: "9. wall per turn, turns 1–100", unit: "ms", better: "lower", info: true },
    { key: "long_wall_last_ms", label: "9. wall per turn, turns 901–1000", unit: "ms", better: "lower", info: true },
    { key: "long_wall_slope_ms", label: "9. wall per turn: slope per 100 turns", unit: "ms", better: "lower", info: true },
    { key: "long_rss_first_mib", label: "9. peak RSS, turns 1–100", unit: "MiB", better: "lower", info: true },
    { key: "long_rss_last_mib", label: "9. peak RSS, turns 901–1000", unit: "MiB", better: "lower", info: true },
    { key: "long_rss_slope_mib", label: "9. peak RSS: slope per 100 turns", unit: "MiB", better: "lower", info: true },
    { key: "long_events_mib", label: "9. events.jsonl after 1,000 turns", unit: "MiB", better: "lower", info: true },
    { key: "long_resume_ms", label: "9. resume (new runtime) → resumed", unit: "ms", better: "lower", info: true },
    { key: "long_resume_turn_ms", label: "9. first turn after resume: send → idle", unit: "ms", better: "lower", info: true },
    { key: "long_resumed_messages", label: "9. messages sent to the model after resume", unit: "count", better: "lower", info: true },
  ],
  async run(ctx) {
    if (ctx.target.id !== "tandem" && !ctx.target.baseline) return {};
    await ctx.model.reset();
    const runtime = await ctx.launch();
    const config = (extra = {}) => {
      const base = runtime.sessionConfig(extra);
      return { ...base, provider: { ...base.provider, maxPromptTokens: longSessionWindow } };
    };
    const session = await withTimeout(runtime.client.createSession(config()), 60_000, "session.create");
    const sampler = new PeakRssSampler(runtime.pid);
    const blocks = [];
    let turns = 0;
    let compactions = 0;
    let blockStart = { at: now(), cpu: runtime.cpuMs() };
    const done = new Promise((resolve, reject) => {
      session.on((event) => {
        if (event.type === "session.compaction_complete" && event.data.success) compactions++;
        if (event.type === "session.error") reject(new Error(event.data.message));
        if (event.type === "session.idle") resolve(undefined);
        if (event.type !== "assistant.turn_end") return;
        turns++;
        if (turns % blockTurns !== 0) return;
        const end = { at: now(), cpu: runtime.cpuMs() };
        blocks.push({ wallPerTurn: (end.at - blockStart.at) / blockTurns, cpuPerTurn: (end.cpu - blockStart.cpu) / blockTurns, rssMiB: sampler.mark().peakBytes / 2 ** 20 });
        blockStart = end;
      });
    });
    const started = now();
    await session.send({ prompt: prompt("long", ctx.runIndex) });
    await withTimeout(done, 850_000, "the long session");
    const wall = now() - started;
    sampler.stop();
    if (turns !== longSessionTurns) throw new Error(`expected ${longSessionTurns} turns, saw ${turns}`);
    const eventsBytes = statSync(join(runtime.home, "session-state", session.sessionId, "events.jsonl")).size;
    const sessionId = session.sessionId;
    await runtime.client.stop();

    const second = await ctx.launch({ home: runtime.home });
    await ctx.model.take();
    const resumeStarted = now();
    const resumed = await withTimeout(second.client.resumeSession(sessionId, config()), 60_000, "session.resume");
    const resumeMs = now() - resumeStarted;
    const turnStarted = now();
    await withTimeout(resumed.sendAndWait({ prompt: "One more step, please." }, 60_000), 70_000, "turn after resume");
    const turnMs = now() - turnStarted;
    const calls = await ctx.model.take();
    const lastCall = calls.filter((call) => call.path.endsWith("/chat/completions")).at(-1);
    const first = blocks[0];
    const last = blocks.at(-1);
    return {
      long_wall_s: wall / 1000,
      long_compactions: compactions,
      long_cpu_first_ms: first.cpuPerTurn,
      long_cpu_last_ms: last.cpuPerTurn,
      long_cpu_slope_ms: slope(blocks.map((block) => block.cpuPerTurn)),
      long_wall_first_ms: first.wallPerTurn,
      long_wall_last_ms: last.wallPerTurn,
      long_wall_slope_ms: slope(blocks.map((block) => block.wallPerTurn)),
      long_rss_first_mib: first.rssMiB,
      long_rss_last_mib: last.rssMiB,
      long_rss_slope_mib: slope(blocks.map((block) => block.rssMiB)),
      long_events_mib: eventsBytes / 2 ** 20,
      long_resume_ms: resumeMs,
      long_resume_turn_ms: turnMs,
      long_resumed_messages: lastCall?.messageCount ?? -1,
    };
  },
};
