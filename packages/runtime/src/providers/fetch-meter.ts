import type { ResponseMeter } from "./response-limits.js";

/**
 * Wraps `fetch` so the caller learns how many response bytes have arrived (for
 * `assistant.streaming_delta` and the stream-idle clock), sees the response headers (for request
 * tracing ids), and has every body pass through `meter`: past one of its limits the body fails
 * with the meter's error (the reader stops, the connection closes).
 *
 * @example
 * const fetchImpl = meteredFetch(true, (total) => onPart({ type: "bytes", totalBytes: total }), (headers) => (id = requestIdFromHeaders(headers)), meter);
 */
export function meteredFetch(countBytes: boolean, onBytes: (totalBytes: number) => void, onHeaders: (headers: Headers) => void, meter: ResponseMeter, baseFetch: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await baseFetch(input, init);
    onHeaders(response.headers);
    if (!response.body) return response;
    let totalBytes = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        try {
          meter.push(chunk);
        } catch (error) {
          controller.error(error);
          return;
        }
        totalBytes += chunk.byteLength;
        if (countBytes) onBytes(totalBytes);
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
