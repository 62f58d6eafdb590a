import type { ClientToolReply } from "../tools/types.js";
import { errorMessage } from "../errors.js";
import type { ClientPort } from "./client-port.js";
import type { EventEmitterPort } from "./emitter.js";
import { PendingAbandoned, type PendingRequests } from "./pending.js";

/** What the bridge needs from its session. */
export interface ToolBridgeHost {
  readonly sessionId: string;
  readonly emitter: EventEmitterPort;
  readonly pending: PendingRequests;
  readonly protocolVersion: 2 | 3;
  owner(): ClientPort | undefined;
}

/**
 * Runs application-defined tools in the client. Protocol v3: broadcast `external_tool.requested`
 * and wait for `session.tools.handlePendingToolCall`; v2: call `tool.call` on the owning client.
 */
export class ToolBridge {
  constructor(private readonly host: ToolBridgeHost) {}

  async call(toolCallId: string, toolName: string, args: unknown, signal: AbortSignal): Promise<ClientToolReply> {
    if (this.host.protocolVersion === 2) return this.callV2(toolCallId, toolName, args, signal);
    return this.callV3(toolCallId, toolName, args, signal);
  }

  private async callV3(toolCallId: string, toolName: string, args: unknown, signal: AbortSignal): Promise<ClientToolReply> {
    const { emitter, pending, sessionId } = this.host;
    if (emitter.sinkCount === 0) return { error: "No client is connected to run this tool." };
    const { requestId, promise } = pending.open<ClientToolReply>("tool", signal);
    emitter.emit("external_tool.requested", { requestId, sessionId, toolCallId, toolName, arguments: args });
    try {
      const reply = await promise;
      emitter.emit("external_tool.completed", { requestId });
      return reply;
    } catch (error) {
      if (error instanceof PendingAbandoned && error.reason !== "aborted") {
        return { error: `The client ${error.reason === "disconnected" ? "disconnected" : "went away"} before the tool finished.` };
      }
      throw error;
    }
  }

  private async callV2(toolCallId: string, toolName: string, args: unknown, signal: AbortSignal): Promise<ClientToolReply> {
    const owner = this.host.owner();
    if (!owner) return { error: "No client is connected to run this tool." };
    try {
      const response = await owner.sendRequest<{ result?: unknown }>(
        "tool.call",
        { sessionId: this.host.sessionId, toolCallId, toolName, arguments: args },
        signal,
      );
      return { result: response?.result };
    } catch (error) {
      if (signal.aborted) throw error;
      return { error: errorMessage(error) };
    }
  }
}
