import type { CompatProfile, PingAnswer } from "../compat/profile.js";

export type { PingAnswer };

/**
 * The `ping` answer: `pong` (or `pong: <message>`; a null message is none), the time and the
 * protocol version, the time in the form the client's generation expects (see `CompatProfile`).
 */
export function pingResult(params: unknown, protocolVersion: number, profile: CompatProfile): PingAnswer {
  const message = params && typeof params === "object" && typeof (params as { message?: unknown }).message === "string" ? (params as { message: string }).message : undefined;
  const text = message ? `pong: ${message}` : "pong";
  return profile.pingResult(text, protocolVersion, Date.now());
}
