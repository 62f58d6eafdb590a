import type { LanguageModelV3Content, LanguageModelV3FinishReason, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import type { ModelToolCall } from "../ports/conversation.js";
import { reasoningFromBlocks, type ReasoningBlock, type ReasoningOrigin } from "./reasoning.js";
import type { ModelResponse, ModelStreamPart, ModelUsage } from "./types.js";

/** Where a provider package keeps its metadata and what its reasoning blocks can be sent back to. */
export interface CollectorTarget {
  /** The key of the provider package's `providerMetadata` (`anthropic`, `openai`, `azure`, …). */
  metadataKey: string;
  reasoningOrigin: ReasoningOrigin | undefined;
}

/**
 * Thrown when a stream reports an error part; the caller classifies `error`.
 *
 * @example
 * catch (failure) { const cause = failure instanceof StreamErrorPart ? failure.error : failure; }
 */
export class StreamErrorPart extends Error {
  constructor(readonly error: unknown) {
    super("the model stream reported an error");
    this.name = "StreamErrorPart";
  }
}

/**
 * Turns the parts of one AI SDK call (a `doGenerate` result or the parts of a `doStream`) into a
 * {@link ModelResponse}, keeping each reasoning block with the metadata the provider needs back.
 *
 * @example
 * const collector = new ResponseCollector({ metadataKey: "anthropic", reasoningOrigin: "anthropic" });
 * for await (const part of stream) collector.acceptStreamPart(part, onPart);
 * const response = collector.result();
 */
export class ResponseCollector {
  private text = "";
  private readonly reasoning = new Map<string, ReasoningBlock>();
  private readonly toolCalls: ModelToolCall[] = [];
  private usage: ModelUsage = {};
  private finishReason = "stop";
  private responseId: string | undefined;
  private streamedReasoning = false;

  constructor(private readonly target: CollectorTarget) {}

  /** Takes the content, usage and finish reason of a non-streaming call. */
  acceptGenerateResult(result: { content: LanguageModelV3Content[]; usage: LanguageModelV3Usage; finishReason: LanguageModelV3FinishReason; response?: { id?: string } }): void {
    result.content.forEach((part, index) => {
      if (part.type === "text") this.text += part.text;
      else if (part.type === "reasoning") this.addReasoning(`generate-${index}`, part.text, part.providerMetadata);
      else if (part.type === "tool-call" && !part.providerExecuted) this.toolCalls.push({ id: part.toolCallId, name: part.toolName, rawArguments: part.input });
    });
    this.finish(result.usage, result.finishReason);
    this.responseId = result.response?.id;
  }

  /** Takes one stream part, forwarding text and reasoning deltas; throws on an error part. */
  acceptStreamPart(part: LanguageModelV3StreamPart, onPart: (part: ModelStreamPart) => void): void {
    switch (part.type) {
      case "text-delta":
        if (!part.delta) return;
        this.text += part.delta;
        onPart({ type: "text-delta", delta: part.delta });
        return;
      case "reasoning-start":
        this.addReasoning(part.id, "", part.providerMetadata);
        return;
      case "reasoning-delta":
        this.streamReasoningDelta(part.id, part.delta, part.providerMetadata, onPart);
        return;
      case "reasoning-end":
        this.addReasoning(part.id, "", part.providerMetadata);
        return;
      case "tool-call":
        if (!part.providerExecuted) this.toolCalls.push({ id: part.toolCallId, name: part.toolName, rawArguments: part.input });
        return;
      case "response-metadata":
        this.responseId ??= part.id;
        return;
      case "finish":
        this.finish(part.usage, part.finishReason);
        return;
      case "error":
        throw new StreamErrorPart(part.error);
      default:
        return;
    }
  }

  /** The collected response. */
  result(providerCallId: string | undefined): ModelResponse {
    const reasoning = reasoningFromBlocks([...this.reasoning.values()], this.target.reasoningOrigin);
    return {
      text: this.text,
      ...(reasoning ? { reasoning } : {}),
      toolCalls: this.toolCalls,
      usage: this.usage,
      finishReason: this.finishReason,
      ...(this.responseId ? { responseId: this.responseId } : {}),
      ...(providerCallId ? { providerCallId } : {}),
    };
  }

  private streamReasoningDelta(id: string, delta: string, metadata: unknown, onPart: (part: ModelStreamPart) => void): void {
    const isNewBlock = !this.reasoning.get(id)?.text;
    this.addReasoning(id, delta, metadata);
    if (!delta) return;
    // Blocks are joined with a blank line in the final reasoning text; the stream says the same.
    const separator = isNewBlock && this.streamedReasoning ? "\n\n" : "";
    this.streamedReasoning = true;
    onPart({ type: "reasoning-delta", delta: separator + delta });
  }

  private addReasoning(id: string, text: string, metadata: unknown): void {
    const data = readMetadata(metadata, this.target.metadataKey);
    const block = this.reasoning.get(id);
    if (!block) {
      this.reasoning.set(id, { text, data });
      return;
    }
    block.text += text;
    Object.assign(block.data, data);
  }

  private finish(usage: LanguageModelV3Usage | undefined, finishReason: LanguageModelV3FinishReason | undefined): void {
    this.usage = convertUsage(usage);
    this.finishReason = finishReason?.unified ?? "stop";
  }
}

function readMetadata(metadata: unknown, key: string): Record<string, unknown> {
  const entry = (metadata as Record<string, unknown> | undefined)?.[key];
  return entry && typeof entry === "object" ? { ...(entry as Record<string, unknown>) } : {};
}

function convertUsage(usage: LanguageModelV3Usage | undefined): ModelUsage {
  if (!usage) return {};
  return {
    ...(usage.inputTokens.total !== undefined ? { inputTokens: usage.inputTokens.total } : {}),
    ...(usage.outputTokens.total !== undefined ? { outputTokens: usage.outputTokens.total } : {}),
    ...(usage.inputTokens.cacheRead !== undefined ? { cacheReadTokens: usage.inputTokens.cacheRead } : {}),
    ...(usage.inputTokens.cacheWrite !== undefined ? { cacheWriteTokens: usage.inputTokens.cacheWrite } : {}),
  };
}
