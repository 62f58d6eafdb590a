import type { McpTokenRequest, McpTokenRequester } from "./types.js";

/** Why a token is asked for: none yet, the current one was refused, more scope is needed, or a fresh login. */
export type McpTokenReason = McpTokenRequest["reason"];

/** The `WWW-Authenticate: Bearer …` parameters an MCP client acts on. */
export interface BearerChallenge {
  resourceMetadataUrl?: string;
  scope?: string;
  error?: string;
}

/**
 * Parses a `WWW-Authenticate` header's Bearer challenge (RFC 6750, RFC 9728's `resource_metadata`);
 * undefined for other schemes.
 *
 * @example
 * parseBearerChallenge('Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="mcp.read"');
 * // { resourceMetadataUrl: "https://x/.well-known/oauth-protected-resource", scope: "mcp.read" }
 */
export function parseBearerChallenge(header: string | null): BearerChallenge | undefined {
  if (!header || !/^\s*Bearer\b/i.test(header)) return undefined;
  const params = new Map<string, string>();
  for (const match of header.replace(/^\s*Bearer\s*/i, "").matchAll(/([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    params.set(match[1]!.toLowerCase(), (match[2] ?? match[3] ?? "").replace(/\\(.)/g, "$1"));
  }
  const challenge: BearerChallenge = {};
  const resourceMetadataUrl = params.get("resource_metadata");
  if (resourceMetadataUrl) challenge.resourceMetadataUrl = resourceMetadataUrl;
  const scope = params.get("scope");
  if (scope) challenge.scope = scope;
  const error = params.get("error");
  if (error) challenge.error = error;
  return challenge;
}

/**
 * A remote MCP server's requests with a token the application provides (`mcp.oauth_required`,
 * answered by `session.mcp.oauth.handlePendingRequest`). The runtime runs no OAuth flow itself: on
 * a Bearer challenge it asks the application — `initial` without a token, `upscope` on
 * `insufficient_scope`, `refresh` then `reauth` when the token is refused — and retries once per
 * answer. A request the application declines goes back to the MCP client as the server's answer,
 * and {@link needsAuth} says so.
 *
 * @example
 * const auth = new McpHostAuth("files", "https://mcp.example/mcp", requester);
 * new StreamableHTTPClientTransport(url, { fetch: auth.fetch });
 */
export class McpHostAuth {
  private token: string | undefined;
  private tokenType = "Bearer";
  private declined = false;

  constructor(
    private readonly serverName: string,
    private readonly serverUrl: string,
    private readonly requester: McpTokenRequester,
    private readonly baseFetch: typeof fetch = fetch,
  ) {}

  /** Whether the last challenge ended without a token (the application declined or cannot answer). */
  get needsAuth(): boolean {
    return this.declined;
  }

  /** A `fetch` that adds the token and answers Bearer challenges through the application. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await this.send(input, init);
    if (response.status !== 401 && response.status !== 403) return response;
    const challenge = parseBearerChallenge(response.headers.get("www-authenticate"));
    if (!challenge) return response;
    if (response.status === 403 && challenge.error !== "insufficient_scope") return response;
    const reasons: McpTokenReason[] = this.token === undefined ? ["initial"] : response.status === 403 ? ["upscope"] : ["refresh", "reauth"];
    const resourceMetadata = challenge.resourceMetadataUrl ? await this.readResourceMetadata(challenge.resourceMetadataUrl) : undefined;
    for (const reason of reasons) {
      const answer = await this.requester({ serverName: this.serverName, serverUrl: this.serverUrl, reason, challenge, ...(resourceMetadata !== undefined ? { resourceMetadata } : {}) });
      if (!answer) continue;
      this.token = answer.accessToken;
      this.tokenType = answer.tokenType ?? "Bearer";
      this.declined = false;
      await response.body?.cancel().catch(() => undefined);
      return this.send(input, init);
    }
    this.declined = true;
    return response;
  };

  private send(input: string | URL | Request, init: RequestInit | undefined): Promise<Response> {
    if (this.token === undefined) return this.baseFetch(input, init);
    const headers = new Headers(init?.headers);
    headers.set("authorization", `${this.tokenType} ${this.token}`);
    return this.baseFetch(input, { ...init, headers });
  }

  /**
   * The protected-resource metadata document as the server sent it (compact JSON), or undefined. It
   * is read only from the server's own origin: a challenge cannot send the runtime elsewhere.
   */
  private async readResourceMetadata(url: string): Promise<string | undefined> {
    try {
      if (new URL(url).origin !== new URL(this.serverUrl).origin) return undefined;
      const response = await this.baseFetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
      if (!response.ok) return undefined;
      return JSON.stringify(await response.json());
    } catch {
      return undefined;
    }
  }
}
