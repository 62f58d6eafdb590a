import type { ModelInfo, ProviderConfig } from "@tandem/protocol";
import { invalidParams } from "../errors.js";

/** A provider added to a session at runtime, by name. */
export type NamedProviderConfig = ProviderConfig & { name: string };

/** A model of an added provider. */
export interface AddedModelConfig {
  id: string;
  provider: string;
  /** The model name sent to the provider (default: `id`). */
  wireModel?: string;
  name?: string;
  maxPromptTokens?: number;
  maxContextWindowTokens?: number;
  maxOutputTokens?: number;
  capabilities?: { supports?: { vision?: boolean; reasoningEffort?: boolean } };
}

/**
 * Providers and models added to one session while it runs (`session.provider.add`). A model is
 * selected as `<provider>/<id>` (`session.model.switchTo`); its calls then go to its provider with
 * its `wireModel`. Adding a provider again replaces it; a model must name a provider added now or
 * before. Credentials stay in memory only: they are never written to the session's files.
 *
 * @example
 * providers.add([{ name: "local", baseUrl: "http://localhost:11434/v1" }], [{ provider: "local", id: "llama" }]);
 * providers.providerFor("local/llama"); // { name: "local", baseUrl: …, wireModel: "llama" }
 */
export class SessionProviders {
  private readonly providers = new Map<string, NamedProviderConfig>();
  private readonly models = new Map<string, AddedModelConfig>();
  /** The session's own provider (none: the runtime's default), restored when it leaves an added model. */
  ownProvider: ProviderConfig | undefined;

  /** Adds providers, then models; answers the models added, as `session.model.list` lists them. Nothing is added when one is refused. */
  add(providers: readonly NamedProviderConfig[], models: readonly AddedModelConfig[]): ModelInfo[] {
    const known = new Set([...this.providers.keys(), ...providers.map((provider) => provider.name)]);
    const unknown = models.filter((model) => !known.has(model.provider));
    if (unknown.length > 0) {
      throw invalidParams(`session.provider.add: model ${unknown.map((model) => `${model.provider}/${model.id}`).join(", ")} names a provider that was not added`, { providers: [...known] });
    }
    for (const provider of providers) this.providers.set(provider.name, provider);
    for (const model of models) this.models.set(selectionIdOf(model), model);
    return models.map((model) => modelInfoOf(model));
  }

  /** The added models, as `session.model.list` lists them. */
  list(): ModelInfo[] {
    return [...this.models.values()].map((model) => modelInfoOf(model));
  }

  /** Whether `modelId` names an added model (`<provider>/<id>`). */
  has(modelId: string): boolean {
    return this.models.has(modelId);
  }

  /** The provider config the session uses for an added model (its wire name and limits included). */
  providerFor(modelId: string): ProviderConfig & { wireModel: string } {
    const model = this.models.get(modelId);
    const provider = model && this.providers.get(model.provider);
    if (!model || !provider) throw invalidParams(`No model ${modelId} was added to this session`, { modelId });
    const { name: _name, ...config } = provider;
    return {
      ...config,
      wireModel: model.wireModel ?? model.id,
      ...(model.maxPromptTokens !== undefined ? { maxPromptTokens: model.maxPromptTokens } : {}),
      ...(model.maxContextWindowTokens !== undefined ? { maxContextWindowTokens: model.maxContextWindowTokens } : {}),
    };
  }
}

/** How an added model is selected: `<provider>/<id>`. */
export function selectionIdOf(model: Pick<AddedModelConfig, "provider" | "id">): string {
  return `${model.provider}/${model.id}`;
}

function modelInfoOf(model: AddedModelConfig): ModelInfo {
  const contextWindow = model.maxContextWindowTokens ?? (model.maxPromptTokens !== undefined ? model.maxPromptTokens + (model.maxOutputTokens ?? 0) : 128_000);
  return {
    id: selectionIdOf(model),
    name: model.name ?? model.id,
    capabilities: {
      supports: { vision: model.capabilities?.supports?.vision ?? false, reasoningEffort: model.capabilities?.supports?.reasoningEffort ?? false },
      limits: {
        max_context_window_tokens: contextWindow,
        ...(model.maxPromptTokens !== undefined ? { max_prompt_tokens: model.maxPromptTokens } : {}),
        ...(model.maxOutputTokens !== undefined ? { max_output_tokens: model.maxOutputTokens } : {}),
      },
    },
  };
}
