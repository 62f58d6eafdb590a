import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";
import { FactoryLimits } from "../session-declarations.js";

/**
 * Agent factories (official SDK 1.0 names, experimental there): an extension declares factories when
 * it joins a session (`factories` in `session.resume`, each a {@link FactoryMeta}); an application
 * (or another extension) runs one by name with `session.factory.run`. The runtime keeps the run —
 * its status, progress lines, journal and attempts — and executes the body in the declaring
 * extension (`factory.execute`, a request the runtime sends to it). From inside the body the
 * extension reports progress (`session.factory.log`), memoises steps (`session.factory.journal.*`)
 * and starts sub-agents (`session.factory.agent`). Every change of a run is announced with the
 * ephemeral `factory.run_updated` event (`{ runId, revision }`).
 *
 * The runtime offers these methods only when `COPILOT_CLI_ENABLED_FEATURE_FLAGS` lists
 * `AGENT_FACTORIES`; otherwise they answer `NotAvailable`.
 */

const sessionScoped = { sessionId: SessionId };


/** Where a run is: `pending`/`running` while in flight, then one of the four terminal states. */
export const FactoryRunStatus = z.lazy(() => z.enum(["pending", "running", "completed", "halted", "cancelled", "error"]));
export type FactoryRunStatus = z.infer<typeof FactoryRunStatus>;

/** A run's envelope: its status and, once settled, its result, error or reason. */
export const FactoryRunResult = z.lazy(() => z.looseObject({
  runId: z.string(),
  status: FactoryRunStatus,
  result: z.unknown().optional(),
  error: z.string().optional(),
  reason: z.string().optional(),
}));
export type FactoryRunResult = z.infer<typeof FactoryRunResult>;

/** What a run has consumed. */
export const FactoryRunConsumed = z.lazy(() => z.looseObject({ activeMs: z.number(), subagents: z.number(), nanoAiu: z.number() }));

/** The fields of a run summary (also extended by {@link FactoryRunDetail}). */
const runSummaryObject = () => z.looseObject({
  runId: z.string(),
  factoryName: z.string(),
  description: z.string(),
  status: FactoryRunStatus,
  revision: z.number(),
  createdAt: z.number(),
  startedAt: z.number().nullable(),
  updatedAt: z.number(),
  completedAt: z.number().nullable(),
  currentPhase: z.looseObject({ id: z.string(), ordinal: z.number().nullable() }).nullable(),
  declaredPhaseCount: z.number(),
  liveAgentCount: z.number(),
  totalSpawnedAgentCount: z.number(),
  consumed: FactoryRunConsumed,
  declaredLimits: FactoryLimits,
  approved: FactoryLimits.nullable(),
  observedAt: z.number(),
  activeSegmentStartedAt: z.number().nullable(),
  terminal: z.looseObject({ reason: z.string().optional(), error: z.string().optional(), resultPreview: z.string().optional() }).nullable(),
});
/** A run as `session.factory.listRuns` lists it. */
export const FactoryRunSummary = z.lazy(runSummaryObject);
export type FactoryRunSummary = z.infer<typeof FactoryRunSummary>;

/** One progress line as an extension sends it. */
export const FactoryLogLine = z.lazy(() => z.looseObject({ seq: z.number().int().nonnegative(), kind: z.enum(["log", "phase"]), text: z.string() }));

/** One progress line as the runtime keeps it. */
export const FactoryProgressLine = z.lazy(() => z.looseObject({
  seq: z.number(),
  attempt: z.number(),
  phaseId: z.string().nullable(),
  recordedAt: z.number(),
  kind: z.enum(["log", "phase"]),
  text: z.string(),
}));

/** A page of a run's progress lines. */
export const FactoryProgressPage = z.lazy(() => z.looseObject({
  records: z.array(FactoryProgressLine),
  oldestSeq: z.number().nullable(),
  newestSeq: z.number().nullable(),
  hasMoreOlder: z.boolean(),
  hasMoreNewer: z.boolean(),
  revision: z.number(),
}));
export type FactoryProgressPage = z.infer<typeof FactoryProgressPage>;

/** A phase of a run, as `session.factory.getRunDetail` reports it. */
export const FactoryPhaseObservation = z.lazy(() => z.looseObject({
  id: z.string(),
  ordinal: z.number().nullable(),
  title: z.string(),
  detail: z.string().optional(),
  status: z.enum(["pending", "active", "completed", "skipped"]),
  lastEnteredRunAttempt: z.number(),
  entryCount: z.number(),
  startedAt: z.number().optional(),
  completedAt: z.number().optional(),
  accumulatedActiveMs: z.number(),
  currentActiveMs: z.number(),
  totalAgentCount: z.number(),
  liveAgentCount: z.number(),
}));

/** A sub-agent a run started, as `session.factory.getRunDetail` reports it. */
export const FactoryAgentSummary = z.lazy(() => z.looseObject({
  agentId: z.string(),
  toolCallId: z.string(),
  runId: z.string(),
  phaseId: z.string().nullable(),
  label: z.string(),
  agentType: z.string(),
  status: z.string(),
  requestedModel: z.string().optional(),
  startedAt: z.number().optional(),
  completedAt: z.number().optional(),
  activeMs: z.number(),
}));

/** A run's summary with its phases, sub-agents and latest progress (`session.factory.getRunDetail`). */
export const FactoryRunDetail = z.lazy(() =>
  runSummaryObject().extend({ phases: z.array(FactoryPhaseObservation), agents: z.array(FactoryAgentSummary), progress: FactoryProgressPage }),
);
export type FactoryRunDetail = z.infer<typeof FactoryRunDetail>;

/** Options of one sub-agent a factory body starts. */
export const FactoryAgentOptions = z.lazy(() => z.looseObject({
  label: z.string().optional(),
  schema: z.unknown().optional(),
  model: z.string().optional(),
  reasoningEffort: z.string().optional(),
  contextTier: z.enum(["default", "long_context"]).optional(),
  agent: z.string().optional(),
}));
export type FactoryAgentOptions = z.infer<typeof FactoryAgentOptions>;

const runScoped = () => ({ ...sessionScoped, runId: z.string().min(1) });
const executionScoped = () => ({ ...runScoped(), executionToken: z.string().min(1) });

/** `session.factory.run`: starts a declared factory; answers the run's envelope (usually `running`). */
export const SessionFactoryRun = defineRequest(
  "session.factory.run",
  () => z.looseObject({ ...sessionScoped, name: z.string().min(1), args: z.unknown(), options: z.looseObject({ limits: FactoryLimits.optional(), resumeFromRunId: z.string().optional() }).optional() }),
  () => FactoryRunResult,
);

/** `session.factory.resume`: runs a failed, halted or cancelled run again, with its name, arguments and journal. */
export const SessionFactoryResume = defineRequest(
  "session.factory.resume",
  () => z.looseObject({ ...runScoped(), limits: FactoryLimits.optional() }),
  () => z.looseObject({ factoryName: z.string(), run: FactoryRunResult }),
);

/** `session.factory.getRun`: a run's current envelope. */
export const SessionFactoryGetRun = defineRequest("session.factory.getRun", () => z.looseObject(runScoped()), () => FactoryRunResult);

/** `session.factory.listRuns`: the session's runs, oldest first. */
export const SessionFactoryListRuns = defineRequest(
  "session.factory.listRuns",
  () => z.looseObject({ ...sessionScoped, afterSeq: z.number().optional(), beforeSeq: z.number().optional(), limit: z.number().int().positive().optional() }),
  () => z.looseObject({ runs: z.array(FactoryRunSummary) }),
);

/** `session.factory.getRunDetail`: a run's summary with its phases, sub-agents and latest progress. */
export const SessionFactoryGetRunDetail = defineRequest(
  "session.factory.getRunDetail",
  () => z.looseObject(runScoped()),
  () => FactoryRunDetail,
);

/** `session.factory.getRunProgress`: pages a run's progress lines (forward from `afterSeq`, backward from `beforeSeq`, or the latest). */
export const SessionFactoryGetRunProgress = defineRequest(
  "session.factory.getRunProgress",
  () => z.looseObject({ ...runScoped(), phaseId: z.string().optional(), afterSeq: z.number().optional(), beforeSeq: z.number().optional(), limit: z.number().int().positive().optional() }),
  () => FactoryProgressPage,
);

/** `session.factory.cancel`: stops a run (its body is asked to abort, its sub-agents are stopped); answers the terminal envelope. */
export const SessionFactoryCancel = defineRequest("session.factory.cancel", () => z.looseObject(runScoped()), () => FactoryRunResult);

/** `session.factory.log`: progress lines from a running body. */
export const SessionFactoryLog = defineRequest("session.factory.log", () => z.looseObject({ ...executionScoped(), lines: z.array(FactoryLogLine) }), () => z.looseObject({}));

/** `session.factory.agent`: a running body starts one sub-agent and waits for its answer. */
export const SessionFactoryAgent = defineRequest(
  "session.factory.agent",
  () => z.looseObject({ ...sessionScoped, factoryRunId: z.string().min(1), executionToken: z.string().min(1), prompt: z.string(), opts: FactoryAgentOptions }),
  () => z.looseObject({ result: z.unknown().optional() }),
);

/** `session.factory.journal.get`: a memoised step result of the run, if recorded. */
export const SessionFactoryJournalGet = defineRequest(
  "session.factory.journal.get",
  () => z.looseObject({ ...executionScoped(), key: z.string() }),
  () => z.looseObject({ hit: z.boolean(), resultJson: z.unknown().optional() }),
);

/** `session.factory.journal.put`: records a step result for the run (kept across resumes). */
export const SessionFactoryJournalPut = defineRequest(
  "session.factory.journal.put",
  () => z.looseObject({ ...executionScoped(), key: z.string(), resultJson: z.unknown() }),
  () => z.looseObject({}),
);

/** `factory.execute` (runtime → declaring extension): runs the body of one attempt; answers `{ result? }`. */
export const FactoryExecute = defineRequest(
  "factory.execute",
  () => z.looseObject({ ...executionScoped(), name: z.string() }).extend({ args: z.unknown() }),
  () => z.looseObject({ result: z.unknown().optional() }).nullish(),
);

/** `factory.abort` (runtime → declaring extension): asks the body of one attempt (`executionToken`) to stop. */
export const FactoryAbort = defineRequest("factory.abort", () => z.looseObject(executionScoped()), () => z.unknown());

/** The client → runtime requests of this file, for `clientToServerRequests`. */
export const factoryRequests = [
  SessionFactoryRun,
  SessionFactoryResume,
  SessionFactoryGetRun,
  SessionFactoryListRuns,
  SessionFactoryGetRunDetail,
  SessionFactoryGetRunProgress,
  SessionFactoryCancel,
  SessionFactoryLog,
  SessionFactoryAgent,
  SessionFactoryJournalGet,
  SessionFactoryJournalPut,
] as const;
