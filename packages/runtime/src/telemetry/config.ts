import { isAbsolute, resolve } from "node:path";

/** What the SDKs' `telemetry` option turns into (they pass it as environment variables). */
export interface TelemetryConfig {
  /** OTLP/HTTP base endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`); traces go to `/v1/traces`, metrics to `/v1/metrics`. Unset with the file exporter. */
  endpoint?: string;
  /** The file exporter's JSON-lines file (`COPILOT_OTEL_FILE_EXPORTER_PATH`, relative to the runtime's working directory). */
  filePath?: string;
  /** Instrumentation scope name (`COPILOT_OTEL_SOURCE_NAME`, default `tandem`). */
  sourceName: string;
  /** How often metrics are exported (`OTEL_METRIC_EXPORT_INTERVAL`, ms, default 60000); always at shutdown too. */
  metricIntervalMs: number;
  /**
   * Whether spans carry content (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`): the
   * messages of each model call and the arguments and result of each tool call.
   */
  captureContent: boolean;
}

/**
 * The telemetry settings, or undefined when telemetry is off. On when `COPILOT_OTEL_ENABLED=true`
 * (what the official SDKs 0.2.0 and 1.0.x and ours set for `telemetry: {…}`) with an OTLP endpoint,
 * or with `COPILOT_OTEL_EXPORTER_TYPE=file` and a file path (spans as JSON lines; no metrics).
 *
 * @example
 * telemetryConfigFromEnv({ COPILOT_OTEL_ENABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" });
 * telemetryConfigFromEnv({ COPILOT_OTEL_ENABLED: "true", COPILOT_OTEL_EXPORTER_TYPE: "file", COPILOT_OTEL_FILE_EXPORTER_PATH: "spans.jsonl" }, "/work");
 */
export function telemetryConfigFromEnv(env: NodeJS.ProcessEnv, workingDirectory = process.cwd()): TelemetryConfig | undefined {
  if (env.COPILOT_OTEL_ENABLED !== "true") return undefined;
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  const common = {
    sourceName: env.COPILOT_OTEL_SOURCE_NAME || "tandem",
    metricIntervalMs: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === "true",
  };
  const exporter = env.COPILOT_OTEL_EXPORTER_TYPE;
  if (exporter === "file") {
    const path = env.COPILOT_OTEL_FILE_EXPORTER_PATH;
    if (!path) return undefined;
    return { ...common, filePath: isAbsolute(path) ? path : resolve(workingDirectory, path) };
  }
  if (exporter !== undefined && exporter !== "otlp-http") return undefined;
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return undefined;
  return { ...common, endpoint: endpoint.replace(/\/+$/, "") };
}
