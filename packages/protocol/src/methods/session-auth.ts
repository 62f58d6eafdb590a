import { z } from "zod";
import { authStatusFields, SessionId } from "../common.js";
import { defineRequest } from "../method.js";

const noParams = () => z.preprocess((value) => (value === undefined || value === null || Array.isArray(value) ? {} : value), z.looseObject({}));

/** `session.gitHubAuth.getStatus`: whether the session has GitHub credentials for its model calls, and whose. */
export const SessionGitHubAuthGetStatus = defineRequest(
  "session.gitHubAuth.getStatus",
  () => z.looseObject({ sessionId: SessionId }),
  () => z.looseObject({ ...authStatusFields(), copilotPlan: z.string().optional() }),
);

/** The endpoint and credentials a session's model calls go to. */
export const ProviderEndpoint = z.lazy(() => z.looseObject({
  type: z.enum(["openai", "azure", "anthropic"]),
  wireApi: z.enum(["completions", "responses"]).optional(),
  baseUrl: z.string(),
  apiKey: z.string().optional(),
  headers: z.record(z.string(), z.string()),
}));

/**
 * `session.provider.getEndpoint`: the provider endpoint the session talks to, with its credentials,
 * so a client can call the same backend itself. It hands out secrets, so the runtime answers it only
 * when started with `COPILOT_ALLOW_GET_PROVIDER_ENDPOINT=true`.
 */
export const SessionProviderGetEndpoint = defineRequest(
  "session.provider.getEndpoint",
  () => z.looseObject({ sessionId: SessionId, modelId: z.string().optional() }),
  () => ProviderEndpoint,
);

/**
 * Who a GitHub credential belongs to: `type` says where it comes from (`user`: an account logged in
 * with `account.login`, whose token stays in the runtime; `token`: the token the runtime was started
 * with), `host` the GitHub host, `login` the account's name.
 */
export const AuthInfo = z.looseObject({ type: z.string(), host: z.string(), login: z.string().optional() });

/** `account.getCurrentAuth`: the account the runtime's own model calls use; none when it has no account. */
export const AccountGetCurrentAuth = defineRequest("account.getCurrentAuth", noParams, () =>
  z.looseObject({ authInfo: AuthInfo.optional(), authErrors: z.array(z.string()).optional() }),
);
/**
 * `account.getAllUsers`: the accounts logged in to the runtime, each with its token and an opaque
 * `selectionId` that `account.getQuota` accepts.
 */
export const AccountGetAllUsers = defineRequest("account.getAllUsers", noParams, () =>
  z.array(z.looseObject({ authInfo: AuthInfo, selectionId: z.string().optional(), token: z.string().optional() })),
);
/**
 * `account.login`: checks a GitHub account's token with GitHub and keeps it (in memory) as the
 * current account; without `login` the account's name is the one GitHub reports for the token.
 */
export const AccountLogin = defineRequest(
  "account.login",
  () => z.looseObject({ host: z.string().min(1), login: z.string().min(1).optional(), token: z.string().min(1) }),
  () => z.looseObject({ storedInVault: z.boolean() }),
);
/** `account.logout`: forgets a logged-in account; answers whether others remain. */
export const AccountLogout = defineRequest(
  "account.logout",
  () => z.looseObject({ authInfo: AuthInfo }),
  () => z.looseObject({ hasMoreUsers: z.boolean() }),
);

/** The session-auth and account requests. */
export const sessionAuthRequests = [SessionGitHubAuthGetStatus, SessionProviderGetEndpoint, AccountGetCurrentAuth, AccountGetAllUsers, AccountLogin, AccountLogout] as const;
