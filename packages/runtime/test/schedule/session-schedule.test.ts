import { describe, expect, it } from "vitest";
import { parseInterval, scheduleLimits, SessionSchedule } from "../../src/schedule/session-schedule.js";

describe("parseInterval", () => {
  it("reads milliseconds and units, and refuses what it cannot read or what is out of bounds", () => {
    expect(parseInterval("1500")).toBe(1500);
    expect(parseInterval("30s")).toBe(30_000);
    expect(parseInterval(" 5m ")).toBe(300_000);
    expect(parseInterval("2h")).toBe(7_200_000);
    expect(parseInterval("1d")).toBe(86_400_000);
    expect(parseInterval("1.5s")).toBe(1500);
    expect(() => parseInterval("soon")).toThrow(/Unreadable interval/);
    expect(() => parseInterval("-5s")).toThrow(/Unreadable interval/);
    expect(() => parseInterval("10ms")).toThrow(/between 1 second/);
    expect(() => parseInterval("30d")).toThrow(/between 1 second/);
  });
});

describe("SessionSchedule", () => {
  it("sends a one-off prompt once, then forgets it; a session holds a bounded number of prompts", async () => {
    const sent: string[] = [];
    let onSent!: () => void;
    const firstSend = new Promise<void>((resolve) => (onSent = resolve));
    const schedule = new SessionSchedule({
      send: async (prompt) => {
        sent.push(prompt);
        onSent();
      },
      warn: () => undefined,
    });
    const once = schedule.add({ intervalMs: scheduleLimits.minIntervalMs, prompt: "ping", recurring: false });
    expect(schedule.list()).toEqual([once]);
    await firstSend;
    expect(sent).toEqual(["ping"]);
    expect(schedule.list()).toEqual([]);

    for (let index = 0; index < scheduleLimits.maxEntries; index++) schedule.add({ intervalMs: 3_600_000, prompt: `p${index}`, recurring: true });
    expect(() => schedule.add({ intervalMs: 3_600_000, prompt: "one too many", recurring: true })).toThrow(/already has 100 scheduled prompts/);
    const [first] = schedule.list();
    expect(schedule.stop(first!.id)).toMatchObject({ prompt: "p0" });
    expect(schedule.stop(first!.id)).toBeUndefined();
    schedule.dispose();
    expect(schedule.list()).toEqual([]);
    expect(() => schedule.add({ intervalMs: 3_600_000, prompt: "late", recurring: false })).toThrow(/closing/);
  });
});
