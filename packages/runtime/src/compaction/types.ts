import type { ToolSpec } from "../ports/conversation.js";
import type { ModelUsage } from "../providers/types.js";

/** What a model call will send besides the history. */
export interface RequestFrame {
  system: string;
  tools: readonly ToolSpec[];
}

/** `session.usage_info` data. */
export type ContextUsage = {
  tokenLimit: number;
  currentTokens: number;
  messagesLength: number;
  /** The system prompt's share of `currentTokens` (estimated). */
  systemTokens: number;
  /** The history's share: `currentTokens` less the system prompt and tool definitions. */
  conversationTokens: number;
  /** The tool definitions' share (estimated). */
  toolDefinitionsTokens: number;
  /** The first report of a run (a send): set by the agent loop for its first model call. */
  isInitial: boolean;
};

/** The answer of `session.compaction.compact`. */
export type CompactionResult = {
  success: boolean;
  tokensRemoved: number;
  messagesRemoved: number;
};

/**
 * What the agent loop asks of context management around each model call (implemented by
 * `SessionCompactor`).
 */
export interface ContextManager {
  /**
   * Before a model call: starts compaction in the background above the background threshold and
   * waits for it above the exhaustion threshold (abandoning the wait, not the compaction, when
   * `signal` aborts).
   */
  prepare(frame: RequestFrame, signal: AbortSignal): Promise<void>;
  /** The size of the request `frame` would make now, for `session.usage_info`. */
  usage(frame: RequestFrame): ContextUsage;
  /** After a model call: the provider's token counts for the request (history of `historyLength` messages). */
  recordUsage(usage: ModelUsage, historyLength: number): void;
  /** The provider refused the request as too long: compacts now; true when a retry may succeed. */
  recoverFromOverflow(frame: RequestFrame, message: string, signal: AbortSignal): Promise<boolean>;
}
