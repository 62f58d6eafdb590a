import type { ModelInfo, ProviderConfig } from "@tandem/protocol";
import type { Logger } from "../log.js";

/** The window assumed while none is known (the smallest of today's common chat models). */
export const defaultWindowTokens = 128_000;

/** How long the first model call of a session waits for the provider's model list before it goes on with what is known. */
export const windowLookupWaitMs = 5_000;

/**
 * Where a model's prompt limit is found: `known` reads a model list the runtime already holds
 * (no request), `fetch` asks the provider for its list (the runtime reads it once per provider,
 * before the first model call that needs it, and again after a context-length refusal).
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

/** The prompt limit a BYOK provider (or registry model) config states (`maxPromptTokens`, else `maxContextWindowTokens`). */
export function configuredLimit(provider: Pick<ProviderConfig, "maxPromptTokens" | "maxContextWindowTokens"> | undefined): number | undefined {
  return provider?.maxPromptTokens ?? provider?.maxContextWindowTokens;
}

/**
 * The number of tokens a request to the session's model may hold. In order: what a context-length
 * refusal taught, the provider config, the provider's model list (as the reference, which reads
 * `GET /models`: asked once per runtime and provider, before the first model call, see
 * {@link ContextWindow.ready}), else 128,000. A list that cannot be read leaves the default.
 */
export class ContextWindow {
  private learned: number | undefined;
  /** What the provider's list said, per model (undefined: not listed or not readable). */
  private readonly listed = new Map<string, number | undefined>();
  private readonly lookups = new Map<string, Promise<void>>();

  constructor(
    private readonly configured: number | undefined,
    private readonly lookup: WindowLookup,
    private readonly logger: Logger,
  ) {}

  /** The limit for `model` as far as it is known now. */
  limit(model: string): number {
    return this.learned ?? this.configured ?? this.lookup.known(model) ?? this.listed.get(model) ?? defaultWindowTokens;
  }

  /**
   * Reads `model`'s window from the provider's list unless it is known already; waits at most
   * `waitMs` (a slow list arrives for later calls), and a failure leaves the default.
   */
  async ready(model: string, waitMs = windowLookupWaitMs): Promise<void> {
    if (this.learned !== undefined || this.configured !== undefined || this.listed.has(model) || this.lookup.known(model) !== undefined) return;
    let lookup = this.lookups.get(model);
    if (!lookup) {
      lookup = this.lookup.fetch(model).then(
        (limit) => {
          this.listed.set(model, limit);
        },
        (error: unknown) => {
          this.logger.warn(`could not read the model list for ${model}'s context window; assuming ${defaultWindowTokens} tokens`, error);
        },
      );
      this.lookups.set(model, lookup);
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
      timer.unref();
    });
    await Promise.race([lookup, waited]);
    clearTimeout(timer);
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
