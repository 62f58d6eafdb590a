import type { SessionOwnerHint } from "@tandem/protocol";
import { errorMessage } from "../errors.js";
import type { Logger } from "../log.js";

/** Finds where clients reach a live node (its `--advertise-url`), undefined when it advertises none. */
export type OwnerUrlLookup = (nodeId: string) => Promise<string | undefined>;

/**
 * Adds the owner hint to the answer of a `session.resume` this node forwarded to the session's
 * owner: `{ …result, owner: { nodeId, url } }`. Official SDKs ignore the field and keep going
 * through this node; `@tandem/sdk` connects to `url` and resumes there. The answer stays as it is
 * when the owner advertises no URL, when looking it up fails (the forwarded attachment works
 * anyway), or when it is not a plain object.
 *
 * @example
 * const answer = await withOwnerHint(forwarded, "node-b", (nodeId) => registry.urlOf(nodeId), logger);
 * // { sessionId, workspacePath, owner: { nodeId: "node-b", url: "10.0.0.8:4321" } }
 */
export async function withOwnerHint(result: unknown, ownerNode: string, ownerUrl: OwnerUrlLookup, logger: Logger): Promise<unknown> {
  if (typeof result !== "object" || result === null || Array.isArray(result) || Object.getPrototypeOf(result) !== Object.prototype) return result;
  let url: string | undefined;
  try {
    url = await ownerUrl(ownerNode);
  } catch (error) {
    logger.warn(`could not look up where clients reach node ${ownerNode}: ${errorMessage(error)}`);
    return result;
  }
  if (url === undefined) return result;
  const owner: SessionOwnerHint = { nodeId: ownerNode, url };
  return { ...result, owner };
}
