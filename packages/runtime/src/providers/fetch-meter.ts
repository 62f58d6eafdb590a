/**
 * Wraps `fetch` so the caller learns how many response bytes have arrived (for
 * `assistant.streaming_delta` and the stream-idle clock) and sees the response headers (for
 * request tracing ids).
 *
 * @example
 * const fetchImpl = meteredFetch((total) => onPart({ type: "bytes", totalBytes: total }), (headers) => (id = requestIdFromHeaders(headers)));
 */
export function meteredFetch(countBytes: boolean, onBytes: (totalBytes: number) => void, onHeaders: (headers: Headers) => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    onHeaders(response.headers);
    if (!response.body || !countBytes) return response;
    let totalBytes = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        totalBytes += chunk.byteLength;
        onBytes(totalBytes);
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
