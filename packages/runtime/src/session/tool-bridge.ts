import type { ClientToolReply } from "../tools/types.js";
import { errorMessage } from "../errors.js";
import type { SessionScopePort } from "../ports/session-scope.js";
import { PendingAbandoned } from "./pending.js";

/** What the bridge reads of its session's scope: the clients that provide tools and the protocol version. */
export type ToolBridgeHost = Pick<SessionScopePort, "sessionId" | "emitter" | "pending" | "protocolVersion" | "workingDirectory" | "clients">;

/**
 * Runs application-defined tools in a client that registered them. Protocol v3: broadcast
 * `external_tool.requested` (clients answer only for tools they registered; the first answer
 * wins) and wait for `session.tools.handlePendingToolCall`; the session abandons the wait when the
 * last client providing the tool goes away. v2: call `tool.call` on a client that registered the
 * tool (the most recent one).
 */
export class ToolBridge {
  constructor(private readonly host: ToolBridgeHost) {}

  async call(toolCallId: string, toolName: string, args: unknown, signal: AbortSignal): Promise<ClientToolReply> {
    if (!this.host.clients.clientFor({ kind: "tool", toolName })) return { error: `No connected client provides the tool "${toolName}".`, errorFromRuntime: true };
    if (this.host.protocolVersion === 2) return this.callV2(toolCallId, toolName, args, signal);
    return this.callV3(toolCallId, toolName, args, signal);
  }

  private async callV3(toolCallId: string, toolName: string, args: unknown, signal: AbortSignal): Promise<ClientToolReply> {
    const { emitter, pending, sessionId, workingDirectory } = this.host;
    const { requestId, promise } = pending.open<ClientToolReply>("tool", signal, toolName);
    emitter.emit("external_tool.requested", { requestId, sessionId, toolCallId, toolName, arguments: args, ...(workingDirectory ? { workingDirectory } : {}) });
    try {
      const reply = await promise;
      emitter.emit("external_tool.completed", { requestId });
      return reply;
    } catch (error) {
      if (error instanceof PendingAbandoned && error.reason !== "aborted") {
        const gone = error.reason === "disconnected" ? "disconnected" : "went away";
        return { error: `The client that provides the tool "${toolName}" ${gone} before the tool finished.`, errorFromRuntime: true };
      }
      throw error;
    }
  }

  private async callV2(toolCallId: string, toolName: string, args: unknown, signal: AbortSignal): Promise<ClientToolReply> {
    const client = this.host.clients.clientFor({ kind: "tool", toolName });
    if (!client) return { error: `No connected client provides the tool "${toolName}".`, errorFromRuntime: true };
    try {
      const response = await client.sendRequest<{ result?: unknown }>("tool.call", { sessionId: this.host.sessionId, toolCallId, toolName, arguments: args }, signal);
      return { result: response?.result };
    } catch (error) {
      if (signal.aborted) throw error;
      if (!client.isOpen) return { error: `The client that provides the tool "${toolName}" disconnected before the tool finished.`, errorFromRuntime: true };
      // The client's handler failed: its message is for the application, not the model.
      return { error: errorMessage(error) };
    }
  }
}
