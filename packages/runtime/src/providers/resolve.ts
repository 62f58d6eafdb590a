import type { ProviderConfig } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../errors.js";
import { OpenAICompatibleClient } from "./openai-compatible.js";
import type { ModelClient } from "./types.js";

/** What decides which provider a session talks to. */
export interface ProviderEnvironment {
  env: NodeJS.ProcessEnv;
  /** The variable named by `--auth-token-env`, if any. */
  authTokenEnv?: string;
}

/** The GitHub token for the Copilot API: `--auth-token-env`, then COPILOT_GITHUB_TOKEN, GH_TOKEN, GITHUB_TOKEN. */
export function resolveGitHubToken(environment: ProviderEnvironment): string | undefined {
  const { env, authTokenEnv } = environment;
  const fromFlag = authTokenEnv ? env[authTokenEnv] : undefined;
  return fromFlag || env.COPILOT_GITHUB_TOKEN || env.GH_TOKEN || env.GITHUB_TOKEN || undefined;
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
 * Chooses the model client for a session: a BYOK `provider` first, then `COPILOT_API_URL` with a
 * GitHub token, then `OPENAI_BASE_URL`/`OPENAI_API_KEY`, then the public Copilot API with a token.
 */
export function createModelClient(provider: ProviderConfig | undefined, environment: ProviderEnvironment): ModelClient {
  if (provider) return createByokClient(provider);
  const { env } = environment;
  if (env.COPILOT_API_URL) {
    return new OpenAICompatibleClient({ name: "copilot", baseUrl: env.COPILOT_API_URL, bearerToken: resolveGitHubToken(environment), headers: copilotHeaders() });
  }
  if (env.OPENAI_BASE_URL || env.OPENAI_API_KEY) {
    return new OpenAICompatibleClient({ name: "openai", baseUrl: env.OPENAI_BASE_URL ?? "https://api.openai.com/v1", bearerToken: env.OPENAI_API_KEY });
  }
  const token = resolveGitHubToken(environment);
  if (!token) {
    throw new TandemError(
      ErrorCodes.NotConfigured,
      "No model provider is configured: set COPILOT_API_URL with a GitHub token (GH_TOKEN / GITHUB_TOKEN), OPENAI_BASE_URL / OPENAI_API_KEY, or pass a provider in session.create.",
    );
  }
  return new OpenAICompatibleClient({ name: "copilot", baseUrl: defaultCopilotApiUrl, bearerToken: token, headers: copilotHeaders() });
}

function createByokClient(provider: ProviderConfig): ModelClient {
  const type = provider.type ?? "openai";
  if (type === "openai" && (provider.wireApi ?? "completions") === "completions") {
    return new OpenAICompatibleClient({
      name: "openai",
      baseUrl: provider.baseUrl,
      bearerToken: provider.bearerToken ?? provider.apiKey,
    });
  }
  throw new TandemError(
    ErrorCodes.NotAvailable,
    `Provider type "${type}"${provider.wireApi ? ` with wireApi "${provider.wireApi}"` : ""} is not supported yet; use type "openai" with wireApi "completions".`,
  );
}

function copilotHeaders(): Record<string, string> {
  return { "Copilot-Integration-Id": "tandem", "Editor-Version": "tandem/0.1.0" };
}
