/**
 * W3C trace context headers, for joining the runtime's spans to your own trace.
 *
 * @example
 * const context: TraceContext = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
 */
export interface TraceContext {
  traceparent?: string;
  tracestate?: string;
}

/**
 * Returns the current trace context; called before `session.create`, `session.resume` and `session.send`.
 *
 * @example
 * const onGetTraceContext: TraceContextProvider = () => ({ traceparent: currentSpanTraceparent() });
 */
export type TraceContextProvider = () => TraceContext | Promise<TraceContext>;

/**
 * OpenTelemetry settings for a spawned runtime, passed to it as environment variables.
 *
 * @example
 * const client = new CopilotClient({ telemetry: { exporterType: "file", filePath: "/tmp/traces.jsonl" } });
 */
export interface TelemetryConfig {
  /** OTLP HTTP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`). */
  otlpEndpoint?: string;
  /** JSON-lines trace file (`COPILOT_OTEL_FILE_EXPORTER_PATH`). */
  filePath?: string;
  /** `otlp-http` or `file` (`COPILOT_OTEL_EXPORTER_TYPE`). */
  exporterType?: string;
  /** Instrumentation scope name (`COPILOT_OTEL_SOURCE_NAME`). */
  sourceName?: string;
  /** Whether prompts and answers are recorded (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`). */
  captureContent?: boolean;
}

/** The provider's trace context, or nothing when there is no provider or it fails. */
export async function getTraceContext(provider: TraceContextProvider | undefined): Promise<TraceContext> {
  if (!provider) return {};
  try {
    return (await provider()) ?? {};
  } catch {
    return {};
  }
}

/** The environment variables that configure the runtime's OpenTelemetry exporter. */
export function telemetryEnv(config: TelemetryConfig | undefined): Record<string, string> {
  if (!config) return {};
  const env: Record<string, string> = { COPILOT_OTEL_ENABLED: "true" };
  if (config.otlpEndpoint !== undefined) env.OTEL_EXPORTER_OTLP_ENDPOINT = config.otlpEndpoint;
  if (config.filePath !== undefined) env.COPILOT_OTEL_FILE_EXPORTER_PATH = config.filePath;
  if (config.exporterType !== undefined) env.COPILOT_OTEL_EXPORTER_TYPE = config.exporterType;
  if (config.sourceName !== undefined) env.COPILOT_OTEL_SOURCE_NAME = config.sourceName;
  if (config.captureContent !== undefined) env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = String(config.captureContent);
  return env;
}
