import type { ElicitationResult } from "@tandem/protocol";
import type { McpElicitationRequest } from "../mcp/types.js";
import type { EventEmitterPort } from "./emitter.js";
import type { PendingRequests } from "./pending.js";

/**
 * Asks the client to fill in a form for an MCP server (`elicitation.requested`), answered by
 * `session.ui.handlePendingElicitation`; `cancel` when no client is connected.
 */
export async function requestElicitation(
  host: { readonly emitter: EventEmitterPort; readonly pending: PendingRequests },
  request: Omit<McpElicitationRequest, "serverName"> & { serverName?: string },
  signal: AbortSignal,
): Promise<ElicitationResult> {
  if (host.emitter.sinkCount === 0) return { action: "cancel" };
  const { requestId, promise } = host.pending.open<ElicitationResult>("elicitation", signal);
  host.emitter.emit("elicitation.requested", {
    requestId,
    ...(request.toolCallId ? { toolCallId: request.toolCallId } : {}),
    ...(request.serverName !== undefined ? { elicitationSource: request.serverName } : {}),
    message: request.message,
    mode: "form",
    ...(request.requestedSchema ? { requestedSchema: request.requestedSchema } : {}),
  });
  try {
    return await promise;
  } finally {
    host.emitter.emit("elicitation.completed", { requestId });
  }
}
