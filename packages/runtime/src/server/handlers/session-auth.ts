import type { ResultOf } from "@tandem/protocol";
import { SessionGitHubAuthGetStatus, SessionProviderGetEndpoint } from "@tandem/protocol/methods/session-auth";
import { ErrorCodes } from "@tandem/protocol/errors";
import { errorMessage, TandemError } from "../../errors.js";
import { providerEndpoint } from "../../providers/endpoint.js";
import { describeDefaultProvider, gitHubTokenSource, resolveGitHubToken } from "../../providers/resolve.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { Session } from "../../session/session.js";
import type { MethodTable } from "../method-table.js";

/** The runtime variable that lets clients read a session's provider endpoint and credentials. */
export const allowGetProviderEndpointEnv = "COPILOT_ALLOW_GET_PROVIDER_ENDPOINT";

/**
 * Whether a session has GitHub credentials for its model calls, and whose: its own `gitHubToken`,
 * else the runtime's (`--auth-token-env`, the logged-in account, an environment variable). When a
 * GitHub API is known the token's Copilot user is looked up, giving its `login` and `copilotPlan`;
 * a token GitHub refuses is reported as not authenticated.
 */
export async function sessionAuthStatus(runtime: RuntimeServices, session: Session): Promise<SessionAuthStatus> {
  const { config } = session.scope;
  if (config.provider) {
    return { isAuthenticated: false, statusMessage: `The session uses its own ${config.provider.type ?? "openai"} provider at ${config.provider.baseUrl}, not GitHub credentials.` };
  }
  const ownToken = config.gitHubToken !== undefined && config.gitHubToken !== "";
  const environment = runtime.sessionProviderEnvironment(config.gitHubToken);
  const provider = describeDefaultProvider(environment);
  if (provider.kind !== "copilot") return { isAuthenticated: false, statusMessage: `The session uses the ${provider.kind} provider at ${provider.baseUrl}, not GitHub credentials.` };
  const token = resolveGitHubToken(environment);
  if (!token) return { isAuthenticated: false, host: provider.baseUrl, statusMessage: "No GitHub token: neither the session nor the runtime has one." };
  const authType = ownToken ? "token" : authTypeOfRuntimeToken(gitHubTokenSource(environment)?.kind);
  const base = { authType, host: provider.baseUrl };
  const whose = ownToken ? "the session's own GitHub token" : "the runtime's GitHub token";
  if (!runtime.gitHubUsers.available) return { isAuthenticated: true, ...base, statusMessage: `Using ${whose}.` };
  try {
    const user = await runtime.gitHubUsers.lookup(token);
    return {
      isAuthenticated: true,
      ...base,
      ...(user.login !== undefined ? { login: user.login } : {}),
      ...(user.copilot_plan !== undefined ? { copilotPlan: user.copilot_plan } : {}),
      statusMessage: `Using ${whose}${user.login !== undefined ? ` (${user.login})` : ""}.`,
    };
  } catch (error) {
    if (error instanceof TandemError && error.code === ErrorCodes.AuthenticationFailed) return { isAuthenticated: false, ...base, statusMessage: error.message };
    return { isAuthenticated: true, ...base, statusMessage: `Using ${whose}; its GitHub user could not be looked up: ${errorMessage(error)}` };
  }
}

function authTypeOfRuntimeToken(kind: "flag" | "account" | "env" | undefined): string {
  if (kind === "account") return "user";
  if (kind === "flag") return "token";
  return "env";
}

/** What `session.gitHubAuth.getStatus` answers. */
export type SessionAuthStatus = ResultOf<typeof SessionGitHubAuthGetStatus>;

/**
 * A session's credentials: `session.provider.getEndpoint`, the endpoint and credential its model
 * calls use (only when the runtime allows it, since it hands out a secret).
 */
export function registerSessionAuthMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;

  table.on(SessionProviderGetEndpoint, ({ sessionId }) => {
    const { config } = sessions.get(sessionId).scope;
    if (runtime.providerEnvironment.env[allowGetProviderEndpointEnv] !== "true") {
      throw new TandemError(ErrorCodes.NotAvailable, `session.provider.getEndpoint is turned off: it hands out the provider's credentials; start the runtime with ${allowGetProviderEndpointEnv}=true to allow it`, { sessionId });
    }
    return providerEndpoint(config.provider, runtime.sessionProviderEnvironment(config.gitHubToken), { interactionId: sessionId });
  });
}
