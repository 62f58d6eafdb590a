import { defaultCopilotApiUrl, resolveGitHubToken, type ProviderEnvironment } from "./resolve.js";

/**
 * The Copilot API a session without a provider of its own talks to, with its GitHub token; undefined
 * when its default provider is not the Copilot API (`OPENAI_BASE_URL` / `OPENAI_API_KEY` without
 * `COPILOT_API_URL`) or no GitHub token is available. Mirrors {@link createModelClient}'s choice.
 *
 * @example
 * copilotApiAccess({ env: { COPILOT_API_URL: "http://127.0.0.1:9000", GH_TOKEN: "t" } });
 * // { baseUrl: "http://127.0.0.1:9000", token: "t" }
 */
export function copilotApiAccess(environment: ProviderEnvironment): { baseUrl: string; token: string } | undefined {
  const { env } = environment;
  if (!env.COPILOT_API_URL && (env.OPENAI_BASE_URL || env.OPENAI_API_KEY)) return undefined;
  const token = resolveGitHubToken(environment);
  if (!token) return undefined;
  return { baseUrl: env.COPILOT_API_URL ?? defaultCopilotApiUrl, token };
}
