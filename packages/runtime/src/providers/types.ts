import type { ModelInfo } from "@tandem/protocol";
import type { ConversationMessage, ModelToolCall, ReasoningData, ToolSpec } from "../ports/conversation.js";

/** Who makes a model call: the agent trajectory and the kind of interaction. */
export interface RequestOrigin {
  /** The agent trajectory: the session id for the session's own agent, a sub-agent's own id else. */
  agentId: string;
  /** The trajectory that started this one (a sub-agent's session). */
  parentAgentId?: string;
  /** `conversation-agent`, `conversation-subagent`, `conversation-compaction`, … */
  interactionType: string;
}

/** One model call. */
export interface ModelRequest {
  model: string;
  system: string;
  messages: readonly ConversationMessage[];
  tools: readonly ToolSpec[];
  stream: boolean;
  reasoningEffort?: string;
  /**
   * The Copilot API's `thinking_budget` (tokens), which the 0.2.0 generation's runtime sent; other
   * providers and APIs leave it out.
   */
  thinkingBudget?: number;
  /** Extra HTTP headers for this request (a per-request bearer token, a turn's `requestHeaders`); they win over the client's own. */
  headers?: Readonly<Record<string, string>>;
  signal: AbortSignal;
  /** Ask for citations of the documents attached to user messages (Anthropic). */
  citations?: boolean;
  /** Who makes the call (handed to a client that performs the model requests). */
  origin?: RequestOrigin;
}

/** Incremental output while a response streams. */
export type ModelStreamPart =
  | { type: "text-delta"; delta: string }
  | { type: "reasoning-delta"; delta: string }
  | { type: "bytes"; totalBytes: number };

/** Token counts for one call. */
export interface ModelUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** The complete answer of one model call. */
export interface ModelResponse {
  text: string;
  reasoning?: ReasoningData;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
  finishReason: string;
  /** The provider's completion id (e.g. `chatcmpl-…`). */
  responseId?: string;
  /** The request tracing id the provider returned (`x-github-request-id` / `x-request-id`). */
  providerCallId?: string;
}

/**
 * A model provider behind one small interface: stream one model step, list models.
 *
 * @example
 * const response = await client.generate(request, (part) => { ... });
 */
export interface ModelClient {
  /** A short name for logs and errors (e.g. `copilot`, `openai`). */
  readonly name: string;
  generate(request: ModelRequest, onPart: (part: ModelStreamPart) => void): Promise<ModelResponse>;
  listModels(): Promise<ModelInfo[]>;
}
