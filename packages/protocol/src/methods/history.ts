import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

const sessionScoped = { sessionId: SessionId };

/** Why a rewind read could not be answered from the session's file checkpoints (official SDK 1.0 names). */
export const HistoryRewindUnavailableReason = z.enum(["file-change-tracking-disabled", "session-busy", "unsupported-remote-session"]);

/** A root user turn the session can rewind to (`HistoryRewindPoint` of the official SDK 1.0). */
export const HistoryRewindPoint = z.looseObject({
  /** The `user.message` event that begins the discarded suffix. */
  eventId: z.string(),
  userMessage: z.string(),
  timestamp: z.string(),
  canRestoreFiles: z.boolean(),
  /** Files changed in this turn and all later turns. */
  fileCount: z.number(),
  turnChangedFiles: z.boolean(),
  linesAdded: z.number(),
  linesRemoved: z.number(),
  isAutopilotContinuation: z.boolean(),
});

/** `session.history.listRewindPoints`: the root user turns, oldest first. */
export const SessionHistoryListRewindPoints = defineRequest(
  "session.history.listRewindPoints",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({
    fileChangeTrackingEnabled: z.boolean(),
    unavailableReason: HistoryRewindUnavailableReason.optional(),
    points: z.array(HistoryRewindPoint),
  }),
);

/** A file a conversation-and-files rewind would restore. */
export const HistoryRewindFilePreview = z.looseObject({
  path: z.string(),
  changeType: z.enum(["created", "deleted", "modified"]),
  linesAdded: z.number(),
  linesRemoved: z.number(),
});

/**
 * `session.history.previewRewind`: the files a rewind to `eventId` would restore. Tandem adds
 * `message` when files cannot be restored (e.g. the folder is not a git repository).
 */
export const SessionHistoryPreviewRewind = defineRequest(
  "session.history.previewRewind",
  () => z.looseObject({ ...sessionScoped, eventId: z.string() }),
  () => z.looseObject({
    available: z.boolean(),
    reason: HistoryRewindUnavailableReason.optional(),
    fileCount: z.number(),
    files: z.array(HistoryRewindFilePreview),
    message: z.string().optional(),
  }),
);

/** What a rewind discards: the conversation only, or also the files the discarded turns changed. */
export const HistoryRewindMode = z.enum(["conversation", "conversation-and-files"]);

/** Outcome of a rewind (official SDK 1.0 names). */
export const HistoryRewindOutcome = z.enum([
  "success",
  "session-busy",
  "file-change-tracking-disabled",
  "unsupported-remote-session",
  "files-rolled-back",
  "rollback-incomplete",
  "truncation-failed",
  "checkpoint-cleanup-failed",
  "snapshot-prune-failed",
]);

/** `session.history.rewind`: rewinds the conversation to before `eventId`, optionally restoring files. */
export const SessionHistoryRewind = defineRequest(
  "session.history.rewind",
  () => z.looseObject({ ...sessionScoped, eventId: z.string(), mode: HistoryRewindMode }),
  () => z.looseObject({
    outcome: HistoryRewindOutcome,
    eventsRemoved: z.number().optional(),
    restoredFiles: z.array(z.string()),
    skippedFiles: z.array(z.looseObject({ path: z.string(), reason: z.enum(["user-modified", "skipped-capture"]) })),
    error: z.string().optional(),
  }),
);

/** `session.history.truncate`: removes `eventId` and every later event from the conversation (files untouched). */
export const SessionHistoryTruncate = defineRequest(
  "session.history.truncate",
  () => z.looseObject({ ...sessionScoped, eventId: z.string() }),
  () => z.looseObject({ eventsRemoved: z.number(), checkpointCleanupFailed: z.boolean().optional(), checkpointCleanupError: z.string().optional() }),
);

/** The `session.history.*` requests. */
export const historyRequests = [SessionHistoryListRewindPoints, SessionHistoryPreviewRewind, SessionHistoryRewind, SessionHistoryTruncate] as const;
