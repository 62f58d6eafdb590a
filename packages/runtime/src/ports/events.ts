import type { SessionEvent, SessionEventData, SessionEventOf, SessionEventType } from "@tandem/protocol";

/** Receives every event of a session, already serialised (once) to JSON, with its type. */
export interface EventSink {
  deliverSessionEvent(sessionId: string, eventJson: string, eventType?: string): void;
}

/** A listener inside the runtime (sub-systems and tests), called synchronously. */
export type EventListener = (event: SessionEvent) => void;

/**
 * What code that emits events needs: the session emitter (`session/emitter.ts`), or a scoped view
 * of it. Subsystems below the session take this, never the session itself.
 *
 * @example
 * function announce(emitter: EventEmitterPort): void {
 *   emitter.emit("session.info", { infoType: "notice", message: "ready" });
 * }
 */
export interface EventEmitterPort {
  emit<T extends SessionEventType>(type: T, data: SessionEventData<T>): SessionEventOf<T>;
  /** The number of connected clients receiving the events. */
  readonly sinkCount: number;
  addListener(listener: EventListener): () => void;
}

/**
 * An emitter whose events are persisted, read back as they are stored: the session emitter
 * (`session/emitter.ts`).
 *
 * @example
 * const bytes = await emitter.persistedArrayBytes(`{"events":[`, "]}");
 */
export interface PersistedEventsPort extends EventEmitterPort {
  /** The persisted events as one JSON array (between `prefix` and `suffix`), as UTF-8 bytes. */
  persistedArrayBytes(prefix?: string, suffix?: string): Promise<Buffer>;
}

/**
 * A view of an emitter that adds fixed fields to every event's data — used so that every event a
 * sub-agent produces carries `parentToolCallId`.
 *
 * @example
 * const subAgentEmitter = new ScopedEmitter(session.emitter, { parentToolCallId: call.id });
 */
export class ScopedEmitter implements EventEmitterPort {
  constructor(
    private readonly parent: EventEmitterPort,
    private readonly extraData: Record<string, unknown>,
  ) {}

  emit<T extends SessionEventType>(type: T, data: SessionEventData<T>): SessionEventOf<T> {
    return this.parent.emit(type, { ...data, ...this.extraData });
  }

  get sinkCount(): number {
    return this.parent.sinkCount;
  }

  addListener(listener: EventListener): () => void {
    return this.parent.addListener(listener);
  }
}
