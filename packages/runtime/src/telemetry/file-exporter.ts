import { appendFile } from "node:fs/promises";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";

type ExportCallback = Parameters<SpanExporter["export"]>[1];

/** `[seconds, nanoseconds]` as nanoseconds since the epoch, in a string (it does not fit a double). */
function nanos(time: readonly [number, number]): string {
  return (BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])).toString();
}

/**
 * Writes finished spans to a file, one JSON object per line (`type: "span"`, ids, parent, name,
 * kind, times in nanoseconds, attributes, status, scope and resource attributes), appending in the
 * order they finished. A write that fails is reported to the span processor as a failed export.
 *
 * @example
 * new BatchSpanProcessor({ exporter: new FileSpanExporter("/work/spans.jsonl") });
 */
export class FileSpanExporter implements SpanExporter {
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly path: string) {}

  export(spans: ReadableSpan[], resultCallback: ExportCallback): void {
    const text = spans.map((span) => `${JSON.stringify(spanLine(span))}\n`).join("");
    this.writes = this.writes
      .then(() => appendFile(this.path, text, "utf8"))
      .then(
        () => resultCallback({ code: 0 }),
        (error: unknown) => resultCallback({ code: 1, error: error instanceof Error ? error : new Error(String(error)) }),
      );
  }

  async forceFlush(): Promise<void> {
    await this.writes;
  }

  async shutdown(): Promise<void> {
    await this.writes;
  }
}

function spanLine(span: ReadableSpan): Record<string, unknown> {
  const context = span.spanContext();
  return {
    type: "span",
    traceId: context.traceId,
    spanId: context.spanId,
    parentSpanId: span.parentSpanContext?.spanId ?? "",
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: nanos(span.startTime),
    endTimeUnixNano: nanos(span.endTime),
    attributes: span.attributes,
    status: span.status,
    instrumentationScope: { name: span.instrumentationScope.name, ...(span.instrumentationScope.version ? { version: span.instrumentationScope.version } : {}) },
    resource: span.resource.attributes,
  };
}
