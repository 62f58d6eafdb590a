import type { ConversationMessage } from "../ports/conversation.js";
import type { ModelClient } from "../providers/types.js";
import { errorMessage } from "../errors.js";

/** What sampling needs from its session: the model and a client for it. */
export interface SamplingPort {
  readonly model: string;
  modelClient(): ModelClient;
}

/** One `session.mcp.executeSampling` call. */
export interface SamplingExecution {
  requestId: string;
  serverName: string;
  /** The MCP `sampling/createMessage` params: `messages`, optional `systemPrompt` and `maxTokens`. */
  request: Record<string, unknown>;
}

/** How a sampling execution ended; `result` is an MCP `CreateMessageResult` on success. */
export type SamplingOutcome =
  | { action: "success"; result: { role: "assistant"; content: { type: "text"; text: string }; model: string; stopReason: string } }
  | { action: "failure"; error: string }
  | { action: "cancelled"; error: string };

/**
 * Runs MCP sampling requests (`sampling/createMessage` params an application forwards) on the
 * session's model, one model call each, and cancels them by the caller's request id.
 *
 * @example
 * const sampling = new McpSampling(session);
 * const outcome = await sampling.execute({ requestId: "r1", serverName: "files", request: { messages: [...] } });
 * sampling.cancel("r1"); // false once it finished
 */
export class McpSampling {
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly port: SamplingPort) {}

  /** Runs one sampling request; an invalid request or a failed model call is a `failure`, never a throw. */
  async execute(execution: SamplingExecution): Promise<SamplingOutcome> {
    const parsed = parseSamplingRequest(execution.request);
    if (typeof parsed === "string") return { action: "failure", error: `Invalid sampling request from MCP server "${execution.serverName}": ${parsed}` };
    if (this.running.has(execution.requestId)) return { action: "failure", error: `A sampling request with id "${execution.requestId}" is already running` };
    const abort = new AbortController();
    this.running.set(execution.requestId, abort);
    try {
      const model = this.port.model;
      const response = await this.port.modelClient().generate(
        { model, system: parsed.system, messages: parsed.messages, tools: [], stream: false, signal: abort.signal },
        () => {},
      );
      return { action: "success", result: { role: "assistant", content: { type: "text", text: response.text }, model, stopReason: response.finishReason === "length" ? "maxTokens" : "endTurn" } };
    } catch (error) {
      if (abort.signal.aborted) return { action: "cancelled", error: `Sampling request "${execution.requestId}" was cancelled` };
      return { action: "failure", error: `Sampling request from MCP server "${execution.serverName}" failed: ${errorMessage(error)}` };
    } finally {
      this.running.delete(execution.requestId);
    }
  }

  /** Cancels a running execution; false when none with this id is running. */
  cancel(requestId: string): boolean {
    const abort = this.running.get(requestId);
    if (!abort) return false;
    abort.abort(new Error("cancelled"));
    return true;
  }
}

/** The conversation of a `sampling/createMessage` request, or why it cannot be run. */
function parseSamplingRequest(request: Record<string, unknown>): { system: string; messages: ConversationMessage[] } | string {
  const messages = request.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "it has no messages";
  const conversation: ConversationMessage[] = [];
  for (const [index, message] of messages.entries()) {
    const role = (message as { role?: unknown } | null)?.role;
    const text = textOf((message as { content?: unknown } | null)?.content);
    if (role !== "user" && role !== "assistant") return `message ${index} has no role "user" or "assistant"`;
    if (text === undefined) return `message ${index} has no text content (only text is supported)`;
    conversation.push(role === "user" ? { role, content: text } : { role, content: text, toolCalls: [] });
  }
  const system = typeof request.systemPrompt === "string" ? request.systemPrompt : "";
  return { system, messages: conversation };
}

function textOf(content: unknown): string | undefined {
  const parts = Array.isArray(content) ? content : [content];
  const texts = parts.filter((part): part is { type: "text"; text: string } => (part as { type?: unknown } | null)?.type === "text" && typeof (part as { text?: unknown }).text === "string");
  return texts.length === 0 ? undefined : texts.map((part) => part.text).join("\n");
}
