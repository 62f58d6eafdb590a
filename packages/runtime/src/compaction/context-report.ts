import type { ConversationMessage, ToolSpec } from "../ports/conversation.js";
import type { SessionScopePort } from "../ports/session-scope.js";
import type { CompactionSettings } from "./config.js";
import { TokenEstimator } from "./tokens.js";

/** What a context report reads from a session: its model and conversation (from its scope), and what the next model call sends. */
export type ContextReportHost = Pick<SessionScopePort, "model" | "messages"> & {
  /** The prompt limit of the session's model (its context window less room for the answer). */
  readonly tokenLimit: number;
  readonly compactionSettings: CompactionSettings;
  /** The system prompt of the next model call. */
  systemPrompt(): Promise<string>;
  /** The tools offered with the next model call. */
  toolSpecs(): readonly ToolSpec[];
};

/** The context window's breakdown (`session.metadata.contextInfo`). */
export type ContextInfo = {
  modelName: string;
  systemTokens: number;
  conversationTokens: number;
  toolDefinitionsTokens: number;
  mcpToolsTokens: number;
  totalTokens: number;
  promptTokenLimit: number;
  compactionThreshold: number;
  limit: number;
  bufferTokens: number;
};

/** One source of tokens in {@link ContextReport.attribution}. */
export type AttributionEntry = {
  kind: string;
  id: string;
  label: string;
  tokens: number;
  parentId?: string;
  attributes?: Array<{ key: string; value: string }>;
};

/** Whether a tool comes from one of the session's MCP servers. */
function isMcpTool(tool: ToolSpec, mcpToolNames: ReadonlySet<string>): boolean {
  return mcpToolNames.has(tool.name);
}

/**
 * Measures what the next model call of a session would carry: the system prompt, the tool
 * definitions and the conversation, estimated the way compaction estimates them (the provider's
 * own counts are known only after a call). Every figure is a fresh estimate of the session as it
 * is now; nothing is cached between reports.
 *
 * @example
 * const report = new ContextReport(session);
 * const { totalTokens } = await report.breakdown();
 */
export class ContextReport {
  private readonly estimator = new TokenEstimator();

  constructor(
    private readonly host: ContextReportHost,
    private readonly mcpToolNames: ReadonlySet<string> = new Set(),
  ) {}

  /** System, tool-definition and conversation tokens of the next model call. */
  async breakdown(): Promise<{ systemTokens: number; toolDefinitionsTokens: number; mcpToolsTokens: number; conversationTokens: number; totalTokens: number }> {
    const systemTokens = this.estimator.system(await this.host.systemPrompt());
    const tools = this.host.toolSpecs();
    const toolDefinitionsTokens = this.estimator.tools(tools);
    const mcpToolsTokens = this.estimator.tools(tools.filter((tool) => isMcpTool(tool, this.mcpToolNames)));
    const conversationTokens = this.estimator.messages(this.host.messages);
    return { systemTokens, toolDefinitionsTokens, mcpToolsTokens, conversationTokens, totalTokens: systemTokens + toolDefinitionsTokens + conversationTokens };
  }

  /** The breakdown against the given limits (the window is the prompt limit plus the room kept for the answer). */
  async info(limits: { promptTokenLimit: number; outputTokenLimit: number; selectedModel?: string }): Promise<ContextInfo> {
    const parts = await this.breakdown();
    return {
      modelName: limits.selectedModel ?? this.host.model,
      ...parts,
      promptTokenLimit: limits.promptTokenLimit,
      compactionThreshold: Math.floor(limits.promptTokenLimit * this.host.compactionSettings.backgroundThreshold),
      limit: limits.promptTokenLimit + limits.outputTokenLimit,
      bufferTokens: limits.outputTokenLimit,
    };
  }

  /** Where the tokens go: the system prompt, each tool, the messages by role; with the free space left. */
  async attribution(compactions: number) {
    const parts = await this.breakdown();
    const promptTokenLimit = this.host.tokenLimit;
    const { backgroundThreshold, exhaustionThreshold } = this.host.compactionSettings;
    const bufferTokens = Math.floor(promptTokenLimit * (1 - exhaustionThreshold));
    const entries: AttributionEntry[] = [{ kind: "system", id: "system-prompt", label: "System prompt", tokens: parts.systemTokens }];
    entries.push({ kind: "tools", id: "tool-definitions", label: "Tool definitions", tokens: parts.toolDefinitionsTokens });
    for (const tool of this.host.toolSpecs()) {
      const kind = isMcpTool(tool, this.mcpToolNames) ? "mcp-tool" : "tool";
      entries.push({ kind, id: `tool:${tool.name}`, label: tool.name, tokens: this.estimator.tools([tool]), parentId: "tool-definitions" });
    }
    entries.push({ kind: "messages", id: "messages", label: "Messages", tokens: parts.conversationTokens, attributes: [{ key: "count", value: String(this.host.messages.length) }] });
    return {
      totalTokens: parts.totalTokens,
      modelId: this.host.model,
      modelSource: "session",
      promptTokenLimit,
      limit: promptTokenLimit,
      bufferTokens,
      compactionThreshold: Math.floor(promptTokenLimit * backgroundThreshold),
      categories: {
        systemPrompt: parts.systemTokens,
        customInstructions: 0,
        systemTools: parts.toolDefinitionsTokens - parts.mcpToolsTokens,
        mcpTools: parts.mcpToolsTokens,
        messages: parts.conversationTokens,
        freeSpace: Math.max(0, promptTokenLimit - bufferTokens - parts.totalTokens),
        buffer: bufferTokens,
      },
      entries,
      compactions: { count: compactions },
    };
  }

  /** The `limit` largest messages of the conversation, heaviest first (ids are their positions: `message-<index>`). */
  async heaviestMessages(limit: number): Promise<{ totalTokens: number; messages: Array<{ id: string; label: string; role: string; tokens: number }> }> {
    const { totalTokens } = await this.breakdown();
    const measured = this.host.messages.map((message, index) => ({ id: `message-${index}`, label: labelOf(message), role: message.role, tokens: this.estimator.message(message) }));
    measured.sort((left, right) => right.tokens - left.tokens);
    return { totalTokens, messages: measured.slice(0, limit) };
  }
}

/** A short label for a message: the start of its text, or the tool it answers. */
function labelOf(message: ConversationMessage): string {
  if (message.role === "tool") return `${message.toolName} result`;
  if (message.role === "assistant" && message.content.trim() === "" && message.toolCalls.length > 0) return `calls ${message.toolCalls.map((call) => call.name).join(", ")}`;
  const text = message.content.replace(/\s+/g, " ").trim();
  if (text === "") return `${message.role} message`;
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
