/** The `ping` answer: a 0.2.0 client gets the time in epoch ms, a current one as an ISO 8601 string. */
export type PingAnswer = { message: string; timestamp: number; protocolVersion: number } | { message: string; timestamp: string; protocolVersion: number };

/**
 * The `ping` answer: `pong` (or `pong: <message>`; a null message is none), the time and the
 * protocol version. Current clients (they opened with `connect`) get the time as an ISO string.
 */
export function pingResult(params: unknown, protocolVersion: number, currentClient: boolean): PingAnswer {
  const message = params && typeof params === "object" && typeof (params as { message?: unknown }).message === "string" ? (params as { message: string }).message : undefined;
  const text = message ? `pong: ${message}` : "pong";
  const now = Date.now();
  return currentClient ? { message: text, timestamp: new Date(now).toISOString(), protocolVersion } : { message: text, timestamp: now, protocolVersion };
}
