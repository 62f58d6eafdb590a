/**
 * 7. Resume a session whose events.jsonl holds 100,000 events: `resumeSession` until it resolves,
 * then `getMessages`. The file is built once per benchmark run and copied into each fresh state
 * folder; the runtime is already up when the clock starts.
 * @module
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { now, withTimeout } from "../lib/clock.mjs";
import { modelId } from "../lib/harness.mjs";
import { writeLargeSession } from "../lib/events-file.mjs";

const eventCount = Number(process.env.BENCH_RESUME_EVENTS ?? 100_000);

/** @type {{ dir: string, sessionId: string, events: number, bytes: number } | undefined} */
let fixture;

/** Builds the shared session file once. */
function sharedFixture(log) {
  if (!fixture) {
    const dir = mkdtempSync(join(tmpdir(), "bench-resume-fixture-"));
    const built = writeLargeSession(dir, { events: eventCount, cwd: tmpdir(), model: modelId });
    log(`built a ${built.events}-event session (${(built.bytes / 1e6).toFixed(1)} MB, ${built.userMessages} user messages)`);
    fixture = { dir, ...built };
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return fixture;
}

/** @type {import("../lib/scenario.mjs").Scenario} */
export default {
  id: 7,
  name: "resume-100k",
  defaultRuns: 2,
  timeoutMs: 240_000,
  metrics: [
    { key: "resume_total_ms", label: "7. resume 100k events + getMessages", unit: "ms", better: "lower", absoluteTarget: { max: 1000 } },
    { key: "resume_ms", label: "7. resume 100k: resumeSession", unit: "ms", better: "lower", info: true },
    { key: "resume_get_messages_ms", label: "7. resume 100k: getMessages", unit: "ms", better: "lower", info: true },
    { key: "resume_events_returned", label: "7. resume 100k: events returned", unit: "count", better: "higher", info: true },
  ],
  async run(ctx) {
    const shared = sharedFixture(ctx.log);
    const home = mkdtempSync(join(tmpdir(), `bench-${ctx.target.id}-`));
    cpSync(join(shared.dir, "session-state"), join(home, "session-state"), { recursive: true });
    const runtime = await ctx.launch({ home });
    const started = now();
    const session = await withTimeout(runtime.client.resumeSession(shared.sessionId, runtime.sessionConfig()), 200_000, "resumeSession");
    const resumed = now();
    const events = await withTimeout(session.getMessages(), 200_000, "getMessages");
    const done = now();
    if (events.length < shared.events) throw new Error(`getMessages returned ${events.length} events, expected at least ${shared.events}`);
    return {
      resume_total_ms: done - started,
      resume_ms: resumed - started,
      resume_get_messages_ms: done - resumed,
      resume_events_returned: events.length,
    };
  },
};
