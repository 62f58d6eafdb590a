import type { ModelInfo, ProviderConfig } from "@tandem/protocol";
import type { Logger } from "../log.js";

/** The window assumed while none is known (the smallest of today's common chat models). */
export const defaultWindowTokens = 128_000;
/**
 * Below this many conversation tokens the window is not looked up: no chat model has a window
 * small enough for such a conversation to need compaction, and short sessions skip the request.
 */
export const windowLookupFloorTokens = 1_024;

/** Finds a model's prompt limit in its provider's model list (undefined when it is not listed). */
export type WindowLookup = (model: string) => Promise<number | undefined>;

/** A model's prompt limit from a model-list entry: `max_prompt_tokens`, else the whole window. */
export function promptLimitOf(model: ModelInfo | undefined): number | undefined {
  const limits = model?.capabilities?.limits;
  return limits?.max_prompt_tokens ?? limits?.max_context_window_tokens;
}

/** The prompt limit a BYOK provider config states (`maxPromptTokens`, else `maxContextWindowTokens`). */
export function configuredLimit(provider: ProviderConfig | undefined): number | undefined {
  return provider?.maxPromptTokens ?? provider?.maxContextWindowTokens;
}

/**
 * The number of tokens a request to the session's model may hold. In order: what a context-length
 * refusal taught, the provider config, the provider's model list (looked up once per model, and
 * only once the conversation reaches {@link windowLookupFloorTokens}), else 128,000.
 */
export class ContextWindow {
  private readonly listed = new Map<string, number | undefined>();
  private learned: number | undefined;

  constructor(
    private readonly configured: number | undefined,
    private readonly lookup: WindowLookup,
    private readonly logger: Logger,
  ) {}

  /** The limit for `model` as far as it is known now. */
  limit(model: string): number {
    return this.learned ?? this.configured ?? this.listed.get(model) ?? defaultWindowTokens;
  }

  /** Looks the model up in its provider's list when that may matter (once per model). */
  async ensure(model: string, conversationTokens: number): Promise<void> {
    if (this.configured !== undefined || this.listed.has(model) || conversationTokens < windowLookupFloorTokens) return;
    let limit: number | undefined;
    try {
      limit = await this.lookup(model);
    } catch (error) {
      this.logger.warn(`could not read the model list for ${model}'s context window; assuming ${defaultWindowTokens} tokens`, error);
    }
    this.listed.set(model, limit);
  }

  /**
   * The provider refused `tokensSent` (estimated) tokens as too long: the limit is below that.
   * Takes 90 % of what was sent, or the limit the error message states (the smallest number of
   * tokens it names) when that is lower; the next compaction then aims under it.
   */
  learnFromRefusal(message: string, tokensSent: number): void {
    const named = [...message.matchAll(/(\d[\d,]{2,})\s*(?:tokens|maximum|\))/gi)].map((match) => Number(match[1]?.replaceAll(",", ""))).filter((value) => value >= 512);
    const stated = named.length > 0 ? Math.min(...named) : undefined;
    const limit = Math.min(stated ?? Number.POSITIVE_INFINITY, Math.floor(tokensSent * 0.9));
    this.learned = Math.min(this.learned ?? Number.POSITIVE_INFINITY, limit);
  }
}
