/** What the SDKs' `telemetry` option turns into (they pass it as environment variables). */
export interface TelemetryConfig {
  /** OTLP/HTTP base endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`); traces go to `/v1/traces`, metrics to `/v1/metrics`. */
  endpoint: string;
  /** Instrumentation scope name (`COPILOT_OTEL_SOURCE_NAME`, default `tandem`). */
  sourceName: string;
  /** How often metrics are exported (`OTEL_METRIC_EXPORT_INTERVAL`, ms, default 60000); always at shutdown too. */
  metricIntervalMs: number;
}

/**
 * The telemetry settings, or undefined when telemetry is off. On when `COPILOT_OTEL_ENABLED=true`
 * (what the official SDKs 0.2.0 and 1.0.x and ours set for `telemetry: {…}`) with an OTLP endpoint.
 * The SDKs' `file` exporter (`COPILOT_OTEL_EXPORTER_TYPE=file`) is not supported: nothing is exported then.
 *
 * @example
 * telemetryConfigFromEnv({ COPILOT_OTEL_ENABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" });
 */
export function telemetryConfigFromEnv(env: NodeJS.ProcessEnv): TelemetryConfig | undefined {
  if (env.COPILOT_OTEL_ENABLED !== "true") return undefined;
  if (env.COPILOT_OTEL_EXPORTER_TYPE !== undefined && env.COPILOT_OTEL_EXPORTER_TYPE !== "otlp-http") return undefined;
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return undefined;
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return {
    endpoint: endpoint.replace(/\/+$/, ""),
    sourceName: env.COPILOT_OTEL_SOURCE_NAME || "tandem",
    metricIntervalMs: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
  };
}
