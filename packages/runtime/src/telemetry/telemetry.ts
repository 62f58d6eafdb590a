import type { SessionEvent } from "@tandem/protocol";
import type { ModelCallRecord, ModelExchange } from "../providers/logged-client.js";
import type { TelemetryConfig } from "./config.js";
import type { Telemetry } from "./types.js";

export type { Telemetry } from "./types.js";

/** The events that open or close a span (a run's `session.error` or `session.idle` settles its last turn). */
const spannedEvents = new Set(["assistant.turn_start", "assistant.turn_end", "tool.execution_start", "tool.execution_complete", "session.error", "session.idle"]);

/**
 * Telemetry that loads the OpenTelemetry packages on first use (a dynamic import), so a runtime
 * without telemetry never loads them. Records made while they load are kept and replayed.
 *
 * @example
 * const telemetry = new LazyTelemetry(config, runtimeVersion, logger.warn.bind(logger));
 */
export class LazyTelemetry implements Telemetry {
  private loaded: Promise<Telemetry | undefined> | undefined;

  constructor(
    private readonly config: TelemetryConfig,
    private readonly runtimeVersion: string,
    private readonly onError: (message: string, error: unknown) => void,
  ) {}

  recordModelCall(record: ModelCallRecord, startTime: number, sessionId: string, exchange?: ModelExchange): void {
    const kept = this.config.captureContent ? exchange : undefined;
    void this.load().then((telemetry) => telemetry?.recordModelCall(record, startTime, sessionId, kept));
  }

  recordSessionEvent(sessionId: string, event: SessionEvent): void {
    if (!spannedEvents.has(event.type)) return;
    void this.load().then((telemetry) => telemetry?.recordSessionEvent(sessionId, event));
  }

  /**
   * Observes a session's events for the rest of its life, also those its clients do not get (a
   * sub-agent's turns for a 0.2.0 client): spans follow what ran, not what a client generation sees.
   */
  observeSession(sessionId: string, emitter: { addObserver(observer: (event: SessionEvent) => void): () => void }): void {
    emitter.addObserver((event) => this.recordSessionEvent(sessionId, event));
  }

  async shutdown(): Promise<void> {
    if (!this.loaded) return;
    await (await this.loaded)?.shutdown();
  }

  private load(): Promise<Telemetry | undefined> {
    this.loaded ??= import("./exporter.js").then(
      (module) => module.startTelemetry(this.config, this.runtimeVersion),
      (error: unknown) => {
        this.onError("telemetry could not start; nothing is exported", error);
        return undefined;
      },
    );
    return this.loaded;
  }
}
