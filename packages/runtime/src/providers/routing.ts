import type { ModelInfo, NamedProviderConfig, ProviderConfig, ProviderModelConfig } from "@tandem/protocol";
import type { ModelClient, ModelRequest, ModelResponse, ModelStreamPart } from "./types.js";

/** The provider name the SDK gives the session's single `provider` (SDK 1.0.x `DEFAULT_PROVIDER_NAME`). */
export const defaultProviderName = "default";

/** Which providers a session may call: its default `provider` and the named `providers` with their `models`. */
export interface ProviderRegistry {
  provider?: ProviderConfig;
  providers?: readonly NamedProviderConfig[];
  models?: readonly ProviderModelConfig[];
}

/** Where one model call goes. */
export interface ModelRoute {
  /** The provider's name (`default` for the session's single provider); absent for the runtime's own provider. */
  providerName?: string;
  /** The BYOK provider; absent for the runtime's own provider. */
  provider?: ProviderConfig;
  /** The model name sent to the provider. */
  wireModel: string;
}

/**
 * Where a call for `model` goes: a provider-qualified selection id (`<provider>/<id>`) of the
 * registry's `models` goes to that named provider with the model's `wireModel` (default: its
 * `id`); anything else goes to the session's `provider` with its `wireModel`, then `modelId`, then
 * the model as selected, or to the runtime's own provider when the session has none.
 *
 * @example
 * routeModel({ providers: [{ name: "alpha", baseUrl }], models: [{ id: "fast", provider: "alpha", wireModel: "gpt-4o-mini" }] }, "alpha/fast");
 * // { providerName: "alpha", provider: { name: "alpha", baseUrl }, wireModel: "gpt-4o-mini" }
 */
export function routeModel(registry: ProviderRegistry, model: string): ModelRoute {
  const named = namedModel(registry, model);
  if (named) return named;
  const { provider } = registry;
  if (!provider) return { wireModel: model };
  return { providerName: defaultProviderName, provider, wireModel: provider.wireModel ?? provider.modelId ?? model };
}

/** The registry entry selected by `model` (`<provider>/<id>`), if there is one. */
export function findRegistryModel(registry: ProviderRegistry, model: string): { provider: NamedProviderConfig; model: ProviderModelConfig } | undefined {
  const slash = model.indexOf("/");
  if (slash <= 0) return undefined;
  const providerName = model.slice(0, slash);
  const id = model.slice(slash + 1);
  const entry = registry.models?.find((candidate) => candidate.provider === providerName && candidate.id === id);
  const provider = registry.providers?.find((candidate) => candidate.name === providerName);
  if (!entry || !provider) return undefined;
  return { provider, model: entry };
}

function namedModel(registry: ProviderRegistry, model: string): ModelRoute | undefined {
  const found = findRegistryModel(registry, model);
  if (!found) return undefined;
  return { providerName: found.provider.name, provider: found.provider, wireModel: found.model.wireModel ?? found.model.id };
}

/** Per-request credentials a provider gets from the client (`hasBearerTokenProvider`). */
export type BearerTokenSource = (providerName: string, signal: AbortSignal) => Promise<string>;

/** Creates the client of one provider (the runtime's own when `provider` is absent). */
export type ProviderClientFactory = (provider: ProviderConfig | undefined, wireModel: string) => ModelClient;

/**
 * A session's model client over every provider it may call: each request goes to the provider its
 * model routes to ({@link routeModel}) with the wire model name, and, for a provider configured
 * with `hasBearerTokenProvider`, `Authorization: Bearer <token>` with a token asked for that
 * request (the client owns caching). One client per provider, created on its first call.
 *
 * @example
 * const client = new RoutingModelClient(config, (provider, wireModel) => createModelClient(provider, environment, { model: wireModel }), tokens);
 */
export class RoutingModelClient implements ModelClient {
  readonly name: string;
  private readonly clients = new Map<string, ModelClient>();

  constructor(
    private readonly registry: ProviderRegistry,
    private readonly createClient: ProviderClientFactory,
    private readonly bearerTokens?: BearerTokenSource,
  ) {
    this.name = registry.provider?.type ?? (registry.provider ? "openai" : "runtime");
  }

  async generate(request: ModelRequest, onPart: (part: ModelStreamPart) => void): Promise<ModelResponse> {
    const route = routeModel(this.registry, request.model);
    const client = this.clientFor(route);
    const authorization = await this.authorization(route, request.signal);
    const headers = authorization ? { ...request.headers, Authorization: authorization } : request.headers;
    return client.generate({ ...request, model: route.wireModel, ...(headers ? { headers } : {}) }, onPart);
  }

  /** The models of the session's default provider (the runtime's own, or its single `provider`). */
  listModels(): Promise<ModelInfo[]> {
    return this.clientFor({ ...(this.registry.provider ? { providerName: defaultProviderName, provider: this.registry.provider } : {}), wireModel: "" }).listModels();
  }

  private clientFor(route: ModelRoute): ModelClient {
    const key = route.providerName === undefined ? "" : `${route.providerName}\u0000${route.wireModel}`;
    let client = this.clients.get(key);
    if (!client) {
      client = this.createClient(route.provider, route.wireModel);
      this.clients.set(key, client);
    }
    return client;
  }

  private async authorization(route: ModelRoute, signal: AbortSignal): Promise<string | undefined> {
    if (!route.provider?.hasBearerTokenProvider || route.providerName === undefined || !this.bearerTokens) return undefined;
    return `Bearer ${await this.bearerTokens(route.providerName, signal)}`;
  }
}
