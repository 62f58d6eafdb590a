import type { ConversationMessage } from "../ports/conversation.js";
import { summaryMessageText, taskOf } from "./summary-text.js";

/** The fields of `session.compaction_complete` a resume needs. */
export interface CompactionRecord {
  success: boolean;
  messagesRemoved?: number;
  summaryContent?: string;
  checkpointNumber?: number;
  checkpointPath?: string;
  parentToolCallId?: string;
}

/**
 * Replays a persisted `session.compaction_complete` on a history being rebuilt: the first
 * `messagesRemoved` messages become the same summary message the live session made (so a resumed
 * session continues from the compacted history, not the full one). Failed compactions and
 * sub-agents' compactions change nothing.
 *
 * @example
 * case "session.compaction_complete": replayCompaction(messages, event.data); break;
 */
export function replayCompaction(messages: ConversationMessage[], record: CompactionRecord): void {
  if (!record.success || record.parentToolCallId || !record.messagesRemoved || record.summaryContent === undefined) return;
  const removed = Math.min(record.messagesRemoved, messages.length);
  const file = record.checkpointPath?.split(/[\\/]/).pop() ?? "";
  const task = taskOf(messages.slice(0, removed));
  messages.splice(0, removed, { role: "user", content: summaryMessageText(record.summaryContent, record.checkpointNumber ?? 0, file, task) });
}
