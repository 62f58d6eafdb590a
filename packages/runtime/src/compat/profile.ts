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
 * A write permission request as 1.0.x declares it: with `canOfferSessionApproval`, which its schema
 * requires (0.2.0's has no such field). Tandem holds an `approve-for-session` of writes, so it may
 * be offered.
 */
function withWriteSessionApproval(data: EventData): EventData {
  const request = data.permissionRequest as { kind?: unknown; canOfferSessionApproval?: unknown } | undefined;
  if (request?.kind !== "write" || request.canOfferSessionApproval !== undefined) return data;
  return { ...data, permissionRequest: { ...request, canOfferSessionApproval: true } };
}

/**
 * How 1.0.x clients want an event's data where their declared types differ from what the 0.2.0
 * generation's runtime sent (checked against the installed SDK's types by
 * `test/e2e/current-sdk-types.test.ts`): the abort reason is an enum (`user_initiated`), a write
 * permission request says whether a session approval may be offered, and fields the 1.0.x types do
 * not have are left out.
 */
const currentEventData: ReadonlyMap<string, (data: EventData) => EventData> = new Map([
  ["abort", (data: EventData) => (data.reason === "user initiated" ? { ...data, reason: "user_initiated" } : data)],
  ["permission.requested", withWriteSessionApproval],
  ["assistant.usage", ({ quotaSnapshots: _quotaSnapshots, ...data }: EventData) => data],
  ["session.shutdown", ({ totalPremiumRequests: _totalPremiumRequests, ...data }: EventData) => data],
]);

/**
 * A sub-agent's events that 0.2.0 clients do not get: 1.0.10 announced a sub-agent with
 * `subagent.started` / `subagent.completed` alone and sent, of its run, the model's messages and
 * usage and the tool calls. The opening of the sub-agent's own conversation (its agent, model,
 * configuration, prompt as a `user.message` and tool set) and its turns are 1.0.x's: the event
 * reference has `subagent.selected` for an agent chosen for the user's request and `user.message`
 * for what the user sent, neither of which a `task` run is, and 0.2.0's schema has no
 * `subagent.configured`. The sub-agent's system prompt (`system.message`, "a system or developer
 * prompt was injected into the conversation") and context-window reports stay.
 */
const legacyHiddenSubAgentEvents: ReadonlySet<string> = new Set([
  "subagent.selected",
  "session.model_change",
  "subagent.configured",
  "user.message",
  "session.tools_updated",
  "assistant.turn_start",
  "assistant.turn_end",
]);

/** How a run that did not end on its own (a user abort, a rejected tool call) ends for a generation. */
export interface RunEndProfile {
  /** Whether the model call an abort interrupted still gets its `assistant.turn_end` (1.0.x; 1.0.10 sends none). */
  readonly closesAbortedTurn: boolean;
  /**
   * Whether a rejected tool call ends the run as a user cancellation, with `abort` and the
   * `session.info` cancellation notice (1.0.x); 1.0.10 just ends the turn.
   */
  readonly rejectionAborts: boolean;
  /**
   * Whether a user abort is followed by `pending_messages.modified`, once with the `abort` and once
   * more after the interrupted turn's `assistant.turn_end` (1.0.x, as 1.0.102; 1.0.10 sends none).
   */
  readonly abortRereadsQueue: boolean;
}

/** How a sub-agent run (the `task` tool) shows for a generation. */
export interface SubAgentProfile {
  /**
   * Where `subagent.started` takes its display name and description: the agent's own (1.0.10, and
   * the event reference's "human-readable display name" of the agent), or the `task` call's `name`
   * and `description` when given (1.0.x).
   */
  readonly identity: "agent" | "task-call";
  /** Whether a running sub-agent counts as one of the session's tasks (`session.background_tasks_changed` around it). */
  readonly isBackgroundTask: boolean;
  /** Whether the sub-agent's model requests stream even when the session does not (1.0.10's); its deltas still follow the session's setting. */
  readonly streamsRequests: boolean;
  /** Tools a sub-agent is never given: `list_bash` for 0.2.0 (1.0.10's explore agent had none; 1.0.x's has it). */
  readonly withheldTools: ReadonlySet<string>;
  /**
   * Whether the sub-agent's prompt reaches its model wrapped in `<current_datetime>`, as a user's
   * message is (1.0.x: 1.0.102 and 1.0.85 do); 1.0.10 sent the raw prompt.
   */
  readonly wrapsPrompt: boolean;
}

/** How the file tools' event diffs are drawn for a generation (see `tools/builtin/diff.ts`). */
export interface FileDiffProfile {
  /**
   * Whether a created file's diff counts the empty text after its final newline as one more added
   * line: 1.0.10 draws `"a\nb\n"` as `+1,3` (`+a`, `+b`, `+`); 1.0.102 and the runtime bundled with
   * SDK 1.0.x as `+1,2`.
   */
  readonly createdCountsFinalEmptyLine: boolean;
}

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
  /**
   * Whether the permission requests of one round of parallel tool calls go out one at a time, in
   * call order (0.2.0, as 1.0.10 did), or each as soon as its call reaches it, all open at once
   * (1.0.x, whose runtime asks them concurrently).
   */
  readonly permissionsInCallOrder: boolean;
  /**
   * Whether `session.setForeground` picks the foreground session (0.2.0, as 1.0.10 took it; the
   * extensions follow it) or answers that a runtime without a terminal UI has no foreground to
   * switch (1.0.x, as the runtime its clients were recorded against does in headless mode).
   */
  readonly setsForegroundWithoutUi: boolean;
  /**
   * Whether `session.resume` is followed by the resumed session's tool set and skills
   * (`session.tools_updated`, `session.skills_loaded`: 1.0.x); 1.0.10 sends neither there.
   */
  readonly announcesToolsAtResume: boolean;
  /** The agent modes in which `task_complete` is offered: autopilot for 0.2.0 (1.0.10 had no such tool), plan and autopilot for 1.0.x. */
  readonly taskCompleteModes: ReadonlySet<string>;
  /** How a user abort or a rejected tool call ends the run. */
  readonly runEnd: RunEndProfile;
  /** How a sub-agent run shows: its name, whether it is a background task, whether its requests stream. */
  readonly subAgents: SubAgentProfile;
  /** How the diffs of write permission requests and file tool results are drawn. */
  readonly fileDiffs: FileDiffProfile;
  /**
   * Whether the first message after the session entered plan mode tells the model so in a
   * `<mode_changed_notice>`, followed by `session.mode_notice_delivered` (1.0.x, as 1.0.102); 1.0.10
   * only marked the prompt `[[PLAN]]`, and 0.2.0's schema has no such event.
   */
  readonly deliversModeNotices: boolean;
  /**
   * The `thinking_budget` of a Copilot API request for `model`, or undefined for none: 1.0.10 sent
   * 1024 for `claude-sonnet-4` (the only model the facts record it for); 1.0.x sends none.
   */
  thinkingBudget(model: string): number | undefined;
  /**
   * Whether this generation's clients get an event at all; one they do not get is neither sent nor
   * stored. 0.2.0 gets no `assistant.idle` (neither its schema nor the event reference has it) and
   * none of the sub-agent events 1.0.10 did not send (see `legacyHiddenSubAgentEvents`).
   */
  sendsEvent(type: string, data: EventData): boolean;
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

/** {@link CompatProfile.sendsEvent} for 0.2.0. */
function sentToLegacy(type: string, data: EventData): boolean {
  if (type === "assistant.idle") return false;
  return typeof data.parentToolCallId !== "string" || !legacyHiddenSubAgentEvents.has(type);
}

const legacyProfile: CompatProfile = {
  generation: "0.2",
  offersReportIntent: true,
  permissionsInCallOrder: true,
  setsForegroundWithoutUi: true,
  announcesToolsAtResume: false,
  taskCompleteModes: new Set<string>(["autopilot"]),
  runEnd: { closesAbortedTurn: false, rejectionAborts: false, abortRereadsQueue: false },
  subAgents: { identity: "agent", isBackgroundTask: false, streamsRequests: true, withheldTools: new Set(["list_bash"]), wrapsPrompt: false },
  fileDiffs: { createdCountsFinalEmptyLine: true },
  deliversModeNotices: false,
  thinkingBudget: (model) => (model === "claude-sonnet-4" ? 1024 : undefined),
  sendsEvent: sentToLegacy,
  shapeEvent: () => undefined,
  pingResult: (message, protocolVersion, now) => ({ message, timestamp: now, protocolVersion }),
  modeGetResult: (mode) => ({ mode }),
  modeSetResult: (mode) => ({ mode }),
  skillsReloadResult: () => ({}),
};

const currentProfile: CompatProfile = {
  generation: "1.0",
  offersReportIntent: false,
  permissionsInCallOrder: false,
  setsForegroundWithoutUi: false,
  announcesToolsAtResume: true,
  taskCompleteModes: new Set<string>(["plan", "autopilot"]),
  runEnd: { closesAbortedTurn: true, rejectionAborts: true, abortRereadsQueue: true },
  subAgents: { identity: "task-call", isBackgroundTask: true, streamsRequests: false, withheldTools: new Set(), wrapsPrompt: true },
  fileDiffs: { createdCountsFinalEmptyLine: false },
  deliversModeNotices: true,
  thinkingBudget: () => undefined,
  sendsEvent: () => true,
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
