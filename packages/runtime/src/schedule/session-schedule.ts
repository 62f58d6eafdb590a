import { invalidParams } from "../errors.js";

/** A scheduled prompt as `session.schedule.*` reports it. */
export type ScheduleEntry = {
  id: number;
  intervalMs: number;
  prompt: string;
  recurring: boolean;
  displayPrompt?: string;
  /** When it is sent next (ISO 8601). */
  nextRunAt: string;
};

/** What a schedule needs from its session. */
export interface ScheduleHost {
  /** Sends the prompt as a user message (queued behind a running turn, like any send). */
  send(prompt: string): Promise<unknown>;
  /** Reports a prompt that could not be sent. */
  warn(message: string, error: unknown): void;
}

/** The shortest and longest interval (the longest a Node timer can wait), and how many prompts one session may schedule. */
export const scheduleLimits = { minIntervalMs: 1_000, maxIntervalMs: 2_147_483_647, maxEntries: 100 } as const;

const unitMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Reads an interval: a number of milliseconds, or a number with a unit (`500ms`, `30s`, `5m`,
 * `2h`, `1d`). Throws -32602 for anything else, or outside {@link scheduleLimits}.
 *
 * @example
 * parseInterval("5m"); // 300000
 */
export function parseInterval(interval: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(interval);
  if (!match) throw invalidParams(`Unreadable interval ${JSON.stringify(interval)}: use a number of milliseconds or a number with ms, s, m, h or d (e.g. "30s", "5m")`, { interval });
  const ms = Math.round(Number(match[1]) * (unitMs[(match[2] ?? "ms").toLowerCase()] ?? 1));
  if (ms < scheduleLimits.minIntervalMs || ms > scheduleLimits.maxIntervalMs) {
    throw invalidParams(`The interval must be between 1 second and about 24 days; ${JSON.stringify(interval)} is ${ms} ms`, { interval, ms });
  }
  return ms;
}

/**
 * A session's scheduled prompts (`session.schedule.*`): each is sent to the session after its
 * interval, and again every interval when recurring. Timers never keep the process alive. Whoever
 * closes the session calls {@link dispose}: every timer stops and the entries are gone (schedules
 * are not persisted; a resumed session starts with none).
 *
 * @example
 * const schedule = new SessionSchedule({ send: (prompt) => session.send({ sessionId, prompt }), warn });
 * schedule.add({ intervalMs: parseInterval("5m"), prompt: "Check the build", recurring: true });
 */
export class SessionSchedule {
  private nextId = 1;
  private readonly entries = new Map<number, { entry: ScheduleEntry; timer: NodeJS.Timeout }>();
  private disposed = false;

  constructor(private readonly host: ScheduleHost) {}

  /** Adds a prompt; answers its entry. */
  add(request: { intervalMs: number; prompt: string; recurring: boolean; displayPrompt?: string }): ScheduleEntry {
    if (this.disposed) throw invalidParams("The session is closing: nothing can be scheduled", {});
    if (this.entries.size >= scheduleLimits.maxEntries) {
      throw invalidParams(`The session already has ${scheduleLimits.maxEntries} scheduled prompts: stop some (session.schedule.stop) first`, { max: scheduleLimits.maxEntries });
    }
    const id = this.nextId++;
    const entry: ScheduleEntry = {
      id,
      intervalMs: request.intervalMs,
      prompt: request.prompt,
      recurring: request.recurring,
      ...(request.displayPrompt !== undefined ? { displayPrompt: request.displayPrompt } : {}),
      nextRunAt: new Date(Date.now() + request.intervalMs).toISOString(),
    };
    this.arm(entry);
    return { ...entry };
  }

  /** The scheduled prompts, oldest first. */
  list(): ScheduleEntry[] {
    return [...this.entries.values()].map(({ entry }) => ({ ...entry }));
  }

  /** Removes a prompt; answers its entry, or undefined when no prompt has that id. */
  stop(id: number): ScheduleEntry | undefined {
    const scheduled = this.entries.get(id);
    if (!scheduled) return undefined;
    clearTimeout(scheduled.timer);
    this.entries.delete(id);
    return { ...scheduled.entry };
  }

  /** Stops every timer (the session closed). */
  dispose(): void {
    this.disposed = true;
    for (const { timer } of this.entries.values()) clearTimeout(timer);
    this.entries.clear();
  }

  private arm(entry: ScheduleEntry): void {
    const timer = setTimeout(() => this.fire(entry), entry.intervalMs);
    timer.unref();
    this.entries.set(entry.id, { entry, timer });
  }

  private fire(entry: ScheduleEntry): void {
    if (this.disposed || !this.entries.has(entry.id)) return;
    if (entry.recurring) {
      entry.nextRunAt = new Date(Date.now() + entry.intervalMs).toISOString();
      this.arm(entry);
    } else {
      this.entries.delete(entry.id);
    }
    this.host.send(entry.prompt).catch((error: unknown) => this.host.warn(`scheduled prompt ${entry.id} could not be sent`, error));
  }
}
