import type { McpToken, McpTokenRequest } from "../mcp/types.js";
import type { EventEmitterPort } from "./emitter.js";
import type { EventInterests } from "./event-interests.js";
import type { PendingRequests } from "./pending.js";

/** How long the application may take to answer one `mcp.oauth_required` request. */
const answerTimeoutMs = 5 * 60_000;

/** The application's answer to `mcp.oauth_required` (`session.mcp.oauth.handlePendingRequest`). */
export type McpOauthAnswer = { kind: "token"; accessToken: string; tokenType?: string } | { kind: "cancelled" };

/**
 * Asks the application for a remote MCP server's token: an `mcp.oauth_required` event answered by
 * `session.mcp.oauth.handlePendingRequest`, then `mcp.oauth_completed`. Only a client that
 * registered interest in `mcp.oauth_required` is asked; otherwise (or when it declines, leaves or
 * takes longer than five minutes) there is no token.
 */
export async function requestMcpToken(
  host: { readonly emitter: EventEmitterPort; readonly pending: PendingRequests; readonly eventInterests: EventInterests },
  request: McpTokenRequest,
): Promise<McpToken | undefined> {
  if (!host.eventInterests.has("mcp.oauth_required") || host.emitter.sinkCount === 0) return undefined;
  const { requestId, promise } = host.pending.open<McpOauthAnswer>("mcpOauth", AbortSignal.timeout(answerTimeoutMs), request.serverName);
  host.emitter.emit("mcp.oauth_required", {
    requestId,
    serverName: request.serverName,
    serverUrl: request.serverUrl,
    reason: request.reason,
    wwwAuthenticateParams: request.challenge,
    ...(request.resourceMetadata !== undefined ? { resourceMetadata: request.resourceMetadata } : {}),
  });
  try {
    const answer = await promise;
    return answer.kind === "token" ? { accessToken: answer.accessToken, ...(answer.tokenType ? { tokenType: answer.tokenType } : {}) } : undefined;
  } catch {
    return undefined;
  } finally {
    host.emitter.emit("mcp.oauth_completed", { requestId });
  }
}
