/** The console's HTTP API, with the access token from the page. */

const token = document.querySelector<HTMLMetaElement>('meta[name="tandem-token"]')?.content ?? "";

/** The page's access token (for URLs that cannot carry the header: the event stream, the highlighter). */
export const accessToken = token;

/** An API call that failed: the HTTP status and the error's type as the server named it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** Calls the API; rejects with an {@link ApiError} on a non-2xx answer (409 is returned, not thrown). */
export async function api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/api/${path}`, {
    method,
    headers: { "x-tandem-token": token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const payload = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok && response.status !== 409) {
    throw new ApiError(response.status, String(payload.type ?? `HTTP ${response.status}`), String(payload.error ?? response.statusText));
  }
  return payload as T;
}

/** Opens the session's event stream (SSE). */
export function openStream(sessionId: string, onMessage: (message: unknown) => void): EventSource {
  const source = new EventSource(`/api/sessions/${encodeURIComponent(sessionId)}/stream?token=${encodeURIComponent(token)}`);
  source.onmessage = (event) => onMessage(JSON.parse(event.data as string));
  return source;
}
