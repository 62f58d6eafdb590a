import type { ProviderConfig } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../errors.js";
import { runtimeVersion } from "../version.js";
import type { ChatCompletionsClient, ChatCompletionsSettings } from "./chat-completions/client.js";
import type { ConnectionPool } from "./chat-completions/connections.js";
import type { HttpSender } from "./chat-completions/http.js";
import { importOnce } from "../import-once.js";
import { DeferredModelClient } from "./deferred-client.js";
import { responseLimitsFromEnv, type ResponseLimits } from "./response-limits.js";
import { providerTimeoutsFromEnv, type ProviderTimeouts } from "./timeouts.js";
import type { ModelClient, RequestOrigin } from "./types.js";

/** What decides which provider a session talks to. */
export interface ProviderEnvironment {
  env: NodeJS.ProcessEnv;
  /** The variable named by `--auth-token-env`, if any. */
  authTokenEnv?: string;
  /** A session's own GitHub token (`gitHubToken` in `session.create`); wins over the runtime's. */
  sessionToken?: string;
  /** The token of the account logged in with `account.login`, if any (after `--auth-token-env`). */
  accountToken?: () => string | undefined;
}

/**
 * The GitHub token for the Copilot API: the session's own, then `--auth-token-env`, then the
 * account logged in with `account.login`, then COPILOT_GITHUB_TOKEN, GH_TOKEN, GITHUB_TOKEN.
 */
export function resolveGitHubToken(environment: ProviderEnvironment): string | undefined {
  const { env, authTokenEnv } = environment;
  const fromFlag = authTokenEnv ? env[authTokenEnv] : undefined;
  return environment.sessionToken || fromFlag || environment.accountToken?.() || env.COPILOT_GITHUB_TOKEN || env.GH_TOKEN || env.GITHUB_TOKEN || undefined;
}

/** Where the runtime's own GitHub token comes from: `--auth-token-env`, a logged-in account, or an environment variable. */
export function gitHubTokenSource(environment: ProviderEnvironment): { kind: "flag" | "account" | "env"; variable?: string } | undefined {
  const { env, authTokenEnv } = environment;
  if (authTokenEnv && env[authTokenEnv]) return { kind: "flag", variable: authTokenEnv };
  if (environment.accountToken?.()) return { kind: "account" };
  const variable = ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"].find((name) => env[name]);
  return variable ? { kind: "env", variable } : undefined;
}

/** The default public Copilot API endpoint. */
export const defaultCopilotApiUrl = "https://api.githubcopilot.com";

/** A short description of how the runtime would reach a model (for status and the demo). */
export function describeDefaultProvider(environment: ProviderEnvironment): { kind: string; baseUrl?: string; authenticated: boolean } {
  const { env } = environment;
  if (env.COPILOT_API_URL) return { kind: "copilot", baseUrl: env.COPILOT_API_URL, authenticated: Boolean(resolveGitHubToken(environment)) };
  if (env.OPENAI_BASE_URL || env.OPENAI_API_KEY) {
    return { kind: "openai", baseUrl: env.OPENAI_BASE_URL ?? "https://api.openai.com/v1", authenticated: Boolean(env.OPENAI_API_KEY) };
  }
  const token = resolveGitHubToken(environment);
  return { kind: "copilot", baseUrl: defaultCopilotApiUrl, authenticated: Boolean(token) };
}

/**
 * Fails with a clear `NotConfigured` error when `COPILOT_API_URL` is set but no GitHub token is.
 * Sessions are still created without one (as the official runtime does); their first model call
 * fails with this error, which the turn reports as one `session.error` of type `authentication`.
 */
export function assertDefaultProviderUsable(environment: ProviderEnvironment): void {
  const { env } = environment;
  const url = env.COPILOT_API_URL;
  const token = resolveGitHubToken(environment);
  // With nothing configured at all a session is still created, as the official runtime does (its
  // SDK's own tests rely on it); its first model call then fails with a NotConfigured session.error.
  if (!url || token) return;
  const flag = environment.authTokenEnv ? `, ${environment.authTokenEnv} (named by --auth-token-env)` : "";
  throw new TandemError(
    ErrorCodes.NotConfigured,
    `COPILOT_API_URL is set (${url}) but no GitHub token is: set COPILOT_GITHUB_TOKEN, GH_TOKEN or GITHUB_TOKEN${flag}, pass gitHubToken to the SDK client, or give the session its own provider.`,
  );
}

/** The runtime has no default model provider and the session brought none. */
function noProviderConfigured(): TandemError {
  return new TandemError(
    ErrorCodes.NotConfigured,
    "No model provider is configured: set COPILOT_API_URL with a GitHub token (GH_TOKEN / GITHUB_TOKEN), OPENAI_BASE_URL / OPENAI_API_KEY, or pass a provider in session.create.",
  );
}

/** What else the client for a session may know. */
export interface ModelClientOptions {
  /** The session's model (Azure reports it as its one deployment in `listModels`). */
  model?: string;
  /** Keep-alive connections for chat completions, shared by the runtime's sessions (default: the client's own). */
  connections?: ConnectionPool;
  /** Set when a client performs the model requests (`llmInference.setProvider`): where they go instead of the network. */
  relay?: RequestRelay;
  /** The client's name (`clientName` of the session), added to the `User-Agent`. */
  clientName?: string;
  /** Sent as `X-Interaction-Id` to the Copilot API (the session's id), tying its calls together. */
  interactionId?: string;
}

/** Model requests performed by a client: for chat completions and for the AI SDK packages. */
export interface RequestRelay {
  sender: HttpSender;
  /** The `fetch` for a call made by `origin`. */
  fetchFor(origin: RequestOrigin | undefined): typeof fetch;
}

/**
 * Chooses the model client for a session: a BYOK `provider` first, then `COPILOT_API_URL` with a
 * GitHub token, then `OPENAI_BASE_URL`/`OPENAI_API_KEY`, then the public Copilot API with a token.
 * Request and stream-idle timeouts are read here, once, from `TANDEM_REQUEST_TIMEOUT_MS` and
 * `TANDEM_STREAM_IDLE_TIMEOUT_MS`, and the response limits ({@link responseLimitsFromEnv}). Chat completions (the Copilot API, OpenAI-compatible servers)
 * go through Tandem's own {@link ChatCompletionsClient}; the responses API, Azure and Anthropic
 * through AI SDK provider packages. Either client's code loads on the session's first model call.
 *
 * @example
 * const client = createModelClient({ type: "anthropic", baseUrl: "https://api.anthropic.com", apiKey }, { env: process.env });
 */
export function createModelClient(provider: ProviderConfig | undefined, environment: ProviderEnvironment, options: ModelClientOptions = {}): ModelClient {
  const timeouts = providerTimeoutsFromEnv(environment.env);
  const limits = responseLimitsFromEnv(environment.env);
  if (provider) {
    const client = byokClient(provider, timeouts, limits, options);
    return provider.wireModel ? withWireModel(client, provider.wireModel) : client;
  }
  const { env } = environment;
  if (env.COPILOT_API_URL) {
    assertDefaultProviderUsable(environment);
    const settings = { name: "copilot", baseUrl: env.COPILOT_API_URL, bearerToken: resolveGitHubToken(environment), headers: copilotHeaders(options.interactionId), ...userAgentOf(options, copilotUserAgent) };
    return chatCompletionsClient(settings, timeouts, options.relay?.sender ?? options.connections, limits);
  }
  if (env.OPENAI_BASE_URL || env.OPENAI_API_KEY) {
    const settings = { name: "openai", baseUrl: env.OPENAI_BASE_URL ?? "https://api.openai.com/v1", bearerToken: env.OPENAI_API_KEY, ...userAgentOf(options) };
    return chatCompletionsClient(settings, timeouts, options.relay?.sender ?? options.connections, limits);
  }
  const token = resolveGitHubToken(environment);
  if (!token) throw noProviderConfigured();
  const settings = { name: "copilot", baseUrl: defaultCopilotApiUrl, bearerToken: token, headers: copilotHeaders(options.interactionId), ...userAgentOf(options, copilotUserAgent) };
  return chatCompletionsClient(settings, timeouts, options.relay?.sender ?? options.connections, limits);
}

/**
 * The client for a BYOK provider config. `bearerToken` wins over `apiKey`; for
 * `openai` both are sent as `Authorization: Bearer`, for `anthropic` the key goes in `x-api-key`, for
 * `azure` in `api-key`. `headers` go on every request. With `hasBearerTokenProvider` no static
 * credential is sent: the session adds `Authorization: Bearer <token>` to each request with a token
 * it asks the client for. Anthropic always speaks the messages API, whatever `wireApi` says; `openai`
 * speaks chat completions unless `wireApi` is `responses`.
 */
function byokClient(provider: ProviderConfig, timeouts: ProviderTimeouts, limits: ResponseLimits, options: ModelClientOptions): ModelClient {
  const { baseUrl, headers } = provider;
  const { apiKey, bearerToken } = provider.hasBearerTokenProvider ? { apiKey: undefined, bearerToken: undefined } : provider;
  switch (provider.type ?? "openai") {
    case "anthropic":
      return aiSdkClient("anthropic", (ai) => new ai.AiSdkModelClient(ai.anthropicAdapter({ baseUrl, apiKey, bearerToken, headers }), timeouts, limits, relayFetch(options)));
    case "azure":
      return aiSdkClient("azure", (ai) => {
        const adapter = ai.azureAdapter({ baseUrl, apiKey, bearerToken, headers, wireApi: provider.wireApi, apiVersion: provider.azure?.apiVersion, deployment: options.model });
        return new ai.AiSdkModelClient(adapter, timeouts, limits, relayFetch(options));
      });
    case "openai":
      if (provider.wireApi === "responses") {
        return aiSdkClient("openai", (ai) => new ai.AiSdkModelClient(ai.openAIResponsesAdapter({ baseUrl, bearerToken: bearerToken ?? apiKey, headers }), timeouts, limits, relayFetch(options)));
      }
      return chatCompletionsClient({ name: "openai", baseUrl, bearerToken: bearerToken ?? apiKey, headers, ...userAgentOf(options) }, timeouts, options.relay?.sender ?? options.connections, limits);
  }
}

/**
 * A chat-completions client, whose code (the client, its request building and stream parsing)
 * loads on its first call: a session's create does not parse it.
 */
function chatCompletionsClient(settings: ChatCompletionsSettings, timeouts: ProviderTimeouts, sender: HttpSender | undefined, limits: ResponseLimits): ModelClient {
  return new DeferredModelClient(settings.name, async () => new (await chatCompletionsModule()).ChatCompletionsClient(settings, timeouts, sender, limits));
}

/**
 * The chat-completions client's module, imported once for every session (an `import()` of a
 * loaded module still goes through the module loader: ~0.2 M instructions per session).
 */
const chatCompletionsModule = importOnce(() => import("./chat-completions/client.js"));

/** A client on the AI SDK path, whose code (`ai-sdk-providers.ts`) loads on its first call. */
function aiSdkClient(name: string, build: (ai: typeof import("./ai-sdk-providers.js")) => ModelClient): ModelClient {
  return new DeferredModelClient(name, async () => build(await import("./ai-sdk-providers.js")));
}

/** A client whose requests name `wireModel` to the provider, whatever the session calls the model. */
function withWireModel(client: ModelClient, wireModel: string): ModelClient {
  return {
    name: client.name,
    generate: (request, onPart) => client.generate({ ...request, model: wireModel }, onPart),
    listModels: () => client.listModels(),
  };
}

/** The `fetch` per call of a relay, if model requests are relayed. */
function relayFetch(options: ModelClientOptions): ((origin: RequestOrigin | undefined) => typeof fetch) | undefined {
  const relay = options.relay;
  return relay ? (origin) => relay.fetchFor(origin) : undefined;
}

/** The runtime's `User-Agent` (`base`, default `tandem/<version>`) with the session's client name after it (control characters dropped). */
function userAgentOf(options: ModelClientOptions, base?: string): { userAgent?: string } {
  const clientName = options.clientName?.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  if (clientName) return { userAgent: `${base ?? `tandem/${runtimeVersion}`} ${clientName}` };
  return base ? { userAgent: base } : {};
}

/** The `User-Agent` of Tandem's requests to the Copilot API (a client name may follow). */
export const copilotUserAgent = `tandem/${runtimeVersion} (GitHub Copilot API client)`;

/** The version of the Copilot API's request and response shapes Tandem speaks (`X-GitHub-Api-Version`). */
export const copilotApiVersion = "2025-05-01";

/**
 * The headers Tandem adds to every Copilot API request (besides `User-Agent` and `Authorization`);
 * `interactionId` (the session's id) ties a session's calls together.
 */
export function copilotHeaders(interactionId?: string): Record<string, string> {
  return {
    "Copilot-Integration-Id": "tandem",
    "Editor-Version": `tandem/${runtimeVersion}`,
    "X-GitHub-Api-Version": copilotApiVersion,
    ...(interactionId ? { "X-Interaction-Id": interactionId } : {}),
  };
}
