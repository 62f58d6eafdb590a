/**
 * 2. `session.create` once the runtime is up: the first create right after `client.start()`
 * (includes whatever the runtime loads lazily) and the next ones (steady state).
 * @module
 */
import { now } from "../lib/clock.mjs";

const nextCreates = 5;

/** @type {import("../lib/scenario.mjs").Scenario} */
export default {
  id: 2,
  name: "session-create",
  defaultRuns: 5,
  timeoutMs: 90_000,
  metrics: [
    { key: "create_first_ms", label: "2. session.create, first after start", unit: "ms", better: "lower" },
    { key: "create_next_ms", label: "2. session.create, next ones", unit: "ms", better: "lower" },
  ],
  async run(ctx) {
    const runtime = await ctx.launch();
    let started = now();
    await runtime.createSession();
    const first = now() - started;
    const next = [];
    for (let index = 0; index < nextCreates; index++) {
      started = now();
      await runtime.createSession();
      next.push(now() - started);
    }
    return { create_first_ms: first, create_next_ms: next };
  },
};
