import { ErrorCodes } from "@tandem/protocol/errors";
import { errorMessage, TandemError } from "../errors.js";
import { runtimeVersion } from "../version.js";

/** How many tokens' users {@link GitHubUsers} keeps. */
export const maxKnownTokens = 256;

/** The public GitHub API, where the Copilot user of a github.com token is looked up. */
export const defaultGitHubApiUrl = "https://api.github.com";

/** One quota entry of a Copilot user (`quota_snapshots.<kind>`), as the GitHub API sends it. */
export interface CopilotQuotaEntry {
  entitlement?: number;
  overage_count?: number;
  overage_permitted?: boolean;
  percent_remaining?: number;
  timestamp_utc?: string;
  unlimited?: boolean;
}

/** What `<GitHub API>/copilot_internal/user` answers for a token (the fields Tandem reads; the rest is kept). */
export interface CopilotUser {
  login?: string;
  copilot_plan?: string;
  endpoints?: { api?: string; telemetry?: string };
  quota_reset_date?: string;
  quota_reset_date_utc?: string;
  quota_snapshots?: Record<string, CopilotQuotaEntry | undefined>;
  [field: string]: unknown;
}

/**
 * The GitHub API that knows the Copilot users of tokens: `COPILOT_DEBUG_GITHUB_API_URL` when set;
 * else the public API when the runtime talks to the public Copilot API; else none (a custom
 * `COPILOT_API_URL` without a GitHub API to ask: users are not looked up).
 *
 * @example
 * gitHubApiUrlFromEnv({ COPILOT_DEBUG_GITHUB_API_URL: "http://127.0.0.1:8080" }); // "http://127.0.0.1:8080"
 */
export function gitHubApiUrlFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const configured = env.COPILOT_DEBUG_GITHUB_API_URL?.trim();
  if (configured) return configured.replace(/\/+$/, "");
  if (env.COPILOT_API_URL || env.OPENAI_BASE_URL || env.OPENAI_API_KEY) return undefined;
  return defaultGitHubApiUrl;
}

/** Options of {@link GitHubUsers}. */
export interface GitHubUsersOptions {
  /** The GitHub API base URL; undefined: no lookups (every `lookup` fails with `NotAvailable`). */
  apiUrl: string | undefined;
  /** How long one lookup may take (default 15 s). */
  timeoutMs?: number;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
}

/**
 * Looks up the Copilot user of a GitHub token at `<GitHub API>/copilot_internal/user`: its login,
 * plan and quota. A successful answer is kept per token (the most recent {@link maxKnownTokens}
 * tokens) for who the token belongs to; a quota is always asked afresh (`fresh`). A refused token
 * (401/403) fails with `AuthenticationFailed`, anything else with `ProviderError`, and neither is
 * kept, so a later call asks again. Tokens are sent only in the `Authorization` header and never
 * appear in an error.
 *
 * @example
 * const users = new GitHubUsers({ apiUrl: "https://api.github.com" });
 * const user = await users.lookup(token); // { login: "octocat", copilot_plan: "individual", … }
 */
export class GitHubUsers {
  private readonly known = new Map<string, Promise<CopilotUser>>();
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: GitHubUsersOptions) {
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** Whether users can be looked up (a GitHub API is known). */
  get available(): boolean {
    return this.options.apiUrl !== undefined;
  }

  /** The Copilot user of `token`; `fresh`: asked again even when known (for numbers that change, like quotas). */
  lookup(token: string, options: { fresh?: boolean } = {}): Promise<CopilotUser> {
    const cached = options.fresh ? undefined : this.known.get(token);
    if (cached) return cached;
    const request = this.request(token);
    this.known.delete(token);
    this.known.set(token, request);
    // The oldest lookup goes first: a runtime serving many tokens keeps a bounded memory of them.
    if (this.known.size > maxKnownTokens) this.known.delete(this.known.keys().next().value as string);
    request.catch(() => {
      if (this.known.get(token) === request) this.known.delete(token);
    });
    return request;
  }

  /** Forgets what was looked up for `token` (its account logged out). */
  forget(token: string): void {
    this.known.delete(token);
  }

  private async request(token: string): Promise<CopilotUser> {
    const apiUrl = this.options.apiUrl;
    if (!apiUrl) {
      throw new TandemError(ErrorCodes.NotAvailable, "GitHub user lookups are not available: COPILOT_API_URL names a custom Copilot API and no GitHub API is configured (COPILOT_DEBUG_GITHUB_API_URL)");
    }
    const url = `${apiUrl}/copilot_internal/user`;
    let response: Response;
    try {
      response = await this.fetch(url, {
        headers: { Authorization: `Bearer ${token}`, Accept: "application/json", "User-Agent": `tandem/${runtimeVersion}` },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new TandemError(ErrorCodes.ProviderError, `Could not look up the GitHub user at ${url}: ${errorMessage(error)}`, { url });
    }
    const body = await response.text();
    if (response.status === 401 || response.status === 403) {
      const reason = response.status === 401 ? "401 Unauthorized" : "403 Forbidden";
      throw new TandemError(ErrorCodes.AuthenticationFailed, `GitHub refused the token (${reason}) at ${url}${messageOf(body)}`, { url, status: response.status });
    }
    if (!response.ok) {
      throw new TandemError(ErrorCodes.ProviderError, `The GitHub user lookup at ${url} failed with HTTP ${response.status}${messageOf(body)}`, { url, status: response.status });
    }
    const user = parseUser(body);
    if (!user) throw new TandemError(ErrorCodes.ProviderError, `The GitHub user lookup at ${url} answered something that is not a JSON object`, { url });
    return user;
  }
}

function parseUser(body: string): CopilotUser | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as CopilotUser) : undefined;
  } catch {
    return undefined;
  }
}

/** `: <message>` from a GitHub error body (`{"message": …}`), else nothing. */
function messageOf(body: string): string {
  const parsed = parseUser(body);
  const message = parsed && typeof parsed.message === "string" ? parsed.message : undefined;
  return message ? `: ${message.slice(0, 200)}` : "";
}
