import type { AgentMode } from "@tandem/protocol";

/**
 * The runtime answers a client that opened with `connect` (as this SDK does) in the official SDK
 * 1.0's shapes, and the reference CLI answers every client so; this SDK keeps the 0.2.0 API it
 * offers. These read either shape into the 0.2.0 one.
 */

/** `ping`'s answer with the time in epoch ms (1.0 shape: an ISO 8601 string). */
export interface PingResponse {
  message: string;
  timestamp: number;
  protocolVersion: number;
}

/** Reads a `ping` answer of either shape. */
export function readPing(answer: { message: string; timestamp: number | string; protocolVersion: number }): PingResponse {
  const { timestamp } = answer;
  return { ...answer, timestamp: typeof timestamp === "string" ? Date.parse(timestamp) : timestamp };
}

/** Reads a `session.mode.get` answer of either shape (1.0: the bare mode). */
export function readModeGet(answer: { mode: AgentMode } | AgentMode): { mode: AgentMode } {
  return typeof answer === "string" ? { mode: answer } : answer;
}

/**
 * Reads a `session.mode.set` answer of either shape; 1.0's (`{ status, modelChanged, modeApplied }`)
 * does not carry the mode, which is the requested one unless `modeApplied` is false.
 */
export function readModeSet(answer: { mode: AgentMode } | { modeApplied?: boolean | undefined }, requested: AgentMode, current: () => Promise<{ mode: AgentMode }>): Promise<{ mode: AgentMode }> | { mode: AgentMode } {
  if ("mode" in answer) return { mode: answer.mode };
  return answer.modeApplied === false ? current() : { mode: requested };
}
