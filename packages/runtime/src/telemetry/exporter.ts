/**
 * OpenTelemetry export following the GenAI semantic conventions: an `invoke_agent tandem` span per
 * run — from the first model call answering a message until the session is idle again
 * (`gen_ai.conversation.id` = the session; `error.type` and an error status when the run failed);
 * a sub-agent's run is one such span inside its `task` tool span — an `execute_tool {name}` span
 * per tool call inside its run (`gen_ai.tool.name`, `gen_ai.tool.call.id`, `error.type` when it
 * failed), a `chat {model}` span per model call inside its run (`gen_ai.operation.name`,
 * `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens` / `output_tokens`,
 * `gen_ai.response.finish_reasons`, `error.type`), so one message's spans share one trace; and the
 * `gen_ai.client.operation.duration` (s) and `gen_ai.client.token.usage` histograms. With content
 * capture on, chat spans carry `gen_ai.input.messages` / `gen_ai.output.messages` and tool spans
 * `gen_ai.tool.call.arguments` / `gen_ai.tool.call.result`. Sent over OTLP/HTTP (JSON), or written
 * to a file as JSON lines (spans only). The OpenTelemetry packages are imported here only, and
 * this module only through a dynamic import when telemetry is on.
 */
import { subAgentRunOf } from "../compat/profile.js";
import { context, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import type { SessionEvent } from "@tandem/protocol";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { ModelCallRecord, ModelExchange } from "../providers/logged-client.js";
import type { TelemetryConfig } from "./config.js";
import { chatInputMessages, chatOutputMessages } from "./content.js";
import { FileSpanExporter } from "./file-exporter.js";
import type { Telemetry } from "./types.js";

/** Starts the providers and exporters. */
export function startTelemetry(config: TelemetryConfig, runtimeVersion: string): Telemetry {
  const resource = resourceFromAttributes({ "service.name": "tandem", "service.version": runtimeVersion });
  const spanExporter = config.filePath ? new FileSpanExporter(config.filePath) : new OTLPTraceExporter({ url: `${config.endpoint}/v1/traces` });
  const tracerProvider = new TracerProvider({ resource, spanProcessors: [new BatchSpanProcessor({ exporter: spanExporter, scheduledDelayMillis: 500 })] });
  const metricReader = config.endpoint
    ? new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${config.endpoint}/v1/metrics` }),
        exportIntervalMillis: config.metricIntervalMs,
        exportTimeoutMillis: Math.min(config.metricIntervalMs, 30_000),
      })
    : undefined;
  const meterProvider = new MeterProvider({ resource, readers: metricReader ? [metricReader] : [] });
  const tracer = tracerProvider.getTracer(config.sourceName, runtimeVersion);
  const meter = meterProvider.getMeter(config.sourceName, runtimeVersion);
  const duration = meter.createHistogram("gen_ai.client.operation.duration", { unit: "s", description: "GenAI operation duration" });
  const tokens = meter.createHistogram("gen_ai.client.token.usage", { unit: "{token}", description: "Measures number of input and output tokens used" });

  /** Open runs, by session (main loop) or `session/parentToolCallId` (a sub-agent's run). */
  const runs = new Map<string, Span>();
  const tools = new Map<string, Span>();
  const time = (event: SessionEvent) => Date.parse(event.timestamp);
  const parentToolCallIdOf = (event: SessionEvent) => subAgentRunOf(event);
  const runKey = (sessionId: string, event: SessionEvent) => {
    const parentToolCallId = parentToolCallIdOf(event);
    return parentToolCallId ? `${sessionId}/${parentToolCallId}` : sessionId;
  };
  const endRun = (key: string, endTime: number, failure?: { type: string; message: string }) => {
    const span = runs.get(key);
    if (!span) return;
    runs.delete(key);
    if (failure) {
      span.setAttribute("error.type", failure.type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
    }
    span.end(endTime);
  };

  return {
    recordSessionEvent(sessionId: string, event: SessionEvent): void {
      switch (event.type) {
        case "assistant.turn_start": {
          const key = runKey(sessionId, event);
          if (runs.has(key)) return;
          const attributes = { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "tandem", "gen_ai.conversation.id": sessionId };
          // A sub-agent's run belongs to the `task` call that runs it; the main run starts a trace.
          const task = key === sessionId ? undefined : tools.get(key);
          const parent = task ? trace.setSpan(context.active(), task) : trace.deleteSpan(context.active());
          runs.set(key, tracer.startSpan("invoke_agent tandem", { kind: SpanKind.INTERNAL, startTime: time(event), attributes }, parent));
          return;
        }
        case "session.error":
          endRun(sessionId, time(event), { type: event.data.errorType, message: event.data.message });
          return;
        case "session.idle":
          endRun(sessionId, time(event));
          return;
        case "tool.execution_start": {
          const parentToolCallId = parentToolCallIdOf(event);
          const run = (parentToolCallId ? runs.get(`${sessionId}/${parentToolCallId}`) : undefined) ?? runs.get(sessionId);
          const parent = run ? trace.setSpan(context.active(), run) : context.active();
          const attributes: Record<string, string> = { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": event.data.toolName, "gen_ai.tool.call.id": event.data.toolCallId, "gen_ai.conversation.id": sessionId };
          if (config.captureContent && event.data.arguments !== undefined) attributes["gen_ai.tool.call.arguments"] = JSON.stringify(event.data.arguments);
          tools.set(`${sessionId}/${event.data.toolCallId}`, tracer.startSpan(`execute_tool ${event.data.toolName}`, { kind: SpanKind.INTERNAL, startTime: time(event), attributes }, parent));
          return;
        }
        case "tool.execution_complete": {
          const key = `${sessionId}/${event.data.toolCallId}`;
          // A `task` call's sub-agent run ends with it.
          endRun(key, time(event));
          const span = tools.get(key);
          if (!span) return;
          tools.delete(key);
          if (config.captureContent && typeof event.data.result?.content === "string") span.setAttribute("gen_ai.tool.call.result", event.data.result.content);
          if (!event.data.success) {
            span.setAttribute("error.type", event.data.error?.code ?? "tool_error");
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end(time(event));
          return;
        }
      }
    },
    recordModelCall(record: ModelCallRecord, startTime: number, sessionId: string, exchange?: ModelExchange): void {
      const attributes: Record<string, string | number | string[]> = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": record.provider,
        "gen_ai.request.model": record.model,
      };
      const run = runs.get(sessionId);
      const parent = run ? trace.setSpan(context.active(), run) : context.active();
      const span = tracer.startSpan(`chat ${record.model}`, { kind: SpanKind.CLIENT, startTime, attributes: { ...attributes, "gen_ai.conversation.id": sessionId } }, parent);
      if (record.inputTokens !== undefined) span.setAttribute("gen_ai.usage.input_tokens", record.inputTokens);
      if (record.outputTokens !== undefined) span.setAttribute("gen_ai.usage.output_tokens", record.outputTokens);
      if (record.finishReason !== undefined) span.setAttribute("gen_ai.response.finish_reasons", [record.finishReason]);
      if (record.providerCallId !== undefined) span.setAttribute("gen_ai.response.id", record.providerCallId);
      if (config.captureContent && exchange) {
        span.setAttribute("gen_ai.input.messages", JSON.stringify(chatInputMessages(exchange.request)));
        if (exchange.response) span.setAttribute("gen_ai.output.messages", JSON.stringify(chatOutputMessages(exchange.response)));
      }
      const errorType = record.status === "ok" ? undefined : (record.errorType ?? record.status);
      if (errorType !== undefined) {
        span.setAttribute("error.type", errorType);
        if (record.httpStatus !== undefined) span.setAttribute("http.response.status_code", record.httpStatus);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end(startTime + record.latencyMs);
      const metricAttributes = errorType === undefined ? attributes : { ...attributes, "error.type": errorType };
      duration.record(record.latencyMs / 1000, metricAttributes);
      if (record.inputTokens !== undefined) tokens.record(record.inputTokens, { ...attributes, "gen_ai.token.type": "input" });
      if (record.outputTokens !== undefined) tokens.record(record.outputTokens, { ...attributes, "gen_ai.token.type": "output" });
    },
    async shutdown(): Promise<void> {
      for (const span of [...tools.values(), ...runs.values()]) span.end();
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
