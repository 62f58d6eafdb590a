import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

/**
 * Compaction control and hand-off summaries (official SDK 1.0 names): cancel a compaction under
 * way, by how it began, and summarize the conversation for whoever takes it over.
 */

const sessionScoped = () => z.looseObject({ sessionId: SessionId });

/** `session.history.cancelBackgroundCompaction`: cancels an automatic compaction under way; `cancelled: false` when none was running. */
export const SessionHistoryCancelBackgroundCompaction = defineRequest("session.history.cancelBackgroundCompaction", sessionScoped, () =>
  z.looseObject({ cancelled: z.boolean() }),
);

/** `session.history.abortManualCompaction`: aborts a compaction asked for with `compact`; `aborted: false` when none was running. */
export const SessionHistoryAbortManualCompaction = defineRequest("session.history.abortManualCompaction", sessionScoped, () =>
  z.looseObject({ aborted: z.boolean() }),
);

/** `session.history.summarizeForHandoff`: a Markdown summary of the conversation (one model call); empty when there is no conversation. */
export const SessionHistorySummarizeForHandoff = defineRequest("session.history.summarizeForHandoff", sessionScoped, () =>
  z.looseObject({ summary: z.string() }),
);

/**
 * `session.history.clearContext`: clears the conversation once the message being answered is done
 * (at once when idle) and answers `prompt` as the first message of the new one; `messagesCleared`
 * is how many messages the conversation held when asked.
 */
export const SessionHistoryClearContext = defineRequest(
  "session.history.clearContext",
  () => z.looseObject({ sessionId: SessionId, prompt: z.string().min(1, "the prompt that starts the new conversation is empty") }),
  () => z.looseObject({ messagesCleared: z.number() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const compactionControlRequests = [SessionHistoryCancelBackgroundCompaction, SessionHistoryAbortManualCompaction, SessionHistorySummarizeForHandoff, SessionHistoryClearContext] as const;
