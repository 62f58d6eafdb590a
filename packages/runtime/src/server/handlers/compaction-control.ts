import { SessionHistoryAbortManualCompaction, SessionHistoryCancelBackgroundCompaction, SessionHistoryClearContext, SessionHistorySummarizeForHandoff } from "@tandem/protocol/methods/compaction-control";
import type { CompactionKind } from "../../compaction/compactor.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/** What these methods need of a session's context management. */
export interface CompactionControl {
  cancel(kind: CompactionKind): boolean;
  handoffSummary(): Promise<string>;
}

/**
 * `session.history.cancelBackgroundCompaction` / `abortManualCompaction`: cancel the compaction
 * under way when it began that way (the history is left as it was); `session.history.summarizeForHandoff`:
 * a summary of the conversation for whoever takes it over, without changing it;
 * `session.history.clearContext`: a fresh conversation started with a prompt.
 */
export function registerCompactionControlMethods(table: MethodTable, runtime: RuntimeServices): void {
  const control = (sessionId: string): CompactionControl => runtime.sessions.get(sessionId).context;
  table.on(SessionHistoryCancelBackgroundCompaction, ({ sessionId }) => ({ cancelled: control(sessionId).cancel("background") }));
  table.on(SessionHistoryAbortManualCompaction, ({ sessionId }) => ({ aborted: control(sessionId).cancel("manual") }));
  table.on(SessionHistorySummarizeForHandoff, async ({ sessionId }) => ({ summary: await control(sessionId).handoffSummary() }));
  table.on(SessionHistoryClearContext, ({ sessionId, prompt }) => ({ messagesCleared: runtime.sessions.get(sessionId).turns.clearContext(prompt) }));
}
