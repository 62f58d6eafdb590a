/**
 * 5. Streaming a 1 MiB reply in 1 KiB deltas: time from `send` to `session.idle`, and session
 * events per second delivered to the client over that time.
 * @module
 */
import { timedTurn } from "../lib/harness.mjs";
import { callsOf, modelTime } from "../lib/model-server.mjs";
import { prompt, tagOf } from "../lib/scripts.mjs";

/** @type {import("../lib/scenario.mjs").Scenario} */
export default {
  id: 5,
  name: "streaming",
  defaultRuns: 3,
  timeoutMs: 180_000,
  metrics: [
    { key: "stream_idle_ms", label: "5. stream 1 MiB: send → idle", unit: "ms", better: "lower" },
    { key: "stream_events_per_s", label: "5. stream 1 MiB: events/s to client", unit: "ev/s", better: "higher", ratioTarget: { min: 10 } },
    { key: "stream_cpu_ms", label: "5. stream 1 MiB: runtime CPU time", unit: "ms", better: "lower", info: true },
    { key: "stream_model_ms", label: "5. stream 1 MiB: model time (server side)", unit: "ms", better: "lower", info: true },
    { key: "stream_deltas", label: "5. stream 1 MiB: message deltas received", unit: "count", better: "higher", info: true },
  ],
  async run(ctx) {
    const runtime = await ctx.launch();
    const warm = await runtime.createSession({ streaming: true });
    await timedTurn(warm, prompt("plain", `warm-${ctx.runIndex}`));
    const session = await runtime.createSession({ streaming: true });
    await ctx.model.take();
    const id = String(ctx.runIndex);
    const cpuBefore = runtime.cpuMs();
    const turn = await timedTurn(session, prompt("stream1m", id), 150_000);
    const cpu = runtime.cpuMs() - cpuBefore;
    const calls = callsOf(await ctx.model.take(), tagOf("stream1m", id));
    const seconds = (turn.idleAt - turn.sentAt) / 1000;
    return {
      stream_idle_ms: turn.idleAt - turn.sentAt,
      stream_events_per_s: turn.events / seconds,
      stream_cpu_ms: cpu,
      stream_model_ms: modelTime(calls),
      stream_deltas: turn.counts["assistant.message_delta"] ?? 0,
    };
  },
};
