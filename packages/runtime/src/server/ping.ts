/** The `ping` answer: `pong` (or `pong: <message>`), the time and the protocol version. */
export function pingResult(params: unknown, protocolVersion: number): { message: string; timestamp: number; protocolVersion: number } {
  const message = params && typeof params === "object" && typeof (params as { message?: unknown }).message === "string" ? (params as { message: string }).message : undefined;
  return { message: message ? `pong: ${message}` : "pong", timestamp: Date.now(), protocolVersion };
}
