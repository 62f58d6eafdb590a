/**
 * Server-sent events: encoding and writing with optional pacing.
 */
import type { ServerResponse } from "node:http";
import type { SseEvent } from "./formats/types.js";
import type { ResponseLifetime } from "./lifetime.js";

/** Unpaced streams are written in batches of about this many characters. */
const BATCH_CHARACTERS = 16 * 1024;

/** Encodes one event as `event: <name>\ndata: <json>\n\n` (the `event:` line only when named). */
export function encodeSseEvent(event: SseEvent): string {
  const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
  return event.event ? `event: ${event.event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}

/** Headers of an SSE response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
});

/**
 * Writes events to an already-started response and ends it. With `chunkDelayMs`
 * each event is its own write, with the delay between events; without it, events are
 * batched. Stops quietly if the connection closes.
 */
export async function writeSseEvents(
  response: ServerResponse,
  lifetime: ResponseLifetime,
  events: Iterable<SseEvent>,
  chunkDelayMs: number,
): Promise<void> {
  let batch = "";
  const flush = async (): Promise<boolean> => {
    if (lifetime.closed) return false;
    const text = batch;
    batch = "";
    if (!text || response.write(text)) return true;
    return lifetime.drain();
  };
  let isFirst = true;
  for (const event of events) {
    if (chunkDelayMs > 0 && !isFirst && !(await lifetime.sleep(chunkDelayMs))) return;
    isFirst = false;
    batch += encodeSseEvent(event);
    const shouldFlush = chunkDelayMs > 0 || batch.length >= BATCH_CHARACTERS;
    if (shouldFlush && !(await flush())) return;
  }
  if (!(await flush())) return;
  response.end();
}
