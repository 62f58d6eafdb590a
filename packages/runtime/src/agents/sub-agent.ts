import { randomUUID } from "node:crypto";
import type { HookRunner } from "../hooks/hook-runner.js";
import type { Logger } from "../log.js";
import { runAgentLoop, type LoopHost } from "../loop/agent-loop.js";
import type { ConversationMessage, ModelToolCall, ToolSpec } from "../ports/conversation.js";
import type { RetryPolicy } from "../loop/retry.js";
import type { ModelClient, ModelResponse, RequestOrigin } from "../providers/types.js";
import { ScopedEmitter, type EventEmitterPort } from "../ports/events.js";
import { toolSpecOf, type Tool, type ToolContext } from "../tools/types.js";
import type { ContextOptions } from "../ports/tool-context.js";
import { errorMessage } from "../errors.js";
import { agentToolNames, type AgentDefinition } from "./catalog.js";
import type { McpServerConfig } from "@tandem/protocol";
import type { McpManager } from "../mcp/manager.js";
import type { CompactionHost, SessionCompactor } from "../compaction/compactor.js";
import type { CompatProfile } from "../compat/profile.js";

/** What a sub-agent borrows from its session (permission handler, hooks, tools, model). */
export interface SubAgentParent {
  readonly sessionId: string;
  /** What the session's client generation expects (sub-agent events, streaming; see `compat/profile.ts`). */
  readonly profile: CompatProfile;
  readonly emitter: EventEmitterPort;
  readonly streaming: boolean;
  readonly reasoningEffort: string | undefined;
  readonly retryPolicy: RetryPolicy;
  readonly maxModelCallsPerTurn: number;
  readonly logger: Logger;
  readonly tokenLimit: number;
  readonly hooks: HookRunner;
  readonly model: string;
  baseSystemPrompt(): Promise<string>;
  allTools(): readonly Tool[];
  modelClient(): ModelClient;
  recordModelCall(model: string, response: ModelResponse, durationMs: number): void;
  recordFileChange(change: { path: string; diff: string; before?: string | null }): void;
  createContext(call: ModelToolCall, tool: Tool, signal: AbortSignal, options?: ContextOptions): ToolContext;
  /** MCP servers for an agent's own `mcpServers` (events go to `emitter`). */
  createMcpManager(configs: Record<string, McpServerConfig>, emitter: EventEmitterPort): McpManager;
  /** A compactor for the sub-agent's own history (the session's rules). */
  createCompactor(host: CompactionHost, agentName: string): SessionCompactor;
}

/** One sub-agent conversation: its own history, model and tool subset, the parent's everything else. */
class SubAgentRun implements LoopHost, CompactionHost {
  readonly messages: ConversationMessage[];
  readonly requestOrigin: RequestOrigin;
  readonly emitter: EventEmitterPort;
  /** The sub-agent compacts its own history, as the main loop does. */
  readonly context: SessionCompactor;
  private readonly baseTools: Tool[];
  /** The agent's own MCP servers, for the length of this run. */
  readonly mcp: McpManager | undefined;
  /** The session's hooks; their inputs name this sub-agent (its agent id) as their `sessionId`. */
  readonly hooks: HookRunner;

  constructor(
    private readonly parent: SubAgentParent,
    private readonly agent: AgentDefinition,
    readonly model: string,
    prompt: string,
    parentToolCallId: string,
  ) {
    this.messages = [{ role: "user", content: prompt }];
    this.requestOrigin = { agentId: `${parent.sessionId}/${parentToolCallId}`, parentAgentId: parent.sessionId, interactionType: "conversation-subagent" };
    this.emitter = new ScopedEmitter(parent.emitter, { parentToolCallId });
    this.hooks = parent.hooks.forSubAgent(this.requestOrigin.agentId);
    const { withheldTools } = parent.profile.subAgents;
    const offered = parent.allTools().filter((tool) => !agentToolNames.has(tool.name) && !withheldTools.has(tool.name));
    // An agent's tool list also gives the order the model sees them in.
    this.baseTools = agent.tools ? agent.tools.flatMap((name) => offered.filter((tool) => tool.name === name)) : offered;
    this.mcp = agent.mcpServers ? parent.createMcpManager(agent.mcpServers, this.emitter) : undefined;
    this.context = parent.createCompactor(this, agent.name);
  }

  checkpointTitle(): string {
    return `${this.agent.name} ${this.messages[0]?.content ?? ""}`;
  }

  /** The tools of this run: the parent's subset plus the agent's own MCP tools. */
  private get tools(): Tool[] {
    return this.mcp ? [...this.baseTools, ...this.mcp.tools()] : this.baseTools;
  }

  get sessionId(): string {
    return this.parent.sessionId;
  }
  get profile(): CompatProfile {
    return this.parent.profile;
  }
  get streaming(): boolean {
    return this.parent.streaming;
  }
  get streamsRequests(): boolean {
    return this.parent.streaming || this.parent.profile.subAgents.streamsRequests;
  }
  get reasoningEffort(): string | undefined {
    return this.parent.reasoningEffort;
  }
  get retryPolicy(): RetryPolicy {
    return this.parent.retryPolicy;
  }
  get maxModelCallsPerTurn(): number {
    return this.parent.maxModelCallsPerTurn;
  }
  get logger(): Logger {
    return this.parent.logger;
  }
  get tokenLimit(): number {
    return this.context.tokenLimit;
  }
  async systemPrompt(): Promise<string> {
    return `${await this.parent.baseSystemPrompt()}\n\n${this.agent.prompt}`;
  }
  toolSpecs(): ToolSpec[] {
    return this.tools.map(toolSpecOf);
  }
  findTool(name: string): Tool | undefined {
    return this.tools.find((tool) => tool.name === name);
  }
  toolNames(): string[] {
    return this.tools.map((tool) => tool.name);
  }
  modelClient(): ModelClient {
    return this.parent.modelClient();
  }
  recordModelCall(model: string, response: ModelResponse, durationMs: number): void {
    this.parent.recordModelCall(model, response, durationMs);
  }
  recordFileChange(change: { path: string; diff: string; before?: string | null }): void {
    this.parent.recordFileChange(change);
  }
  async beforeModelCall(): Promise<void> {}
  onTurnError(): void {}
  createContext(call: ModelToolCall, tool: Tool, signal: AbortSignal, options: Omit<ContextOptions, "emitter"> = {}): ToolContext {
    return this.parent.createContext(call, tool, signal, { ...options, emitter: this.emitter });
  }

  /** The sub-agent's final answer: the text of its last assistant message. */
  finalText(): string {
    for (let index = this.messages.length - 1; index >= 0; index--) {
      const message = this.messages[index];
      if (message?.role === "assistant" && message.content) return message.content;
    }
    return "";
  }
}

/**
 * The opening of a sub-agent's own conversation, in 1.0.102's order (each event carries
 * `parentToolCallId`): the agent with its tools, how it is configured (one turn: Tandem's sub-agents
 * take no follow-up messages), its model, its tool set, and its prompt as a `user.message` from the
 * parent agent (with the text its model reads, when that is wrapped).
 */
function announceRun(run: SubAgentRun, agent: AgentDefinition, parentSessionId: string, prompt: string, modelPrompt: string, interactionId: string): void {
  run.emitter.emit("subagent.selected", { agentName: agent.name, agentDisplayName: agent.displayName, tools: run.toolNames() });
  run.emitter.emit("subagent.configured", { model: run.model, multiTurn: false });
  run.emitter.emit("session.model_change", { newModel: run.model, source: "agent" });
  run.emitter.emit("session.tools_updated", { model: run.model });
  const transformed = modelPrompt === prompt ? {} : { transformedContent: modelPrompt };
  run.emitter.emit("user.message", { content: prompt, ...transformed, source: `agent-${parentSessionId}`, interactionId });
}

/** Thrown when a sub-agent's loop fails. */
export class SubAgentFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SubAgentFailed";
  }
}

/**
 * Runs a sub-agent to completion as a child loop and returns its final text. Emits
 * `subagent.started`, its system prompt as `system.message`, and `subagent.completed` /
 * `subagent.failed`; every event the child produces carries `parentToolCallId`. Permissions, hooks and custom tools are the parent's.
 */
export async function runSubAgent(
  parent: SubAgentParent,
  agent: AgentDefinition,
  request: { prompt: string; toolCallId: string; model?: string; signal: AbortSignal; displayName?: string; description?: string },
): Promise<string> {
  const { subAgents } = parent.profile;
  // 1.0.x shows the run by the task call's `name` and `description` when given; 0.2.0 by the agent's own.
  const byTaskCall = subAgents.identity === "task-call";
  const identity = { toolCallId: request.toolCallId, agentName: agent.name, agentDisplayName: (byTaskCall && request.displayName) || agent.displayName };
  parent.emitter.emit("subagent.started", { ...identity, agentDescription: (byTaskCall && request.description) || agent.description });
  // A running sub-agent is one of the session's tasks (clients refresh their list), as in 1.0.x.
  if (subAgents.isBackgroundTask) parent.emitter.emit("session.background_tasks_changed", {});
  // Wrapped as a user's message is (1.0.x); 1.0.10 gave its sub-agents the raw prompt.
  const modelPrompt = subAgents.wrapsPrompt ? `<current_datetime>${new Date().toISOString()}</current_datetime>\n\n${request.prompt}` : request.prompt;
  const run = new SubAgentRun(parent, agent, request.model ?? agent.model ?? parent.model, modelPrompt, request.toolCallId);
  let result: Awaited<ReturnType<typeof runAgentLoop>>;
  try {
    await run.mcp?.start();
    const interactionId = randomUUID();
    announceRun(run, agent, parent.sessionId, request.prompt, modelPrompt, interactionId);
    // The sub-agent's own system prompt is injected into its model calls: announced like the main loop's.
    run.emitter.emit("system.message", { role: "system", content: await run.systemPrompt() });
    result = await runAgentLoop(run, interactionId, request.signal);
  } finally {
    run.context.dispose();
    await run.mcp?.dispose();
  }
  if (result.end === "completed") {
    parent.emitter.emit("subagent.completed", identity);
    if (subAgents.isBackgroundTask) parent.emitter.emit("session.background_tasks_changed", {});
    return run.finalText();
  }
  const error = result.end === "aborted" ? "The sub-agent was interrupted." : errorMessage(result.error);
  parent.emitter.emit("subagent.failed", { ...identity, error });
  if (subAgents.isBackgroundTask) parent.emitter.emit("session.background_tasks_changed", {});
  throw new SubAgentFailed(error);
}
