import { ProviderError, providerErrorFromStreamError } from "../errors.js";
import { reasoningFromBlocks } from "../reasoning.js";
import type { ModelResponse, ModelStreamPart, ModelUsage } from "../types.js";
import { finishReasonFromWire, forEachContentPart, usageFromWire } from "./completion.js";
import { ToolCallAssembler } from "./tool-calls.js";
import type { WireChunk } from "./wire.js";

/**
 * What one streamed answer has said so far: the `data` of each server-sent event goes in, text
 * and reasoning deltas go out to `onPart` at once, and {@link result} builds the
 * {@link ModelResponse} at the end. `[DONE]` marks the stream done; an `{"error": …}` object or
 * data that is not JSON fails the answer with a {@link ProviderError}.
 *
 * @example
 * const state = new ChatStreamState(onPart, providerCallId);
 * new SseParser((data) => state.acceptData(data)).push(chunk);
 * const response = state.result();
 */
export class ChatStreamState {
  /** `data: [DONE]` arrived. */
  done = false;
  private text = "";
  private reasoning = "";
  private readonly toolCalls = new ToolCallAssembler();
  private usage: ModelUsage = {};
  private finishReason: string | undefined;
  private responseId: string | undefined;
  private sawChunk = false;

  constructor(
    private readonly onPart: (part: ModelStreamPart) => void,
    private readonly providerCallId: string | undefined,
  ) {}

  /** Takes the `data` of one event. */
  acceptData(data: string): void {
    if (data === "[DONE]") {
      this.done = true;
      return;
    }
    let chunk: WireChunk;
    try {
      chunk = JSON.parse(data) as WireChunk;
    } catch (error) {
      const message = `Model provider error: JSON parsing failed: Text: ${data}.\nError message: ${error instanceof Error ? error.message : String(error)}`;
      throw new ProviderError(message, "provider", undefined, this.providerCallId, false, undefined);
    }
    if (typeof chunk !== "object" || chunk === null) {
      throw new ProviderError(`Model provider error: unexpected stream data: ${data.slice(0, 200)}`, "provider", undefined, this.providerCallId, false, undefined);
    }
    this.acceptChunk(chunk);
  }

  /**
   * The collected answer once the stream ended. A stream that ends before a `finish_reason`
   * fails: as a network failure when it was cut short mid-way (chunks came, but no `[DONE]`),
   * else as a provider error (as when a server answers a streaming request without events).
   */
  result(): ModelResponse {
    if (this.finishReason === undefined) {
      if (this.sawChunk && !this.done) {
        throw new ProviderError("Could not reach the model provider: the stream ended before the answer was complete", "network", undefined, this.providerCallId, true, undefined);
      }
      throw new ProviderError("Model provider error: Response stream ended without a finish reason.", "provider", undefined, this.providerCallId, false, undefined);
    }
    const reasoning = reasoningFromBlocks([{ text: this.reasoning, data: {} }], undefined);
    return {
      text: this.text,
      ...(reasoning ? { reasoning } : {}),
      toolCalls: this.toolCalls.finish(this.providerCallId),
      usage: this.usage,
      finishReason: this.finishReason,
      ...(this.responseId ? { responseId: this.responseId } : {}),
      ...(this.providerCallId ? { providerCallId: this.providerCallId } : {}),
    };
  }

  private acceptChunk(chunk: WireChunk): void {
    if (typeof chunk.error === "object" && chunk.error !== null) throw providerErrorFromStreamError(chunk.error, this.providerCallId);
    if (!this.sawChunk) {
      this.sawChunk = true;
      if (typeof chunk.id === "string") this.responseId = chunk.id;
    }
    if (chunk.usage !== undefined && chunk.usage !== null) this.usage = usageFromWire(chunk.usage);
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!choice) return;
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) this.finishReason = finishReasonFromWire(choice.finish_reason);
    const delta = choice.delta;
    if (!delta) return;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning !== "") this.onReasoning(reasoning);
    forEachContentPart(delta.content, this.onText, this.onReasoning);
    const toolCalls = delta.tool_calls;
    if (Array.isArray(toolCalls)) for (const toolCall of toolCalls) this.toolCalls.accept(toolCall);
  }

  private readonly onText = (delta: string): void => {
    this.text += delta;
    this.onPart({ type: "text-delta", delta });
  };

  private readonly onReasoning = (delta: string): void => {
    this.reasoning += delta;
    this.onPart({ type: "reasoning-delta", delta });
  };
}
