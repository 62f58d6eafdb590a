import type { ModelInfo, ProviderConfig } from "@tandem/protocol";
import { promptLimitOf } from "./window.js";

/**
 * The prompt limits of the models of each provider, read from its model list once per runtime:
 * the first session that needs one asks, later ones (and a list that could not be read) share the
 * answer. A failed read stays failed (windows then fall back to the default) so that a provider
 * without a model list is not asked again on every session.
 *
 * @example
 * const windows = new ModelWindows((provider) => createModelClient(provider, ...).listModels());
 * await windows.limit(undefined, "claude-sonnet-4"); // 200000 from the Copilot API's list
 */
export class ModelWindows {
  private readonly lists = new Map<string, Promise<ModelInfo[] | undefined>>();

  constructor(
    /** Reads the model list of `provider` (undefined: the runtime's default provider) for a session on `model`. */
    private readonly listFor: (provider: ProviderConfig | undefined, model: string) => Promise<ModelInfo[]>,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** `model`'s prompt limit from its provider's list, or undefined when the list has none. */
  async limit(provider: ProviderConfig | undefined, model: string): Promise<number | undefined> {
    const key = provider ? JSON.stringify(provider) : "";
    let list = this.lists.get(key);
    if (!list) {
      list = this.listFor(provider, model).catch((error: unknown) => {
        this.onFailure(error);
        return undefined;
      });
      this.lists.set(key, list);
    }
    return promptLimitOf((await list)?.find((candidate) => candidate.id === model));
  }
}
