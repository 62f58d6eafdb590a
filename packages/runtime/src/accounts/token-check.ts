import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../errors.js";
import type { Logger } from "../log.js";
import type { CopilotUser, GitHubUsers } from "./github-users.js";

/**
 * Checks a session's own GitHub token with GitHub before the session is opened: a token GitHub
 * refuses fails with `AuthenticationFailed` (nothing is created); when GitHub cannot be asked (no
 * GitHub API configured, network down) the session opens anyway and the first model call decides.
 *
 * @example
 * await checkSessionToken(users, params.gitHubToken, logger); // throws on 401
 */
export async function checkSessionToken(users: GitHubUsers, token: string | undefined, logger: Logger): Promise<CopilotUser | undefined> {
  if (!token || !users.available) return undefined;
  try {
    return await users.lookup(token);
  } catch (error) {
    if (error instanceof TandemError && error.code === ErrorCodes.AuthenticationFailed) throw error;
    logger.warn(`could not check the session's GitHub token: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
