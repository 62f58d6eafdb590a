/**
 * The cluster chaos run (see `chaos.ts`): a short form here (about 40 s of chaos, 9 sessions),
 * the long one with `npm run chaos` (`TANDEM_CHAOS_SECONDS=150 TANDEM_CHAOS_SESSIONS=60`: 3 nodes,
 * 60 sessions, a 16 s PostgreSQL outage). Prints the actions and the takeover-time distribution.
 */
import { describe, expect, it } from "vitest";
import { findPostgresBin } from "../helpers/postgres.js";
import { distribution, runChaos } from "./chaos.js";

const seconds = Number(process.env.TANDEM_CHAOS_SECONDS ?? 40);
const sessions = Number(process.env.TANDEM_CHAOS_SESSIONS ?? 9);
const long = seconds >= 120;
const leaseTtlMs = long ? 2000 : 1500;
const recoveryMs = 90_000;
const postgresBin = await findPostgresBin();
if (!postgresBin) console.warn("cluster chaos run skipped: PostgreSQL server binaries not found (apt-get install postgresql)");

describe.skipIf(!postgresBin)("cluster chaos", () => {
  it(`${sessions} sessions on 3 nodes through ${seconds} s of kill -9, restarts, a PostgreSQL stop and a SIGSTOP past the lease: no stuck session, no lost send, no event seen that is not stored, one result per tool call, seq gapless`, { timeout: (seconds + 60) * 1000 + recoveryMs + 60_000 }, async () => {
    const seed = Number(process.env.TANDEM_CHAOS_SEED ?? Date.now() % 100_000);
    const report = await runChaos({
      durationMs: seconds * 1000,
      sessions,
      leaseTtlMs,
      outageMs: long ? 16_000 : 4000,
      gapMs: long ? 4000 : 3000,
      recoveryMs,
      seed,
      log: (line) => console.log(line),
    });
    console.log(`[chaos] seed ${seed}; ${report.sends} sends; ${report.actions.length} actions; ${distribution(report.takeoverMs)}`);
    if (report.seenNotStored.length > 0) console.log(`[chaos] ${report.seenNotStored.length} event(s) a client saw are not stored:\n${report.seenNotStored.slice(0, 20).join("\n")}`);
    expect(report.stuck).toEqual([]);
    expect(report.lostSends).toEqual([]);
    expect(report.seqBroken).toEqual([]);
    expect(report.badToolResults).toEqual([]);
    expect(report.userAborts).toEqual([]);
    expect(report.seenNotStored).toEqual([]);
  });
});
