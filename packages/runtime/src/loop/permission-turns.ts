/**
 * Tools that never ask the application for permission (they read the session's own state, wait on
 * a shell it already approved, or talk to the user): later calls of the same round do not wait for
 * them. Any other call holds later permission requests back until it asked or finished.
 */
const neverAsk: ReadonlySet<string> = new Set([
  "read_bash",
  "write_bash",
  "stop_bash",
  "list_bash",
  "task",
  "read_agent",
  "list_agents",
  "ask_user",
  "report_intent",
  "task_complete",
  "exit_plan_mode",
  "skill",
  "sql",
]);

interface Turn {
  readonly passed: Promise<void>;
  pass(): void;
}

/**
 * Puts the permission requests of one round of tool calls in call order, one at a time, as the
 * reference does: the request of call `i` goes out once every earlier call had its first request
 * answered or finished without asking. Calls that need no permission never wait, and execution of
 * approved calls still overlaps.
 *
 * @example
 * const turns = new PermissionTurns(calls.map((call) => call.name));
 * const result = await turns.ask(1, signal, () => broker.request(request, signal));
 */
export class PermissionTurns {
  private readonly turns: Turn[];

  constructor(toolNames: readonly string[]) {
    this.turns = toolNames.map((name) => {
      let pass = (): void => undefined;
      const passed = new Promise<void>((resolve) => {
        pass = resolve;
      });
      if (neverAsk.has(name)) pass();
      return { passed, pass };
    });
  }

  /** Runs call `index`'s request once the earlier calls are past theirs (at once after an abort). */
  async ask<T>(index: number, signal: AbortSignal, request: () => Promise<T>): Promise<T> {
    await untilAborted(Promise.all(this.turns.slice(0, index).map((turn) => turn.passed)), signal);
    try {
      return await request();
    } finally {
      this.pass(index);
    }
  }

  /** Call `index` will ask no more (it finished, or its first request was answered). */
  pass(index: number): void {
    this.turns[index]?.pass();
  }
}

/** Resolves with `promise`, or as soon as `signal` aborts (the caller then sees the abort itself). */
function untilAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    promise.then(done, done);
  });
}
