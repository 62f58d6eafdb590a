import { AccountGetAllUsers, AccountGetCurrentAuth, AccountLogin, AccountLogout, SessionGitHubAuthGetStatus, SessionProviderGetEndpoint, type ResultOf } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../../errors.js";
import { providerEndpoint } from "../../providers/endpoint.js";
import { describeDefaultProvider } from "../../providers/resolve.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { Session } from "../../session/session.js";
import type { MethodTable } from "../method-table.js";

/** The runtime variable that lets clients read a session's provider endpoint and credentials. */
export const allowGetProviderEndpointEnv = "COPILOT_ALLOW_GET_PROVIDER_ENDPOINT";

function accountsNotAvailable(method: string): TandemError {
  return new TandemError(
    ErrorCodes.NotAvailable,
    `${method} is not available in Tandem: it keeps no GitHub accounts; start the runtime with a GitHub token (GH_TOKEN, GITHUB_TOKEN or --auth-token-env) or give a session its own gitHubToken or provider`,
  );
}

/**
 * Whether a session has GitHub credentials for its model calls, and whose: its own `gitHubToken`,
 * else the runtime's (Tandem does not look a token's account up, so no login or plan is reported).
 */
export function sessionAuthStatus(runtime: RuntimeServices, session: Session): SessionAuthStatus {
  const { config } = session;
  if (config.provider) {
    return { isAuthenticated: false, statusMessage: `The session uses its own ${config.provider.type ?? "openai"} provider at ${config.provider.baseUrl}, not GitHub credentials.` };
  }
  const ownToken = config.gitHubToken !== undefined && config.gitHubToken !== "";
  const provider = describeDefaultProvider(runtime.sessionProviderEnvironment(config.gitHubToken));
  if (provider.kind !== "copilot") return { isAuthenticated: false, statusMessage: `The session uses the ${provider.kind} provider at ${provider.baseUrl}, not GitHub credentials.` };
  if (!provider.authenticated) return { isAuthenticated: false, host: provider.baseUrl, statusMessage: "No GitHub token: neither the session nor the runtime has one." };
  return {
    isAuthenticated: true,
    authType: ownToken ? "token" : "env",
    host: provider.baseUrl,
    statusMessage: ownToken ? "Using the session's own GitHub token." : "Using the runtime's GitHub token.",
  };
}

/** What `session.gitHubAuth.getStatus` answers. */
export type SessionAuthStatus = ResultOf<typeof SessionGitHubAuthGetStatus>;

/**
 * A session's credentials: `session.provider.getEndpoint` (the endpoint and credential its model calls use; only
 * when the runtime allows it, since it hands out a secret) and `account.*` (not available: Tandem
 * keeps no GitHub accounts).
 */
export function registerSessionAuthMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;

  table.on(SessionProviderGetEndpoint, ({ sessionId }) => {
    const { config } = sessions.get(sessionId);
    if (runtime.providerEnvironment.env[allowGetProviderEndpointEnv] !== "true") {
      throw new TandemError(ErrorCodes.NotAvailable, `session.provider.getEndpoint is turned off: it hands out the provider's credentials; start the runtime with ${allowGetProviderEndpointEnv}=true to allow it`, { sessionId });
    }
    return providerEndpoint(config.provider, runtime.sessionProviderEnvironment(config.gitHubToken));
  });

  table.on(AccountGetCurrentAuth, () => {
    throw accountsNotAvailable("account.getCurrentAuth");
  });
  table.on(AccountGetAllUsers, () => {
    throw accountsNotAvailable("account.getAllUsers");
  });
  table.on(AccountLogin, () => {
    throw accountsNotAvailable("account.login");
  });
  table.on(AccountLogout, () => {
    throw accountsNotAvailable("account.logout");
  });
}
