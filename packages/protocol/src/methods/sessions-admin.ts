import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

const sessionScoped = { sessionId: SessionId };
const empty = () => z.looseObject({});
/** Params of a method without params: the official SDK sends `{}`; an absent or empty-array params counts as `{}`. */
const noParams = () => z.preprocess((value) => (value === undefined || value === null || Array.isArray(value) ? {} : value), z.looseObject({}));

/** Where a session ran: its working directory and (when known) its git root, repository and branch. */
export const SessionsContext = z.looseObject({
  cwd: z.string(),
  gitRoot: z.string().optional(),
  repository: z.string().optional(),
  hostType: z.string().optional(),
  branch: z.string().optional(),
});

/** A local session as the `sessions.*` methods describe it (`isRemote` is always false in Tandem). */
export const LocalSessionEntry = z.lazy(() => z.looseObject({
  sessionId: z.string(),
  startTime: z.string(),
  modifiedTime: z.string(),
  summary: z.string().optional(),
  name: z.string().optional(),
  clientName: z.string().optional(),
  isRemote: z.literal(false),
  isDetached: z.boolean().optional(),
  context: SessionsContext.optional(),
  mcTaskId: z.string().optional(),
}));

/** `sessions.list`: the stored sessions (`source: "remote"` gives none: Tandem has no remote sessions). */
export const SessionsList = defineRequest(
  "sessions.list",
  () => z.preprocess(
    (value) => (value === undefined || value === null || Array.isArray(value) ? {} : value),
    z.looseObject({
      source: z.enum(["local", "remote", "all"]).optional(),
      metadataLimit: z.number().int().nonnegative().optional(),
      filter: z.looseObject({ cwd: z.string().optional(), gitRoot: z.string().optional(), repository: z.string().optional(), branch: z.string().optional() }).optional(),
      includeDetached: z.boolean().optional(),
      throwOnError: z.boolean().optional(),
    }),
  ),
  () => z.looseObject({ sessions: z.array(LocalSessionEntry) }),
);

/** `sessions.findByPrefix`: the one stored session whose id starts with `prefix` (none when no or several match). */
export const SessionsFindByPrefix = defineRequest(
  "sessions.findByPrefix",
  () => z.looseObject({ prefix: z.string().min(1) }),
  () => z.looseObject({ sessionId: z.string().optional() }),
);

/** `sessions.findByTaskId`: the session linked to a task id (Tandem sessions carry none). */
export const SessionsFindByTaskId = defineRequest(
  "sessions.findByTaskId",
  () => z.looseObject({ taskId: z.string() }),
  () => z.looseObject({ sessionId: z.string().optional() }),
);

/** `sessions.getLastForContext`: the most recently modified stored session that ran in `context`. */
export const SessionsGetLastForContext = defineRequest(
  "sessions.getLastForContext",
  () => z.looseObject({ context: SessionsContext.partial().optional() }),
  () => z.looseObject({ sessionId: z.string().optional() }),
);

/** `sessions.getSizes`: bytes on disk per stored session. */
export const SessionsGetSizes = defineRequest("sessions.getSizes", noParams, () => z.looseObject({ sizes: z.record(z.string(), z.number()) }));

/** `sessions.checkInUse`: which of the ids are open in this runtime now. */
export const SessionsCheckInUse = defineRequest(
  "sessions.checkInUse",
  () => z.looseObject({ sessionIds: z.array(z.string()) }),
  () => z.looseObject({ inUse: z.array(z.string()) }),
);

/** `sessions.save`: writes an open session's events and workspace info now (durably). */
export const SessionsSave = defineRequest("sessions.save", () => z.looseObject(sessionScoped), empty);

/** `sessions.close`: closes an open session (as when its last client leaves); its files stay. */
export const SessionsClose = defineRequest("sessions.close", () => z.looseObject(sessionScoped), empty);

/** `sessions.releaseLock`: gives up this runtime's hold on a closed session (its cluster lease). */
export const SessionsReleaseLock = defineRequest("sessions.releaseLock", () => z.looseObject(sessionScoped), empty);

/** `sessions.bulkDelete`: deletes sessions; the bytes freed per id (0 for an unknown id). */
export const SessionsBulkDelete = defineRequest(
  "sessions.bulkDelete",
  () => z.looseObject({ sessionIds: z.array(SessionId) }),
  () => z.looseObject({ freedBytes: z.record(z.string(), z.number()) }),
);

/** `sessions.pruneOld`: deletes (or with `dryRun` only lists) closed sessions not modified for `olderThanDays` days. */
export const SessionsPruneOld = defineRequest(
  "sessions.pruneOld",
  () => z.looseObject({
    olderThanDays: z.number().nonnegative(),
    dryRun: z.boolean().optional(),
    includeNamed: z.boolean().optional(),
    excludeSessionIds: z.array(z.string()).optional(),
  }),
  () => z.looseObject({
    deleted: z.array(z.string()),
    candidates: z.array(z.string()),
    skipped: z.array(z.string()),
    freedBytes: z.number(),
    dryRun: z.boolean(),
  }),
);

/** `sessions.enrichMetadata`: fills in what the store knows of each session (summary, name, context, times). */
export const SessionsEnrichMetadata = defineRequest(
  "sessions.enrichMetadata",
  () => z.looseObject({ sessions: z.array(LocalSessionEntry) }),
  () => z.looseObject({ sessions: z.array(LocalSessionEntry) }),
);

/** How `sessions.open` opens a session (`kind`); Tandem opens local sessions only. */
export const SessionsOpenParams = z.lazy(() => z.looseObject({
  kind: z.enum(["create", "resume", "resumeLast", "attach", "remote", "cloud", "handoff"]),
  sessionId: z.string().optional(),
  context: SessionsContext.partial().optional(),
}));

/** `sessions.open`: resumes a session (by id, or the last one of a context) and says how it went. */
export const SessionsOpen = defineRequest(
  "sessions.open",
  () => SessionsOpenParams,
  () => z.looseObject({
    status: z.enum(["created", "resumed", "not_found", "connected", "handed_off"]),
    sessionId: z.string().optional(),
  }),
);

/** `sessions.connect`: connects to a remote session (Tandem has none: a typed "not available" error). */
export const SessionsConnect = defineRequest("sessions.connect", () => z.looseObject({ sessionId: z.string() }), empty);

/** `sessions.setAdditionalPlugins`: plugins for new sessions (Tandem loads no plugins: only an empty list is accepted). */
export const SessionsSetAdditionalPlugins = defineRequest("sessions.setAdditionalPlugins", () => z.looseObject({ plugins: z.array(z.unknown()) }), empty);

/** `sessions.reloadPluginHooks`: re-reads a session's plugin and repository hook files (Tandem's hooks come from clients). */
export const SessionsReloadPluginHooks = defineRequest(
  "sessions.reloadPluginHooks",
  () => z.looseObject({ ...sessionScoped, deferRepoHooks: z.boolean().optional() }),
  empty,
);

/** `sessions.loadDeferredRepoHooks`: loads repository hooks held back at start; what they contributed. */
export const SessionsLoadDeferredRepoHooks = defineRequest(
  "sessions.loadDeferredRepoHooks",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ startupPrompts: z.array(z.string()), hookCount: z.number() }),
);

/** The server-scoped `sessions.*` requests Tandem serves. */
export const sessionsAdminRequests = [
  SessionsList,
  SessionsFindByPrefix,
  SessionsFindByTaskId,
  SessionsGetLastForContext,
  SessionsGetSizes,
  SessionsCheckInUse,
  SessionsSave,
  SessionsClose,
  SessionsReleaseLock,
  SessionsBulkDelete,
  SessionsPruneOld,
  SessionsEnrichMetadata,
  SessionsOpen,
  SessionsConnect,
  SessionsSetAdditionalPlugins,
  SessionsReloadPluginHooks,
  SessionsLoadDeferredRepoHooks,
] as const;
