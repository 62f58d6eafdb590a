import type { AgentMode } from "@tandem/protocol";

/**
 * The two generations of the official Copilot SDK that drive Tandem: `"0.2"` (SDK 0.2.0, whose
 * reference runtime is 1.0.10; it opens with `ping`) and `"1.0"` (SDK 1.0.x, and `@tandem/sdk`;
 * they open with `connect`).
 */
export type ClientGeneration = "0.2" | "1.0";

/** `ping`'s answer: the time is epoch ms for 0.2.0, an ISO 8601 string for 1.0.x. */
export type PingAnswer = { message: string; timestamp: number; protocolVersion: number } | { message: string; timestamp: string; protocolVersion: number };

/** Why a turn was cancelled, as the runtime knows it (each generation spells it its own way). */
export type CancelCause = "user" | "persistence failure";

/**
 * Everything that differs between the two client generations, in one place: the handshake picks a
 * profile for each connection, a session keeps the profile of the client that created or last
 * resumed it, and the runtime asks the profile instead of testing the generation.
 *
 * @example
 * const profile = profileFor(client.generation);
 * emitter.emit("abort", { reason: profile.abortReason("user") });
 */
export interface CompatProfile {
  readonly generation: ClientGeneration;
  /**
   * Whether `report_intent` is offered when neither the session nor the runtime says: 0.2.0's
   * runtime offered it; the runtime 1.0.x clients were recorded against does not.
   */
  readonly offersReportIntent: boolean;
  /** Whether `session.context_changed` follows `session.start` at create (1.0.x) or only a real change (0.2.0). */
  readonly announcesContextAtStart: boolean;
  /** `abort.reason`: 0.2.0's words (`user initiated`) or 1.0.x's enum (`user_initiated`). */
  abortReason(cause: CancelCause): string;
  /** `ping`: `pong` (or `pong: <message>`), the time in this generation's form, the protocol version. */
  pingResult(text: string, protocolVersion: number, now: number): PingAnswer;
  /** `session.mode.get`: 0.2.0 gets `{ mode }`, 1.0.x the bare mode. */
  modeGetResult(mode: AgentMode): { mode: AgentMode } | AgentMode;
  /** `session.mode.set`: 0.2.0 gets `{ mode }`; 1.0.x an outcome about the model (a mode change never switches it). */
  modeSetResult(mode: AgentMode): { mode: AgentMode } | { status: string; modelChanged: boolean; modeApplied: boolean };
  /** `session.skills.reload`: 0.2.0 gets `{}`, 1.0.x the (empty) load diagnostics. */
  skillsReloadResult(): Record<string, never> | { warnings: string[]; errors: string[] };
}

const legacyProfile: CompatProfile = {
  generation: "0.2",
  offersReportIntent: true,
  announcesContextAtStart: false,
  abortReason: (cause) => (cause === "user" ? "user initiated" : cause),
  pingResult: (message, protocolVersion, now) => ({ message, timestamp: now, protocolVersion }),
  modeGetResult: (mode) => ({ mode }),
  modeSetResult: (mode) => ({ mode }),
  skillsReloadResult: () => ({}),
};

const currentProfile: CompatProfile = {
  generation: "1.0",
  offersReportIntent: false,
  announcesContextAtStart: true,
  abortReason: (cause) => (cause === "user" ? "user_initiated" : cause),
  pingResult: (message, protocolVersion, now) => ({ message, timestamp: new Date(now).toISOString(), protocolVersion }),
  modeGetResult: (mode) => mode,
  modeSetResult: () => ({ status: "unchanged", modelChanged: false, modeApplied: true }),
  skillsReloadResult: () => ({ warnings: [], errors: [] }),
};

/**
 * The profile of a client generation.
 *
 * @example
 * profileFor("0.2").abortReason("user"); // "user initiated"
 */
export function profileFor(generation: ClientGeneration): CompatProfile {
  return generation === "1.0" ? currentProfile : legacyProfile;
}

/**
 * The generation of a client from its opening: a client whose first request was `connect` is 1.0.x.
 *
 * @example
 * const generation = generationOf(openedWithConnect);
 */
export function generationOf(openedWithConnect: boolean): ClientGeneration {
  return openedWithConnect ? "1.0" : "0.2";
}

/** Reads a recorded generation (from a session's `workspace.yaml`); anything else is none. */
export function parseGeneration(value: unknown): ClientGeneration | undefined {
  return value === "0.2" || value === "1.0" ? value : undefined;
}
