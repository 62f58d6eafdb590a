import type { ModelInfo, ProviderConfig } from "@tandem/protocol";
import type { Logger } from "../log.js";

/** The window assumed while none is known (the smallest of today's common chat models). */
export const defaultWindowTokens = 128_000;

/**
 * Where a model's prompt limit is found: `known` reads a model list the runtime already holds
 * (no request), `fetch` asks the provider for its list (done only after a context-length refusal).
 */
export interface WindowLookup {
  known(model: string): number | undefined;
  fetch(model: string): Promise<number | undefined>;
}

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
 * refusal taught, the provider config, a model list the runtime holds (the default provider's,
 * once `models.list` read it), else 128,000. Sessions make no request of their own to learn it
 * until the provider refuses a request as too long: then the provider's list is read.
 */
export class ContextWindow {
  private learned: number | undefined;

  constructor(
    private readonly configured: number | undefined,
    private readonly lookup: WindowLookup,
    private readonly logger: Logger,
  ) {}

  /** The limit for `model` as far as it is known now. */
  limit(model: string): number {
    return this.learned ?? this.configured ?? this.lookup.known(model) ?? defaultWindowTokens;
  }

  /**
   * The provider refused `tokensSent` (estimated) tokens as too long: the limit is below that.
   * Takes the lowest of 90 % of what was sent, the limit the error message states (the smallest
   * number of tokens it names) and the provider's model list; the next compaction aims under it.
   */
  async learnFromRefusal(model: string, message: string, tokensSent: number): Promise<void> {
    const named = [...message.matchAll(/(\d[\d,]{2,})\s*(?:tokens|maximum|\))/gi)].map((match) => Number(match[1]?.replaceAll(",", ""))).filter((value) => value >= 512);
    let listed: number | undefined;
    try {
      listed = this.configured ?? (await this.lookup.fetch(model));
    } catch (error) {
      this.logger.warn(`could not read the model list for ${model}'s context window`, error);
    }
    const limit = Math.min(...named, listed ?? Number.POSITIVE_INFINITY, Math.floor(tokensSent * 0.9));
    this.learned = Math.min(this.learned ?? Number.POSITIVE_INFINITY, limit);
  }
}
