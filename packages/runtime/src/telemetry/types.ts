import type { SessionEvent } from "@tandem/protocol";
import type { ModelCallRecord, ModelExchange } from "../providers/logged-client.js";

/**
 * Where the runtime reports what telemetry exports: implemented by the lazy front
 * (`telemetry.ts`) and by the OpenTelemetry exporter it loads (`exporter.ts`).
 */
export interface Telemetry {
  /** One model call of a session; `startTime` in epoch milliseconds; `exchange` is read only when content is captured. */
  recordModelCall(record: ModelCallRecord, startTime: number, sessionId: string, exchange?: ModelExchange): void;
  /** One event of a session (turns and tool calls become spans). */
  recordSessionEvent(sessionId: string, event: SessionEvent): void;
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>;
}
