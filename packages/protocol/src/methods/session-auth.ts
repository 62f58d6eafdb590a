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

/** `account.getCurrentAuth`: the signed-in GitHub account (Tandem keeps no GitHub accounts: not available). */
export const AccountGetCurrentAuth = defineRequest("account.getCurrentAuth", noParams, () => z.looseObject({}));
/** `account.getAllUsers`: the stored GitHub accounts (not available in Tandem). */
export const AccountGetAllUsers = defineRequest("account.getAllUsers", noParams, () => z.array(z.looseObject({})));
/** `account.login`: stores a GitHub account's token (not available in Tandem). */
export const AccountLogin = defineRequest("account.login", () => z.looseObject({}), () => z.looseObject({}));
/** `account.logout`: removes a stored GitHub account (not available in Tandem). */
export const AccountLogout = defineRequest("account.logout", () => z.looseObject({}), () => z.looseObject({}));

/** The session-auth and account requests. */
export const sessionAuthRequests = [SessionGitHubAuthGetStatus, SessionProviderGetEndpoint, AccountGetCurrentAuth, AccountGetAllUsers, AccountLogin, AccountLogout] as const;
