import { randomUUID } from "node:crypto";
import { ephemeralEventTypes, type SessionEvent, type SessionEventData, type SessionEventOf, type SessionEventType } from "@tandem/protocol";
import type { ShapedEvent } from "../compat/profile.js";
import { persistenceFailed } from "../store/persistence-error.js";
import type { LogRange, SessionEventLog } from "../store/types.js";
import type { EventEmitterPort, EventListener, EventSink } from "../ports/events.js";

export { ScopedEmitter } from "../ports/events.js";
export type { EventEmitterPort, EventListener, EventSink } from "../ports/events.js";

/** What resume read from the events file. */
export interface RestoredEvents {
  /** How many readable events. */
  count: number;
  /** The log position past the last complete entry read. */
  end: number;
  /** Unreadable or blank lines, left out of the events (sorted). */
  excluded: readonly LogRange[];
}

/** An event waiting to be sent: sent once the log has written `after` entries. */
interface UndeliveredEvent {
  json: string;
  type: string;
  after: number;
  /**
   * The sinks attached when it was emitted (those still attached get it): a client that attaches
   * later reads it with the history instead (`persistedArrayBytes` includes what is not yet written).
   */
  sinks: readonly EventSink[];
}

/**
 * Gives an event's data (and envelope `agentId`) for the session's clients, undefined to send it as
 * emitted, or `"omit"` when the session's clients do not get that event at all.
 */
export type EventShaper = (type: string, data: Record<string, unknown>) => ShapedEvent | undefined | "omit";

/**
 * The single emitter of a session's events: assigns `id`, `timestamp` and `parentId`, marks
 * ephemeral events, appends persisted ones to the events log and fans out to every sink.
 * Each event is serialised exactly once; the same JSON text goes to disk and to the wire.
 *
 * A client never sees an event the log does not hold: a persisted event reaches the sinks once the
 * log has written it (committed in PostgreSQL; handed to the kernel by the file log, so it survives
 * the process), and an ephemeral event once every persisted event before it has, so the order is
 * the emission order. In-process listeners are called at once (the loop depends on them). After a
 * failed write of a local log, its held events are shown (`SessionEventLog.showsHeldEvents`).
 *
 * @example
 * const emitter = new SessionEmitter(sessionId, eventLog, null);
 * emitter.emit("session.idle", {});
 */
export class SessionEmitter implements EventEmitterPort {
  private readonly sinks = new Set<EventSink>();
  /**
   * The attached sinks as an array, shared by every event queued while they stay the same (see
   * {@link UndeliveredEvent.sinks}); made again after a sink is added or removed.
   */
  private sinksSnapshot: readonly EventSink[] | undefined;
  private readonly listeners = new Set<EventListener>();
  /** In-process observers of every event, also the ones the session's clients do not get (see {@link addObserver}). */
  private readonly observers = new Set<EventListener>();
  /** How many events were persisted since the session was opened. */
  private emittedCount = 0;
  /** What resume read from the events file: how many events, up to which offset, and the unreadable lines it left out. */
  private restored: RestoredEvents = { count: 0, end: 0, excluded: [] };
  /** Puts each event in the form the session's clients expect (see {@link shapeEventsWith}). */
  private shapeEvent: EventShaper | undefined;
  /** Events waiting for the log to write what precedes them before they go to the sinks, oldest first. */
  private readonly undelivered: UndeliveredEvent[] = [];
  /** How many events went through `undelivered` so far, and how many of them were sent. */
  private queuedCount = 0;
  private sentFromQueue = 0;
  /** Waiting for {@link delivered}: each resolved once `sentFromQueue` reaches its count. */
  private deliveryWaiters: Array<{ count: number; resolve: () => void }> = [];
  private readonly stopWatchingProgress: () => void;

  constructor(
    readonly sessionId: string,
    /** The session's event log (its write failures are watched by `SessionPersistence`). */
    readonly log: SessionEventLog,
    private lastEventId: string | null,
    private readonly onPersisted: () => void = () => undefined,
    /** Applied to each event's JSON text before it is persisted or sent (secrets kept out). */
    private readonly redact: (json: string) => string = (json) => json,
  ) {
    const stopProgress = log.progress.onWritten((written) => this.deliverWritten(written));
    const stopFailures = log.watch({
      failed: () => {
        this.deliverHeldAfterFailure();
        this.releaseWaiters(true);
      },
    });
    this.stopWatchingProgress = () => {
      stopProgress();
      stopFailures();
    };
  }

  /** Adds a sink (a connected client); returns a function that removes it. */
  addSink(sink: EventSink): () => void {
    this.sinks.add(sink);
    this.sinksSnapshot = undefined;
    return () => this.removeSink(sink);
  }

  /** Removes a sink. */
  removeSink(sink: EventSink): void {
    if (this.sinks.delete(sink)) this.sinksSnapshot = undefined;
  }

  /** Whether the sink receives this session's events. */
  hasSink(sink: EventSink): boolean {
    return this.sinks.has(sink);
  }

  /** The number of connected sinks. */
  get sinkCount(): number {
    return this.sinks.size;
  }

  /** Adds an in-process listener; returns a function that removes it. */
  addListener(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Adds an observer of every event, also those the shaper omits (never stored or sent, and not
   * given to listeners): telemetry, which follows what ran. Returns a function that removes it.
   */
  addObserver(observer: EventListener): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /**
   * Sets the one function every event's data passes before it is stamped, stored and sent: the
   * session's compatibility profile (`compat/profile.ts`), so disk and wire keep the same bytes.
   */
  shapeEventsWith(shape: EventShaper): void {
    this.shapeEvent = shape;
  }

  /**
   * Emits one event and returns it. An event the shaper omits goes to the observers only: it is
   * not stored, sent or given to listeners, and the next event's `parentId` skips it.
   */
  emit<T extends SessionEventType>(type: T, emitted: SessionEventData<T>): SessionEventOf<T> {
    const shaped = this.shapeEvent?.(type, emitted as Record<string, unknown>);
    const id = randomUUID();
    if (shaped === "omit") {
      const omitted = { type, data: emitted, id, timestamp: new Date().toISOString(), parentId: this.lastEventId } as SessionEventOf<T>;
      this.observe(omitted as SessionEvent);
      return omitted;
    }
    const data = shaped ? shaped.data : emitted;
    const ephemeral = ephemeralEventTypes.has(type);
    // Key order matches the reference files: type, data, id, timestamp, parentId (+ ephemeral, agentId).
    const event = (
      ephemeral
        ? { type, data, id, timestamp: new Date().toISOString(), parentId: this.lastEventId, ephemeral: true }
        : { type, data, id, timestamp: new Date().toISOString(), parentId: this.lastEventId }
    ) as SessionEventOf<T>;
    if (shaped?.agentId !== undefined) Object.assign(event, { agentId: shaped.agentId });
    this.lastEventId = id;
    const json = this.redact(JSON.stringify(event));
    if (!ephemeral) {
      this.emittedCount++;
      this.log.append(json);
    }
    this.deliverOnceWritten(json, type, this.log.progress.appendedTotal);
    for (const listener of this.listeners) {
      try {
        listener(event as SessionEvent);
      } catch {
        // A faulty in-process listener must not break the event stream.
      }
    }
    this.observe(event as SessionEvent);
    if (!ephemeral) this.onPersisted();
    return event;
  }

  /**
   * Sends the clients an unstored copy of an event at once (marked `ephemeral`, its own id), ahead
   * of what waits to be written: how a log that cannot write and does not show its held events
   * (`SessionEventLog.showsHeldEvents`) still reports the failure. The stored event is emitted as
   * usual and reaches the clients once written.
   */
  notifyClients<T extends SessionEventType>(type: T, emitted: SessionEventData<T>): void {
    const shaped = this.shapeEvent?.(type, emitted as Record<string, unknown>);
    if (shaped === "omit") return;
    const data = shaped ? shaped.data : emitted;
    const event = { type, data, id: randomUUID(), timestamp: new Date().toISOString(), parentId: this.lastEventId, ephemeral: true };
    if (shaped?.agentId !== undefined) Object.assign(event, { agentId: shaped.agentId });
    this.deliverToSinks(this.redact(JSON.stringify(event)), type);
  }

  /** Sends the event (`after`: the log entries it needs written) to the sinks now when the log holds them, else queues it. */
  private deliverOnceWritten(json: string, type: string, after: number): void {
    if (this.showingHeld()) {
      this.deliverHeldAfterFailure();
      this.deliverToSinks(json, type);
      return;
    }
    if (this.undelivered.length === 0 && this.log.progress.writtenTotal >= after) {
      this.deliverToSinks(json, type);
      return;
    }
    this.sinksSnapshot ??= [...this.sinks];
    this.undelivered.push({ json, type, after, sinks: this.sinksSnapshot });
    this.queuedCount++;
  }

  /**
   * Resolves once every event emitted so far has gone to the clients, writing what waits at once; a
   * request handler's answer waits for it, so the events a request caused arrive before its answer.
   * Resolves as well when the log fails (the events then wait for the retry; the answer does not).
   * Undefined when nothing waits (nothing to await).
   */
  delivered(): Promise<void> | undefined {
    if (this.undelivered.length === 0) return undefined;
    const count = this.queuedCount;
    void this.log.flush();
    return new Promise((resolve) => this.deliveryWaiters.push({ count, resolve }));
  }

  private releaseWaiters(all = false): void {
    if (this.deliveryWaiters.length === 0) return;
    const waiting = this.deliveryWaiters;
    this.deliveryWaiters = all ? [] : waiting.filter((waiter) => waiter.count > this.sentFromQueue);
    for (const waiter of waiting) if (all || waiter.count <= this.sentFromQueue) waiter.resolve();
  }

  /** The log wrote up to `written` entries: sends the queued events now covered, in order. */
  private deliverWritten(written: number): void {
    while (this.undelivered.length > 0 && this.undelivered[0]!.after <= written) this.deliverQueued(this.undelivered.shift()!);
    this.releaseWaiters();
  }

  private deliverQueued(entry: UndeliveredEvent): void {
    this.sentFromQueue++;
    this.deliver(entry);
  }

  /** The log failed and its clients may see what it holds (see `SessionEventLog.showsHeldEvents`). */
  private showingHeld(): boolean {
    return this.log.failure !== undefined && this.log.showsHeldEvents;
  }

  private deliverHeldAfterFailure(): void {
    if (!this.showingHeld()) return;
    for (let entry = this.undelivered.shift(); entry; entry = this.undelivered.shift()) this.deliverQueued(entry);
    this.releaseWaiters();
  }

  private deliver(entry: UndeliveredEvent): void {
    for (const sink of entry.sinks) if (this.sinks.has(sink)) sink.deliverSessionEvent(this.sessionId, entry.json, entry.type);
  }

  /** Sends an event to every attached sink. */
  private deliverToSinks(json: string, type: string): void {
    for (const sink of this.sinks) sink.deliverSessionEvent(this.sessionId, json, type);
  }

  /**
   * Writes everything emitted so far and waits until it is durable (a datasync for the file log,
   * a commit for PostgreSQL); rejects with the log's failure when it could not be written. A
   * `session.send` is answered after this, so an acknowledged message is never lost.
   */
  async committed(): Promise<void> {
    const needed = this.log.progress.appendedTotal;
    await this.log.flush({ durable: true });
    if (this.log.progress.writtenTotal >= needed && !this.log.failure) return;
    throw this.log.failure ?? persistenceFailed(this.log.location, new Error("the events were not written"), "write");
  }

  private observe(event: SessionEvent): void {
    for (const observer of this.observers) {
      try {
        observer(event);
      } catch {
        // A faulty observer must not break the event stream.
      }
    }
  }

  /** Takes what resume read from the events file. */
  restorePersisted(restored: RestoredEvents): void {
    this.restored = restored;
  }

  /** How many events are persisted. */
  get persistedCount(): number {
    return this.restored.count + this.emittedCount;
  }

  /**
   * The persisted events as the UTF-8 bytes of a JSON array between `prefix` and `suffix`: the
   * events file's lines (never parsed or re-serialised; see `resume-point.ts`) followed by the
   * events not yet written.
   */
  async persistedArrayBytes(prefix = "[", suffix = "]"): Promise<Buffer> {
    const { endOffset, pending } = await this.log.position();
    return this.log.arrayBytes(endOffset ?? this.restored.end, this.restored.excluded, pending, prefix, suffix).catch((error: unknown) => {
      throw persistenceFailed(this.log.location, error, "read");
    });
  }

  /** Makes everything emitted so far durable and releases the events file (session closed). */
  async close(): Promise<void> {
    await this.log.close();
    this.stopWatchingProgress();
    this.releaseWaiters(true);
  }

  /** Makes everything emitted so far durable (called when a run ends). */
  durable(): Promise<void> {
    return this.log.flush({ durable: true });
  }
}
