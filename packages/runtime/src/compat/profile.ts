import type { AgentMode } from "@tandem/protocol";

/**
 * The two generations of the official Copilot SDK that drive Tandem: `"0.2"` (SDK 0.2.0, whose
 * reference runtime is 1.0.10; it opens with `ping`) and `"1.0"` (SDK 1.0.x, and `@tandem/sdk`;
 * they open with `connect`).
 */
export type ClientGeneration = "0.2" | "1.0";

/** `ping`'s answer: the time is epoch ms for 0.2.0, an ISO 8601 string for 1.0.x. */
export type PingAnswer = { message: string; timestamp: number; protocolVersion: number } | { message: string; timestamp: string; protocolVersion: number };

/** One event's data as the runtime emits it (the 0.2.0 generation's form). */
export type EventData = Record<string, unknown>;

/** An event as a generation wants it, when it differs from what was emitted: its data, and the sub-agent it came from. */
export interface ShapedEvent {
  data: EventData;
  /** The envelope's `agentId` (1.0.x): the sub-agent run (its task call's id) the event belongs to. */
  agentId?: string;
}

/**
 * The event types whose 1.0.x data declares `parentToolCallId`; on the others, 1.0.x names the
 * sub-agent in the envelope (`agentId`) only.
 */
const parentToolCallDeclared: ReadonlySet<string> = new Set([
  "assistant.message",
  "assistant.message_delta",
  "assistant.usage",
  "tool.execution_start",
  "tool.execution_complete",
  "hook.start",
  "hook.end",
]);

/**
 * How 1.0.x clients want an event's data where their declared types differ from what the 0.2.0
 * generation's runtime sent (checked against the installed SDK's types by
 * `test/e2e/current-sdk-types.test.ts`): the abort reason is an enum (`user_initiated`), and fields
 * the 1.0.x types do not have are left out.
 */
const currentEventData: ReadonlyMap<string, (data: EventData) => EventData> = new Map([
  ["abort", (data: EventData) => (data.reason === "user initiated" ? { ...data, reason: "user_initiated" } : data)],
  ["assistant.usage", ({ quotaSnapshots: _quotaSnapshots, ...data }: EventData) => data],
  ["session.shutdown", ({ totalPremiumRequests: _totalPremiumRequests, ...data }: EventData) => data],
]);

/**
 * Everything that differs between the two client generations, in one place: the handshake picks a
 * profile for each connection, a session keeps the profile of the client that created or last
 * resumed it, and the runtime asks the profile instead of testing the generation.
 *
 * @example
 * const profile = profileFor(client.generation);
 * const shaped = profile.shapeEvent("abort", { reason: "user initiated" });
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
  /**
   * An event for this generation, or undefined when it goes out as emitted. The runtime emits the
   * 0.2.0 form (`abort {reason: "user initiated"}`, a sub-agent's events with `parentToolCallId` in
   * their data); 1.0.x gets its enum spellings, no data fields its types do not declare, and the
   * sub-agent in the envelope's `agentId`.
   */
  shapeEvent(type: string, data: EventData): ShapedEvent | undefined;
  /** `ping`: `pong` (or `pong: <message>`), the time in this generation's form, the protocol version. */
  pingResult(text: string, protocolVersion: number, now: number): PingAnswer;
  /** `session.mode.get`: 0.2.0 gets `{ mode }`, 1.0.x the bare mode. */
  modeGetResult(mode: AgentMode): { mode: AgentMode } | AgentMode;
  /** `session.mode.set`: 0.2.0 gets `{ mode }`; 1.0.x an outcome about the model (a mode change never switches it). */
  modeSetResult(mode: AgentMode): { mode: AgentMode } | { status: string; modelChanged: boolean; modeApplied: boolean };
  /** `session.skills.reload`: 0.2.0 gets `{}`, 1.0.x the (empty) load diagnostics. */
  skillsReloadResult(): Record<string, never> | { warnings: string[]; errors: string[] };
}

/** {@link CompatProfile.shapeEvent} for 1.0.x: nothing is allocated for an event that needs no change. */
function shapeForCurrent(type: string, emitted: EventData): ShapedEvent | undefined {
  const adapt = currentEventData.get(type);
  const parentToolCallId = emitted.parentToolCallId;
  if (!adapt && typeof parentToolCallId !== "string") return undefined;
  let data = adapt ? adapt(emitted) : emitted;
  if (typeof parentToolCallId !== "string") return { data };
  if (!parentToolCallDeclared.has(type)) {
    const { parentToolCallId: _moved, ...rest } = data;
    data = rest;
  }
  return { data, agentId: parentToolCallId };
}

const legacyProfile: CompatProfile = {
  generation: "0.2",
  offersReportIntent: true,
  announcesContextAtStart: false,
  shapeEvent: () => undefined,
  pingResult: (message, protocolVersion, now) => ({ message, timestamp: now, protocolVersion }),
  modeGetResult: (mode) => ({ mode }),
  modeSetResult: (mode) => ({ mode }),
  skillsReloadResult: () => ({}),
};

const currentProfile: CompatProfile = {
  generation: "1.0",
  offersReportIntent: false,
  announcesContextAtStart: true,
  shapeEvent: shapeForCurrent,
  pingResult: (message, protocolVersion, now) => ({ message, timestamp: new Date(now).toISOString(), protocolVersion }),
  modeGetResult: (mode) => mode,
  modeSetResult: () => ({ status: "unchanged", modelChanged: false, modeApplied: true }),
  skillsReloadResult: () => ({ warnings: [], errors: [] }),
};

/**
 * The profile of a client generation.
 *
 * @example
 * profileFor("1.0").shapeEvent("abort", { reason: "user initiated" }); // { data: { reason: "user_initiated" } }
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

/**
 * The sub-agent run an event belongs to, in either generation's form: the envelope's `agentId`
 * (1.0.x) or the data's `parentToolCallId` (0.2.0); undefined for the main agent's events.
 *
 * @example
 * if (subAgentRunOf(event) !== undefined) return; // not the session's own conversation
 */
export function subAgentRunOf(event: { agentId?: unknown; data?: unknown }): string | undefined {
  if (typeof event.agentId === "string") return event.agentId;
  const parentToolCallId = (event.data as { parentToolCallId?: unknown } | undefined)?.parentToolCallId;
  return typeof parentToolCallId === "string" ? parentToolCallId : undefined;
}
