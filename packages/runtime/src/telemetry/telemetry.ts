import type { ModelCallRecord } from "../providers/logged-client.js";
import type { TelemetryConfig } from "./config.js";

/** Where the runtime reports what telemetry exports. */
export interface Telemetry {
  /** One model call; `startTime` in epoch milliseconds. */
  recordModelCall(record: ModelCallRecord, startTime: number): void;
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>;
}

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

  recordModelCall(record: ModelCallRecord, startTime: number): void {
    void this.load().then((telemetry) => telemetry?.recordModelCall(record, startTime));
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
