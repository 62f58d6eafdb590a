import { randomUUID } from "node:crypto";
import { ErrorCodes } from "@tandem/protocol/errors";
import { errorMessage, TandemError } from "../errors.js";
import type { Logger } from "../log.js";
import type { ContextManager, RequestFrame } from "../compaction/types.js";
import type { CompatProfile } from "../compat/profile.js";
import { ProviderError } from "../providers/errors.js";
import { reasoningEventFields } from "../providers/reasoning.js";
import type { ModelClient, ModelResponse, ModelStreamPart, RequestOrigin } from "../providers/types.js";
import { parseToolArguments, type ConversationMessage, type ToolSpec } from "./messages.js";
import { ModelCallLimitReached } from "./model-call-limit.js";
import { withRetries, type RetryPolicy } from "./retry.js";
import { interruptedText, runToolCalls, type ToolRunnerHost } from "./tool-runner.js";

/** What the loop needs from its session. */
export interface LoopHost extends ToolRunnerHost {
  readonly sessionId: string;
  /** What the client generation of the session expects (see `compat/profile.ts`). */
  readonly profile: CompatProfile;
  readonly messages: ConversationMessage[];
  /** Whether the model's text reaches the clients as it streams (delta events). */
  readonly streaming: boolean;
  /** Whether model requests stream (default: {@link streaming}); without `streaming` no delta events follow. */
  readonly streamsRequests?: boolean;
  readonly reasoningEffort: string | undefined;
  readonly retryPolicy: RetryPolicy;
  /** How many model calls one run (a user message, with autopilot's nudges) may make. */
  readonly maxModelCallsPerTurn: number;
  readonly logger: Logger;
  /** The context window of the current model. */
  readonly tokenLimit: number;
  /** Keeps the history inside the window (compaction), consulted around each model call. */
  readonly context: ContextManager;
  systemPrompt(): Promise<string>;
  toolSpecs(): ToolSpec[];
  modelClient(): ModelClient;
  /** Whether the model is asked for citations of attached documents. */
  readonly citations?: boolean;
  /** False when the model takes no images (tool images are left out of its requests); default: it does. */
  readonly acceptsImages?: boolean;
  /** Who makes this loop's model calls (default: the session's own agent). */
  readonly requestOrigin?: RequestOrigin;
  recordModelCall(model: string, response: ModelResponse, durationMs: number): void;
  /** Called before each model call: injects steering messages sent while the loop ran. */
  beforeModelCall(interactionId: string): Promise<void>;
  /** Called when a turn fails (for the errorOccurred hook). */
  onTurnError(error: unknown): void;
  /** Offers another model after a rate limit (the main loop's session); true when the call should be made again. */
  switchModelAfterRateLimit?(error: ProviderError, signal: AbortSignal): Promise<boolean>;
}

/** How a run of the loop ended (with the error when it failed). */
export type LoopResult = { end: "completed"; rejected?: boolean } | { end: "aborted" } | { end: "failed"; error: unknown };
/** How a run of the loop ended. */
export type LoopEnd = LoopResult["end"];

/**
 * One run of the loop across its calls (autopilot's nudges and hooks continue a run): the next
 * turn's number, and who hears of an abort that interrupts a turn.
 */
export interface LoopRun {
  /** The next turn's number (`turnId`). */
  next: number;
  /**
   * Called once when an abort interrupts a turn, before that turn's `assistant.turn_end` (when the
   * profile closes it): the caller announces the abort there, as the reference runtime does.
   */
  readonly onInterrupted?: () => void;
}

/**
 * The agent loop: one model call per turn; tool requests are executed and fed back; the loop ends
 * when a response asks for no tools (or a tool result ends the turn, or an error or abort).
 * Every model call is exactly one `assistant.turn_start` / `assistant.turn_end` pair. A run that
 * would make more than `maxModelCallsPerTurn` calls fails with {@link ModelCallLimitReached}.
 */
export async function runAgentLoop(host: LoopHost, interactionId: string, signal: AbortSignal, turns: LoopRun = { next: 0 }): Promise<LoopResult> {
  for (;;) {
    if (turns.next >= host.maxModelCallsPerTurn) {
      const error = new ModelCallLimitReached(host.maxModelCallsPerTurn);
      host.onTurnError(error);
      return { end: "failed", error };
    }
    const turn = turns.next++;
    const turnId = String(turn);
    host.emitter.emit("assistant.turn_start", { turnId, interactionId });
    try {
      const next = await runTurn(host, interactionId, turn, signal);
      if (next === "stop") return { end: "completed" };
      if (next === "rejected") return { end: "completed", rejected: true };
    } catch (error) {
      // Calls that never started (the round failed or was aborted before them) still get a result
      // in the history: the next model request answers every call of the assistant message.
      completeInterruptedCalls(host.messages);
      if (signal.aborted) {
        turns.onInterrupted?.();
        return { end: "aborted" };
      }
      host.onTurnError(error);
      return { end: "failed", error };
    } finally {
      // 1.0.10 (the 0.2.0 generation's runtime) leaves the turn an abort interrupted open.
      if (!signal.aborted || host.profile.runEnd.closesAbortedTurn) host.emitter.emit("assistant.turn_end", { turnId });
    }
  }
}

async function runTurn(host: LoopHost, interactionId: string, turn: number, signal: AbortSignal): Promise<"continue" | "stop" | "rejected"> {
  await host.beforeModelCall(interactionId);
  const client = host.modelClient();
  const messageId = randomUUID();
  const reasoningId = randomUUID();
  // The complete reasoning block is emitted as soon as the reasoning phase ends (before the first
  // text delta), so the stream follows the quick-reference order.
  let streamedReasoning = "";
  let reasoningEmitted = false;
  const emitReasoning = (content: string): void => {
    if (reasoningEmitted || !content) return;
    reasoningEmitted = true;
    host.emitter.emit("assistant.reasoning", { reasoningId, content });
  };
  const onPart = (part: ModelStreamPart): void => {
    if (!host.streaming) return;
    if (part.type === "bytes") {
      host.emitter.emit("assistant.streaming_delta", { totalResponseSizeBytes: part.totalBytes });
    } else if (part.type === "text-delta") {
      emitReasoning(streamedReasoning);
      host.emitter.emit("assistant.message_delta", { messageId, deltaContent: part.delta });
    } else {
      streamedReasoning += part.delta;
      host.emitter.emit("assistant.reasoning_delta", { reasoningId, deltaContent: part.delta });
    }
  };
  const frame: RequestFrame = { system: await host.systemPrompt(), tools: host.toolSpecs() };
  await host.context.prepare(frame, signal);
  // As the reference: the first report of each run (send) is the initial one.
  host.emitter.emit("session.usage_info", { ...host.context.usage(frame), isInitial: turn === 0 });
  const started = performance.now();
  let streamedOutput = false;
  const onAttemptPart = (part: ModelStreamPart): void => {
    if (part.type !== "bytes") streamedOutput = true;
    onPart(part);
  };
  const callModel = (): Promise<ModelResponse> =>
    withRetries(
      host.retryPolicy,
      signal,
      () =>
        client.generate(
          {
            model: host.model,
            system: frame.system,
            // A copy: a background compaction may replace the history's start while the call runs.
            // A model without vision gets the tools' text only; the images stay in the history.
            messages: host.acceptsImages === false ? withoutToolImages(host.messages) : host.messages.slice(),
            tools: frame.tools,
            stream: host.streamsRequests ?? host.streaming,
            reasoningEffort: host.reasoningEffort,
            thinkingBudget: host.profile.thinkingBudget(host.model),
            signal,
            origin: host.requestOrigin ?? { agentId: host.sessionId, interactionType: "conversation-agent" },
            ...(host.citations ? { citations: true } : {}),
          },
          onAttemptPart,
        ),
      (error, delayMs, attemptNumber) => {
        host.logger.warn(`model call failed (attempt ${attemptNumber}); retrying in ${Math.round(delayMs)} ms: ${error.message}`);
      },
      // A response that already streamed text to the client is not retried: the client has seen it.
      () => !streamedOutput,
    );
  let historyLength = host.messages.length;
  let response: ModelResponse;
  try {
    response = await callModel();
  } catch (error) {
    // Rate-limited for the user: the host may switch to another model (when the user agrees) and call again.
    if (error instanceof ProviderError && error.errorType === "rate_limit" && !signal.aborted && (await host.switchModelAfterRateLimit?.(error, signal))) {
      response = await callModel();
    } else {
      // Too long after all (an unknown window, one huge tool result): compact and retry once.
      if (!(error instanceof ProviderError) || error.errorType !== "context_length" || signal.aborted) throw error;
      if (!(await host.context.recoverFromOverflow(frame, error.message, signal))) throw error;
      host.emitter.emit("session.usage_info", host.context.usage(frame));
      historyLength = host.messages.length;
      response = await callModel();
    }
  }
  host.context.recordUsage(response.usage, historyLength);
  const durationMs = Math.round(performance.now() - started);
  host.recordModelCall(host.model, response, durationMs);

  emitReasoning(response.reasoning?.text ?? "");
  const toolRequests = response.toolCalls.map((call) => ({
    toolCallId: call.id,
    name: call.name,
    arguments: parseToolArguments(call.rawArguments),
    type: "function" as const,
  }));
  // Usage first, then the message (the reference runtime's order).
  host.emitter.emit("assistant.usage", {
    model: host.model,
    inputTokens: response.usage.inputTokens ?? 0,
    outputTokens: response.usage.outputTokens ?? 0,
    cacheReadTokens: response.usage.cacheReadTokens ?? 0,
    cacheWriteTokens: response.usage.cacheWriteTokens ?? 0,
    cost: 1,
    duration: durationMs,
    initiator: turn === 0 ? "user" : "agent",
    ...(response.responseId ? { apiCallId: response.responseId } : {}),
    ...(response.providerCallId ? { providerCallId: response.providerCallId } : {}),
    quotaSnapshots: {},
    ...(host.reasoningEffort ? { reasoningEffort: host.reasoningEffort } : {}),
  });
  host.emitter.emit("assistant.message", {
    messageId,
    content: response.text,
    toolRequests,
    interactionId,
    model: host.model,
    turnId: String(turn),
    ...(response.responseId ? { apiCallId: response.responseId } : {}),
    ...reasoningEventFields(response.reasoning),
    ...(response.usage.outputTokens !== undefined ? { outputTokens: response.usage.outputTokens } : {}),
  });
  const assistantMessage: Extract<ConversationMessage, { role: "assistant" }> = { role: "assistant", content: response.text, toolCalls: response.toolCalls, reasoning: response.reasoning };
  host.messages.push(assistantMessage);
  if (response.toolCalls.length === 0) return "stop";

  const results = await runToolCalls(host, response.toolCalls, interactionId, signal, String(turn));
  // The model is shown the arguments its calls ran with: a preToolUse hook may have replaced them.
  assistantMessage.toolCalls = results.map(({ call, rewrittenArguments }) => (rewrittenArguments === undefined ? call : { ...call, rawArguments: rewrittenArguments }));
  for (const { call, outcome } of results) {
    const images = outcome.binaryResults?.map((result) => ({ mimeType: result.mimeType, data: result.data, ...(result.caption ? { caption: result.caption } : {}) }));
    host.messages.push({ role: "tool", toolCallId: call.id, toolName: call.name, content: outcome.textForModel, ...(images?.length ? { images } : {}) });
  }
  for (const { outcome } of results) {
    for (const content of outcome.followUpMessages ?? []) host.messages.push({ role: "user", content });
  }
  if (signal.aborted) throw signal.reason ?? new Error("aborted");
  if (results.some((result) => result.outcome.resultType === "rejected")) return "rejected";
  return results.some((result) => result.outcome.endsTurn) ? "stop" : "continue";
}

/** Gives every tool call of the last assistant message a result, so the history stays valid. */
export function completeInterruptedCalls(messages: ConversationMessage[]): void {
  let lastAssistant = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === "assistant") {
      lastAssistant = index;
      break;
    }
  }
  const assistant = messages[lastAssistant];
  if (!assistant || assistant.role !== "assistant" || assistant.toolCalls.length === 0) return;
  // Scans in place (no copies): a resume calls this for each of its tens of thousands of messages.
  const answeredEnd = messages.length;
  for (const call of assistant.toolCalls) {
    if (isAnswered(messages, lastAssistant + 1, answeredEnd, call.id)) continue;
    messages.push({ role: "tool", toolCallId: call.id, toolName: call.name, content: interruptedText, unrecorded: true });
  }
}

function isAnswered(messages: readonly ConversationMessage[], from: number, to: number, toolCallId: string): boolean {
  for (let index = from; index < to; index++) {
    const message = messages[index];
    if (message?.role === "tool" && message.toolCallId === toolCallId) return true;
  }
  return false;
}

/** Emits `session.error` for a failed run (typed for provider failures). */
export function reportLoopError(host: Pick<LoopHost, "emitter" | "logger" | "sessionId">, error: unknown): void {
  if (error instanceof ModelCallLimitReached) {
    host.logger.warn(error.message);
    host.emitter.emit("session.error", { errorType: error.errorType, message: error.message });
    return;
  }
  if (error instanceof ProviderError) {
    host.logger.warn(`model call failed: ${error.message}`);
    host.emitter.emit("session.error", {
      errorType: error.errorType,
      message: error.message,
      ...(error.statusCode !== undefined ? { statusCode: error.statusCode } : {}),
      ...(error.providerCallId ? { providerCallId: error.providerCallId } : {}),
    });
    return;
  }
  if (error instanceof TandemError && error.code === ErrorCodes.NotConfigured) {
    // A setting the user has to make, not a fault of the runtime: said once, plainly, without a stack.
    host.logger.warn(error.message);
    host.emitter.emit("session.error", { errorType: "authentication", message: error.message });
    return;
  }
  host.logger.error("turn failed", error);
  const errorType = "query";
  host.emitter.emit("session.error", {
    errorType,
    message: `Execution failed: ${errorMessage(error)}`,
    ...(error instanceof Error && error.stack ? { stack: error.stack } : {}),
  });
}

/** The history with the images of tool results left out (for a model without vision). */
function withoutToolImages(messages: readonly ConversationMessage[]): ConversationMessage[] {
  return messages.map((message) => {
    if (message.role !== "tool" || !message.images) return message;
    const { images: _images, ...text } = message;
    return text;
  });
}
