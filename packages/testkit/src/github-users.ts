/**
 * The GitHub API's Copilot user lookup (`GET /copilot_internal/user`), served by the fake model
 * server so a runtime in Copilot API mode can resolve tokens to users, plans and quotas.
 */
import type { IncomingHttpHeaders, ServerResponse } from "node:http";

/** The route the Copilot user of a token is read from. */
export const COPILOT_USER_ROUTE = "/copilot_internal/user";

/** What the lookup answers for a known token (any other fields are passed through as given). */
export interface CopilotUserSpec {
  login: string;
  copilot_plan?: string;
  endpoints?: { api?: string; telemetry?: string };
  quota_reset_date?: string;
  quota_reset_date_utc?: string;
  quota_snapshots?: Record<
    string,
    { entitlement?: number; overage_count?: number; overage_permitted?: boolean; percent_remaining?: number; timestamp_utc?: string; unlimited?: boolean }
  >;
  [field: string]: unknown;
}

/** One user lookup the server received. */
export interface UserLookup {
  /** The bearer token sent (`Authorization: Bearer <token>` or `token <token>`), if any. */
  token?: string;
  /** HTTP status answered: 200 for a known token, 401 otherwise. */
  status: number;
}

/**
 * Copilot users by token. A known token gets its user (200); an unknown or missing one gets
 * `401 {"message": "Bad credentials"}`, as GitHub answers.
 *
 * @example
 * const users = new CopilotUsers();
 * users.set("token-alice", { login: "alice", copilot_plan: "individual_pro" });
 */
export class CopilotUsers {
  /** Every lookup received, in arrival order. */
  readonly lookups: UserLookup[] = [];
  private readonly byToken = new Map<string, CopilotUserSpec>();

  /** Registers (or replaces) the user of `token`. */
  set(token: string, user: CopilotUserSpec): void {
    this.byToken.set(token, user);
  }

  /** Answers one lookup. */
  serve(headers: IncomingHttpHeaders, response: ServerResponse): void {
    const token = bearerToken(headers.authorization);
    const user = token !== undefined ? this.byToken.get(token) : undefined;
    const status = user ? 200 : 401;
    this.lookups.push({ ...(token !== undefined ? { token } : {}), status });
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(user ?? { message: "Bad credentials" }));
  }
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^(?:Bearer|token)\s+(.+)$/i);
  return match?.[1]?.trim();
}
