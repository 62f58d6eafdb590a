import type { ProviderConfig } from "@tandem/protocol";
import { userAgent } from "./chat-completions/user-agent.js";
import { copilotHeaders, copilotUserAgent, defaultCopilotApiUrl, resolveGitHubToken, type ProviderEnvironment } from "./resolve.js";

/** Where a session's model calls go, with the credentials and headers Tandem sends. */
export type ProviderEndpoint = {
  type: "openai" | "azure" | "anthropic";
  wireApi?: "completions" | "responses";
  baseUrl: string;
  apiKey?: string;
  headers: Record<string, string>;
};

/**
 * The endpoint a session talks to: its BYOK `provider` when it has one (the credential it sends
 * and its headers; none when the token comes from the client per request), else the runtime's
 * default provider — the Copilot API (`COPILOT_API_URL` or the public one) with the session's or
 * the runtime's GitHub token and the headers of its Copilot API calls (`interactionId`: the
 * session's id, as `X-Interaction-Id`), or an OpenAI-compatible server.
 *
 * @example
 * const endpoint = providerEndpoint(session.config.provider, { env: process.env, sessionToken }, { interactionId: sessionId });
 */
export function providerEndpoint(provider: ProviderConfig | undefined, environment: ProviderEnvironment, options: { interactionId?: string } = {}): ProviderEndpoint {
  if (provider) return byokEndpoint(provider);
  const { env } = environment;
  if (!env.COPILOT_API_URL && (env.OPENAI_BASE_URL || env.OPENAI_API_KEY)) {
    const apiKey = env.OPENAI_API_KEY;
    return { type: "openai", wireApi: "completions", baseUrl: env.OPENAI_BASE_URL ?? "https://api.openai.com/v1", ...(apiKey ? { apiKey } : {}), headers: withBearer({ "User-Agent": userAgent }, apiKey) };
  }
  const token = resolveGitHubToken(environment);
  const headers = withBearer({ "User-Agent": copilotUserAgent, ...copilotHeaders(options.interactionId) }, token);
  return { type: "openai", wireApi: "completions", baseUrl: env.COPILOT_API_URL ?? defaultCopilotApiUrl, ...(token ? { apiKey: token } : {}), headers };
}

function byokEndpoint(provider: ProviderConfig): ProviderEndpoint {
  const type = provider.type ?? "openai";
  const credential = provider.hasBearerTokenProvider ? undefined : (provider.bearerToken ?? provider.apiKey);
  const headers: Record<string, string> = { ...provider.headers };
  const endpoint: ProviderEndpoint = { type, baseUrl: provider.baseUrl, headers, ...(credential ? { apiKey: credential } : {}) };
  if (type !== "anthropic") endpoint.wireApi = provider.wireApi ?? "completions";
  if (!credential) return endpoint;
  if (provider.bearerToken || type === "openai") headers.Authorization = `Bearer ${credential}`;
  else if (type === "anthropic") headers["x-api-key"] = credential;
  else headers["api-key"] = credential;
  return endpoint;
}

function withBearer(headers: Record<string, string>, token: string | undefined): Record<string, string> {
  return token ? { ...headers, Authorization: `Bearer ${token}` } : headers;
}
