import { z } from "zod";
import { ReasoningEffort, SessionId } from "../common.js";
import { PermissionPolicyRule } from "./permission-policy.js";
import { defineRequest } from "../method.js";

/**
 * The session-level methods of the current official SDK (1.0.x) an application uses most: the
 * session's name, runtime option updates, the event log by cursor, the pending-message queue,
 * approve-all, and forking. Names and shapes follow the 1.0.x `rpc.d.ts`.
 */

const sessionScoped = { sessionId: SessionId };
const Success = z.looseObject({ success: z.boolean() });
const Empty = z.looseObject({});

/** `session.name.get`: the session's friendly name (set by the user, or the auto title), or null. */
export const SessionNameGet = defineRequest("session.name.get", () => z.looseObject(sessionScoped), () => z.looseObject({ name: z.string().nullable() }));
/** `session.name.set`: sets the friendly name (1–100 characters after trimming); persisted. */
export const SessionNameSet = defineRequest(
  "session.name.set",
  () => z.looseObject({
    ...sessionScoped,
    name: z
      .string()
      .transform((name) => name.trim())
      .pipe(z.string().min(1, "the name is empty").max(100, "the name is longer than 100 characters")),
  }),
  () => z.looseObject({}).or(z.null()).or(z.undefined()),
);

/**
 * `session.options.update`: patches the mutable session options. Tandem applies `model`,
 * `reasoningEffort`, `availableTools`, `excludedTools`, `skillDirectories` and `disabledSkills`;
 * the other 1.0.x fields are accepted and ignored (logged).
 */
export const SessionOptionsUpdate = defineRequest(
  "session.options.update",
  () => z.looseObject({
    ...sessionScoped,
    model: z.string().min(1).optional(),
    reasoningEffort: ReasoningEffort.optional(),
    availableTools: z.array(z.string()).optional(),
    excludedTools: z.array(z.string()).optional(),
    skillDirectories: z.array(z.string()).optional(),
    disabledSkills: z.array(z.string()).optional(),
  }),
  () => z.looseObject({ success: z.boolean() }),
);

/** The page size bounds of `session.eventLog.read`. */
export const eventLogPageLimits = { defaultMax: 200, maxMax: 1000, maxWaitMs: 30_000 } as const;

/** `session.eventLog.read`: a bounded batch of events from a cursor, forward or tail-first. */
export const SessionEventLogRead = defineRequest(
  "session.eventLog.read",
  () => z.looseObject({
    ...sessionScoped,
    cursor: z.string().optional(),
    max: z.number().int().min(1).max(eventLogPageLimits.maxMax).optional(),
    waitMs: z.number().int().min(0).optional(),
    types: z.literal("*").or(z.array(z.string()).min(1)).optional(),
    agentScope: z.enum(["primary", "all"]).optional(),
    agentIds: z.array(z.string()).min(1).optional(),
    direction: z.enum(["forward", "backward"]).optional(),
    includeEphemeral: z.boolean().optional(),
  }),
  () => z.looseObject({ events: z.array(z.unknown()), cursor: z.string(), hasMore: z.boolean(), cursorStatus: z.enum(["ok", "expired"]) }),
);
/** `session.eventLog.tail`: a cursor at the current end of the persisted events. */
export const SessionEventLogTail = defineRequest("session.eventLog.tail", () => z.looseObject(sessionScoped), () => z.looseObject({ cursor: z.string() }));

/** A queued item as `session.queue.pendingItems` reports it. */
export const QueuePendingItem = z.looseObject({
  id: z.string(),
  messageId: z.string().optional(),
  kind: z.enum(["message", "command"]),
  displayText: z.string(),
  agentMode: z.string(),
});
/** `session.queue.pendingItems`: messages waiting for their turn, and steering not yet injected. */
export const SessionQueuePendingItems = defineRequest(
  "session.queue.pendingItems",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ items: z.array(QueuePendingItem), steeringMessages: z.array(z.string()), inFlightSteeringCount: z.number().optional() }),
);
/** `session.queue.removeAt`: removes a queued item by its id. */
export const SessionQueueRemoveAt = defineRequest(
  "session.queue.removeAt",
  () => z.looseObject({ ...sessionScoped, id: z.string() }),
  () => z.looseObject({ removed: z.boolean() }),
);
/** `session.queue.removeMostRecent`: removes the newest queued item (steering first, then the queue). */
export const SessionQueueRemoveMostRecent = defineRequest(
  "session.queue.removeMostRecent",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ removed: z.boolean() }),
);
/** `session.queue.clear`: drops every queued item. */
export const SessionQueueClear = defineRequest("session.queue.clear", () => z.looseObject(sessionScoped), () => Empty.or(z.null()).or(z.undefined()));

/** `session.permissions.setApproveAll`: approve every permission request of the session without asking. */
export const SessionPermissionsSetApproveAll = defineRequest(
  "session.permissions.setApproveAll",
  () => z.looseObject({ ...sessionScoped, enabled: z.boolean(), source: z.string().optional() }),
  Success,
);
/**
 * `session.permissions.configure`: patches the permission policy (approve-all, approve-all-reads,
 * rules, allowed directories, URL policy; see `permission-policy.ts`). Content-exclusion policies
 * are refused (not available), never silently dropped.
 */
export const SessionPermissionsConfigure = defineRequest(
  "session.permissions.configure",
  () => z.looseObject({
    ...sessionScoped,
    approveAllToolPermissionRequests: z.boolean().optional(),
    approveAllReadPermissionRequests: z.boolean().optional(),
    rules: z.looseObject({ approved: z.array(PermissionPolicyRule), denied: z.array(PermissionPolicyRule) }).optional(),
    paths: z.looseObject({
      workspacePath: z.string().min(1).optional(),
      additionalDirectories: z.array(z.string().min(1)).optional(),
      includeTempDirectory: z.boolean().optional(),
      unrestricted: z.boolean().optional(),
    }).optional(),
    urls: z.looseObject({ unrestricted: z.boolean().optional(), initialAllowed: z.array(z.string().min(1)).optional() }).optional(),
    additionalContentExclusionPolicies: z.unknown().optional(),
  }),
  Success,
);

/** `sessions.fork`: a new session whose history is the source's, up to (not including) `toEventId`. */
export const SessionsFork = defineRequest(
  "sessions.fork",
  () => z.looseObject({ ...sessionScoped, toEventId: z.string().optional(), name: z.string().optional() }),
  () => z.looseObject({ sessionId: z.string(), name: z.string().optional() }),
);

/** `session.workspaces.listFiles`: the 1.0.x name of `session.workspace.listFiles`. */
export const SessionWorkspacesListFiles = defineRequest(
  "session.workspaces.listFiles",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ files: z.array(z.string()) }),
);
/** `session.workspaces.readFile`: the 1.0.x name of `session.workspace.readFile`. */
export const SessionWorkspacesReadFile = defineRequest(
  "session.workspaces.readFile",
  () => z.looseObject({ ...sessionScoped, path: z.string() }),
  () => z.looseObject({ content: z.string() }),
);
/** `session.workspaces.createFile`: the 1.0.x name of `session.workspace.createFile`; emits `session.workspace_file_changed`. */
export const SessionWorkspacesCreateFile = defineRequest(
  "session.workspaces.createFile",
  () => z.looseObject({ ...sessionScoped, path: z.string(), content: z.string() }),
  () => Empty.or(z.null()).or(z.undefined()),
);

/** The requests of this file, for `clientToServerRequests`. */
export const sessionApiRequests = [
  SessionNameGet,
  SessionNameSet,
  SessionOptionsUpdate,
  SessionEventLogRead,
  SessionEventLogTail,
  SessionQueuePendingItems,
  SessionQueueRemoveAt,
  SessionQueueRemoveMostRecent,
  SessionQueueClear,
  SessionPermissionsSetApproveAll,
  SessionPermissionsConfigure,
  SessionsFork,
  SessionWorkspacesListFiles,
  SessionWorkspacesReadFile,
  SessionWorkspacesCreateFile,
] as const;
