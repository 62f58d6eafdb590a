import { SessionCompactionCompact, SessionHistoryCompact } from "@tandem/protocol";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/**
 * `session.compaction.compact`: compacts the session's history now (joining a compaction already
 * under way) and answers `{success, tokensRemoved, messagesRemoved}`; with nothing to remove, a
 * success that removed 0 of each. Works whatever `infiniteSessions.enabled` says: it is asked for.
 * `session.history.compact` is the official SDK 1.0's name for the same request.
 */
export function registerCompactionMethods(table: MethodTable, runtime: RuntimeServices): void {
  table.on(SessionCompactionCompact, ({ sessionId }) => runtime.sessions.get(sessionId).context.compactNow());
  table.on(SessionHistoryCompact, ({ sessionId }) => runtime.sessions.get(sessionId).context.compactNow());
}
