import { AccountGetQuota, type ResultOf } from "@tandem/protocol";
import { AccountGetAllUsers, AccountGetCurrentAuth, AccountLogin, AccountLogout } from "@tandem/protocol/methods/session-auth";
import { ErrorCodes } from "@tandem/protocol/errors";
import { selectionIdOf, type AccountStore } from "../../accounts/account-store.js";
import type { GitHubUsers } from "../../accounts/github-users.js";
import { quotaSnapshotsOf } from "../../accounts/quota.js";
import { errorMessage, invalidParams, TandemError } from "../../errors.js";
import { gitHubTokenSource, resolveGitHubToken, type ProviderEnvironment } from "../../providers/resolve.js";
import type { MethodTable } from "../method-table.js";

/** The GitHub host of the runtime's own token (the one Tandem's Copilot API mode serves). */
const gitHubHost = "https://github.com";

/** What the account methods need from the runtime. */
export interface AccountServices {
  accounts: AccountStore;
  gitHubUsers: GitHubUsers;
  providerEnvironment: ProviderEnvironment;
  /** Values kept out of logs and events: a logged-in account's token joins them. */
  secrets: { add(values: readonly string[]): void };
}

/**
 * `account.*`: the GitHub accounts of the runtime's own token store and the Copilot quota of a
 * token. `login` checks the token with GitHub (a refused one fails with `AuthenticationFailed`,
 * nothing stored) and makes the account current: its token then serves sessions without their own
 * and is redacted from logs and events from then on.
 * `getCurrentAuth` reports that account, else the token the runtime was started with
 * (`--auth-token-env`); tokens from environment variables are a fallback for model calls, not an
 * account. `getQuota` reads the quotas GitHub reports for a token.
 */
export function registerAccountMethods(table: MethodTable, services: AccountServices): void {
  const { accounts, gitHubUsers } = services;

  table.on(AccountGetCurrentAuth, async () => {
    const account = accounts.current();
    if (account) return { authInfo: { type: "user", host: account.host, login: account.login } };
    const source = gitHubTokenSource(services.providerEnvironment);
    const token = resolveGitHubToken(services.providerEnvironment);
    if (source?.kind !== "flag" || !token) return {};
    return await startupTokenAuth(gitHubUsers, token);
  });

  table.on(AccountGetAllUsers, () =>
    accounts.all().map((account) => ({ authInfo: { type: "user", host: account.host, login: account.login }, selectionId: selectionIdOf(account), token: account.token })),
  );

  table.on(AccountLogin, async ({ host, login, token }) => {
    const reported = gitHubUsers.available ? (await gitHubUsers.lookup(token)).login : undefined;
    if (login !== undefined && reported !== undefined && reported.toLowerCase() !== login.toLowerCase()) {
      throw invalidParams(`account.login: the token belongs to ${reported}, not ${login}`, { host, login });
    }
    const name = login ?? reported;
    if (name === undefined) throw invalidParams("account.login: give the account's login; GitHub cannot be asked whose token this is here (no GitHub API configured)", { host });
    services.secrets.add([token]);
    accounts.login({ host, login: name, token });
    return { storedInVault: false };
  });

  table.on(AccountLogout, ({ authInfo }) => {
    if (authInfo.type !== "user" || authInfo.login === undefined) {
      throw invalidParams(`account.logout: only accounts logged in with account.login can be logged out (this one is of type ${authInfo.type})`, { type: authInfo.type });
    }
    const { removed, hasMoreUsers } = accounts.logout(authInfo.host, authInfo.login);
    if (removed) gitHubUsers.forget(removed.token);
    return { hasMoreUsers };
  });

  table.on(AccountGetQuota, async (params) => {
    const selected = params?.selectionId ? accounts.find(params.selectionId) : undefined;
    if (params?.selectionId && !selected) throw invalidParams(`account.getQuota: no logged-in account has the selectionId ${params.selectionId}`, { selectionId: params.selectionId });
    const token = params?.gitHubToken || selected?.token || resolveGitHubToken(services.providerEnvironment);
    if (!token) throw new TandemError(ErrorCodes.NotConfigured, "account.getQuota needs a GitHub token: pass gitHubToken, log in with account.login, or start the runtime with one (GH_TOKEN, GITHUB_TOKEN or --auth-token-env)");
    return { quotaSnapshots: quotaSnapshotsOf(await gitHubUsers.lookup(token, { fresh: true })) };
  });
}

/** The runtime's startup token as `authInfo`, with its login when GitHub could be asked; why not in `authErrors`. */
async function startupTokenAuth(users: GitHubUsers, token: string): Promise<ResultOf<typeof AccountGetCurrentAuth>> {
  if (!users.available) return { authInfo: { type: "token", host: gitHubHost, token } };
  try {
    const user = await users.lookup(token);
    return { authInfo: { type: "token", host: gitHubHost, token, ...(user.login !== undefined ? { login: user.login } : {}) } };
  } catch (error) {
    return { authInfo: { type: "token", host: gitHubHost, token }, authErrors: [errorMessage(error)] };
  }
}
