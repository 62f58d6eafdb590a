/**
 * OpenTelemetry export following the GenAI semantic conventions: an `invoke_agent tandem` span per
 * turn (`gen_ai.conversation.id` = the session; `error.type` and an error status when the run failed
 * — its `session.error` follows the turn's end; a sub-agent's turns sit inside its `task` tool
 * span), an `execute_tool {name}` span per tool call inside it (`gen_ai.tool.name`, `gen_ai.tool.call.id`, `error.type` when it failed), a `chat {model}`
 * span per model call inside its turn (`gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`,
 * `gen_ai.usage.input_tokens` / `output_tokens`, `gen_ai.response.finish_reasons`, `error.type`)
 * and the `gen_ai.client.operation.duration` (s) and `gen_ai.client.token.usage` histograms, sent
 * over OTLP/HTTP (JSON). The OpenTelemetry packages are imported here only, and this module only
 * through a dynamic import when telemetry is on.
 */
import { subAgentRunOf } from "../compat/profile.js";
import { context, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import type { SessionEvent } from "@tandem/protocol";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { ModelCallRecord } from "../providers/logged-client.js";
import type { TelemetryConfig } from "./config.js";
import type { Telemetry } from "./telemetry.js";

/** Starts the providers and exporters. */
export function startTelemetry(config: TelemetryConfig, runtimeVersion: string): Telemetry {
  const resource = resourceFromAttributes({ "service.name": "tandem", "service.version": runtimeVersion });
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${config.endpoint}/v1/traces` }), scheduledDelayMillis: 500 })],
  });
  const metricReader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ url: `${config.endpoint}/v1/metrics` }),
    exportIntervalMillis: config.metricIntervalMs,
    exportTimeoutMillis: Math.min(config.metricIntervalMs, 30_000),
  });
  const meterProvider = new MeterProvider({ resource, readers: [metricReader] });
  const tracer = tracerProvider.getTracer(config.sourceName, runtimeVersion);
  const meter = meterProvider.getMeter(config.sourceName, runtimeVersion);
  const duration = meter.createHistogram("gen_ai.client.operation.duration", { unit: "s", description: "GenAI operation duration" });
  const tokens = meter.createHistogram("gen_ai.client.token.usage", { unit: "{token}", description: "Measures number of input and output tokens used" });

  /** Open turns, by session (main loop) or `session/parentToolCallId` (a sub-agent's loop). */
  const turns = new Map<string, Span>();
  /** A main-loop turn that ended, held until its run's `session.error` (or idle, or next turn) says how it went. */
  const closing = new Map<string, { span: Span; endTime: number }>();
  const tools = new Map<string, Span>();
  const time = (event: SessionEvent) => Date.parse(event.timestamp);
  const parentToolCallIdOf = (event: SessionEvent) => subAgentRunOf(event);
  const turnKey = (sessionId: string, event: SessionEvent) => {
    const parentToolCallId = parentToolCallIdOf(event);
    return parentToolCallId ? `${sessionId}/${parentToolCallId}` : sessionId;
  };
  const settleTurn = (sessionId: string, failure?: { type: string; message: string }) => {
    const ended = closing.get(sessionId);
    if (!ended) return;
    closing.delete(sessionId);
    if (failure) {
      ended.span.setAttribute("error.type", failure.type);
      ended.span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
    }
    ended.span.end(ended.endTime);
  };

  return {
    recordSessionEvent(sessionId: string, event: SessionEvent): void {
      switch (event.type) {
        case "assistant.turn_start": {
          const key = turnKey(sessionId, event);
          const attributes = { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "tandem", "gen_ai.conversation.id": sessionId };
          if (key === sessionId) settleTurn(sessionId);
          turns.get(key)?.end(time(event));
          // A sub-agent's turn belongs to the `task` call that runs it.
          const task = key === sessionId ? undefined : tools.get(key);
          const parent = task ? trace.setSpan(context.active(), task) : context.active();
          turns.set(key, tracer.startSpan("invoke_agent tandem", { kind: SpanKind.INTERNAL, startTime: time(event), attributes }, parent));
          return;
        }
        case "assistant.turn_end": {
          const key = turnKey(sessionId, event);
          const span = turns.get(key);
          turns.delete(key);
          if (!span) return;
          if (key === sessionId) closing.set(sessionId, { span, endTime: time(event) });
          else span.end(time(event));
          return;
        }
        case "session.error":
          settleTurn(sessionId, { type: event.data.errorType, message: event.data.message });
          return;
        case "session.idle":
          settleTurn(sessionId);
          return;
        case "tool.execution_start": {
          const parentToolCallId = parentToolCallIdOf(event);
          const turn = (parentToolCallId ? turns.get(`${sessionId}/${parentToolCallId}`) : undefined) ?? turns.get(sessionId);
          const parent = turn ? trace.setSpan(context.active(), turn) : context.active();
          const attributes = { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": event.data.toolName, "gen_ai.tool.call.id": event.data.toolCallId, "gen_ai.conversation.id": sessionId };
          tools.set(`${sessionId}/${event.data.toolCallId}`, tracer.startSpan(`execute_tool ${event.data.toolName}`, { kind: SpanKind.INTERNAL, startTime: time(event), attributes }, parent));
          return;
        }
        case "tool.execution_complete": {
          const key = `${sessionId}/${event.data.toolCallId}`;
          const span = tools.get(key);
          if (!span) return;
          tools.delete(key);
          if (!event.data.success) {
            span.setAttribute("error.type", event.data.error?.code ?? "tool_error");
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end(time(event));
          return;
        }
      }
    },
    recordModelCall(record: ModelCallRecord, startTime: number, sessionId: string): void {
      const attributes: Record<string, string | number | string[]> = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": record.provider,
        "gen_ai.request.model": record.model,
      };
      const turn = turns.get(sessionId);
      const parent = turn ? trace.setSpan(context.active(), turn) : context.active();
      const span = tracer.startSpan(`chat ${record.model}`, { kind: SpanKind.CLIENT, startTime, attributes: { ...attributes, "gen_ai.conversation.id": sessionId } }, parent);
      if (record.inputTokens !== undefined) span.setAttribute("gen_ai.usage.input_tokens", record.inputTokens);
      if (record.outputTokens !== undefined) span.setAttribute("gen_ai.usage.output_tokens", record.outputTokens);
      if (record.finishReason !== undefined) span.setAttribute("gen_ai.response.finish_reasons", [record.finishReason]);
      if (record.providerCallId !== undefined) span.setAttribute("gen_ai.response.id", record.providerCallId);
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
      for (const span of [...tools.values(), ...turns.values()]) span.end();
      for (const sessionId of [...closing.keys()]) settleTurn(sessionId);
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
