/**
 * State a runtime keeps per live session outside the `Session` class (providers added at runtime,
 * scheduled prompts, …), made on first use. Held weakly: a session that is gone takes its state
 * with it; whatever must stop sooner (timers) is stopped by `onClose`, which runs when the session
 * emits `session.shutdown`.
 *
 * @example
 * const schedules = new SessionScoped((session) => new SessionSchedule(…), (schedule) => schedule.dispose());
 * schedules.of(session).list();
 */
export class SessionScoped<Scope extends SessionLike, State> {
  private readonly states = new WeakMap<Scope, State>();

  constructor(
    private readonly create: (session: Scope) => State,
    private readonly onClose?: (state: State) => void,
  ) {}

  /** The session's state, made now if it has none. */
  of(session: Scope): State {
    const existing = this.states.get(session);
    if (existing !== undefined) return existing;
    const state = this.create(session);
    this.states.set(session, state);
    const onClose = this.onClose;
    if (onClose) {
      const stop = session.emitter.addListener((event) => {
        if (event.type !== "session.shutdown") return;
        stop();
        onClose(state);
      });
    }
    return state;
  }

  /** The session's state if it has one (nothing is made). */
  peek(session: Scope): State | undefined {
    return this.states.get(session);
  }
}

/** What {@link SessionScoped} needs of a session: its events (to see it close). */
export interface SessionLike {
  readonly emitter: { addListener(listener: (event: { type: string }) => void): () => void };
}
