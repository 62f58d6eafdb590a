import type { ModelToolCall } from "../../ports/conversation.js";
import { providerErrorFromStreamError } from "../error-mapping.js";
import { ProviderError } from "../errors.js";
import { reasoningFromBlocks } from "../reasoning.js";
import type { ModelResponse, ModelStreamPart, ModelUsage } from "../types.js";
import { forEachContentPart, mergedFinishReason, usageFromWire } from "./completion.js";
import { ToolCallAssembler } from "./tool-calls.js";
import type { WireChunk } from "./wire.js";

type WireChoice = NonNullable<WireChunk["choices"]>[number];

/**
 * What one streamed answer has said so far: the `data` of each server-sent event goes in, text
 * and reasoning deltas go out to `onPart` at once, and {@link result} builds the
 * {@link ModelResponse} at the end. `[DONE]` marks the stream done; an `{"error": …}` object or
 * data that is not JSON fails the answer with a {@link ProviderError}.
 *
 * Each choice (by its `index`) is collected on its own and the choices are merged in index order
 * at the end, as in a non-streaming answer (`completionResponse`): the Copilot API splits one
 * turn of Claude models over several choices, whose tool calls may each use tool-call index 0.
 * Text and reasoning deltas go out as they arrive, whatever their choice.
 *
 * @example
 * const state = new ChatStreamState(onPart, providerCallId);
 * new SseParser((data) => state.acceptData(data)).push(chunk);
 * const response = state.result();
 */
export class ChatStreamState {
  /** `data: [DONE]` arrived. */
  done = false;
  /** The choices in order of their first delta. */
  private readonly choices: ChoiceAccumulator[] = [];
  /** The choice of the last delta: almost every chunk continues it. */
  private current: ChoiceAccumulator | undefined;
  private usage: ModelUsage = {};
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
    const choices = this.choices.length > 1 ? [...this.choices].sort((a, b) => a.index - b.index) : this.choices;
    if (choices.every((choice) => choice.finishReason === undefined)) {
      if (this.sawChunk && !this.done) {
        throw new ProviderError("Could not reach the model provider: the stream ended before the answer was complete", "network", undefined, this.providerCallId, true, undefined);
      }
      throw new ProviderError("Model provider error: Response stream ended without a finish reason.", "provider", undefined, this.providerCallId, false, undefined);
    }
    let text = "";
    let reasoningText = "";
    const toolCalls: ModelToolCall[] = [];
    const usedIds = new Set<string>();
    for (const choice of choices) {
      text += choice.text;
      reasoningText += choice.reasoning;
      if (choice.toolCalls) toolCalls.push(...choice.toolCalls.finish(this.providerCallId, usedIds));
    }
    const reasoning = reasoningFromBlocks([{ text: reasoningText, data: {} }], undefined);
    return {
      text,
      ...(reasoning ? { reasoning } : {}),
      toolCalls,
      usage: this.usage,
      finishReason: mergedFinishReason(choices.map((choice) => choice.finishReason)),
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
    const choices = chunk.choices;
    if (!Array.isArray(choices)) return;
    for (let position = 0; position < choices.length; position++) {
      const choice = choices[position];
      if (typeof choice === "object" && choice !== null) this.acceptChoice(choice, position);
    }
  }

  /** One entry of a chunk's `choices`; `position` stands in for a missing `index`. */
  private acceptChoice(choice: WireChoice, position: number): void {
    const accumulator = this.choiceAt(typeof choice.index === "number" ? choice.index : position);
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) accumulator.finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (!delta) return;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning !== "") accumulator.onReasoning(reasoning);
    forEachContentPart(delta.content, accumulator.onText, accumulator.onReasoning);
    const toolCalls = delta.tool_calls;
    if (Array.isArray(toolCalls)) {
      accumulator.toolCalls ??= new ToolCallAssembler();
      for (const toolCall of toolCalls) accumulator.toolCalls.accept(toolCall);
    }
  }

  private choiceAt(index: number): ChoiceAccumulator {
    if (this.current?.index === index) return this.current;
    let found = this.choices.find((choice) => choice.index === index);
    if (!found) {
      found = new ChoiceAccumulator(index, this.onPart);
      this.choices.push(found);
    }
    this.current = found;
    return found;
  }
}

/** What one choice of a streamed answer has said so far; its text and reasoning deltas go out at once. */
class ChoiceAccumulator {
  text = "";
  reasoning = "";
  /** Made on the choice's first tool-call delta. */
  toolCalls: ToolCallAssembler | undefined;
  /** The last `finish_reason` of the choice, as sent. */
  finishReason: unknown;

  constructor(
    readonly index: number,
    private readonly onPart: (part: ModelStreamPart) => void,
  ) {}

  readonly onText = (delta: string): void => {
    this.text += delta;
    this.onPart({ type: "text-delta", delta });
  };

  readonly onReasoning = (delta: string): void => {
    this.reasoning += delta;
    this.onPart({ type: "reasoning-delta", delta });
  };
}
