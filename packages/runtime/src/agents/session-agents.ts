import { randomUUID } from "node:crypto";
import type { CustomAgentConfig } from "@tandem/protocol";
import { invalidParams } from "../errors.js";
import type { Tool } from "../tools/types.js";
import { BackgroundAgents, type BackgroundAgent } from "./background.js";
import { agentCatalog, type AgentDefinition } from "./catalog.js";
import { Semaphore } from "./semaphore.js";
import type { McpManager } from "../mcp/manager.js";
import { importOnce } from "../import-once.js";
import type { SubAgentParent } from "./sub-agent.js";
import { createListAgentsTool, createReadAgentTool, createTaskTool, type AgentToolsHost } from "./tools.js";

/** The sub-agent run (its loop, compaction and tools), loaded with the first sub-agent: a session that starts none does not parse it. */
const loadSubAgent = importOnce(() => import("./sub-agent.js"));

/** How many sub-agents (sync and background together) may run at once in one session. */
export const maxConcurrentSubAgents = 4;

/** What the application chose for the sub-agents of one agent type. */
export interface SubagentSettings {
  model?: string;
  effortLevel?: string;
  contextTier?: string;
}

/** What agents need from the session. */
export interface AgentsHost extends SubAgentParent {
  /** `excludedBuiltinAgents`: built-in agent types the session does not offer. */
  readonly config: { readonly excludedBuiltinAgents?: readonly string[] };
  /** Tells the running loop (if any) that a background agent finished. */
  notify(text: string): void;
}

/**
 * Custom agents and sub-agents of one session: `session.agent.*` selection, the
 * `task` / `read_agent` / `list_agents` tools, and the background agents they start.
 *
 * @example
 * const agents = new SessionAgents(config.customAgents, host);
 * agents.select("reviewer");
 */
export class SessionAgents {
  readonly background: BackgroundAgents;
  /** Bounds how many sub-agents run at once (a fleet's parallel task calls included). */
  readonly limit = new Semaphore(maxConcurrentSubAgents);
  private catalog: AgentDefinition[];
  private selectedAgent: AgentDefinition | undefined;
  /** The selected agent's own MCP servers. */
  private selectedMcp: McpManager | undefined;
  private agentTools: Tool[];
  /** Per agent type, the application's settings for its sub-agents (`session.tools.updateSubagentSettings`). */
  private subagentSettings = new Map<string, SubagentSettings>();

  constructor(
    customAgents: readonly CustomAgentConfig[] | undefined,
    private readonly host: AgentsHost,
  ) {
    this.catalog = agentCatalog(customAgents, host.config.excludedBuiltinAgents);
    this.background = new BackgroundAgents(this.limit, (agent) => this.finished(agent));
    this.agentTools = this.buildTools();
  }

  /** The agent tools (`task`, `read_agent`, `list_agents`). */
  get tools(): readonly Tool[] {
    return this.agentTools;
  }

  /** The selected custom agent, if any. */
  get selected(): AgentDefinition | undefined {
    return this.selectedAgent;
  }

  /** Custom agents (what `session.agent.list` reports). */
  customAgents(): AgentDefinition[] {
    return this.catalog.filter((agent) => !agent.builtIn);
  }

  /** Replaces the custom agents (resume with new settings, `session.agent.reload`). */
  reload(customAgents: readonly CustomAgentConfig[] | undefined): void {
    this.catalog = agentCatalog(customAgents, this.host.config.excludedBuiltinAgents);
    if (this.selectedAgent && !this.catalog.some((agent) => agent.name === this.selectedAgent?.name)) this.selectedAgent = undefined;
    this.agentTools = this.buildTools();
  }

  /**
   * Replaces the settings of sub-agents by agent type (their model: used when the `task` call names
   * none); null clears them.
   */
  setSubagentSettings(settings: Readonly<Record<string, SubagentSettings>> | null): void {
    this.subagentSettings = new Map(Object.entries(settings ?? {}));
  }

  /** The settings of one agent type's sub-agents, if the application gave any. */
  subagentSettingsOf(agentType: string): SubagentSettings | undefined {
    return this.subagentSettings.get(agentType);
  }

  /**
   * Starts a background agent of a delegable type (`session.tasks.startAgent`): it runs like one
   * the `task` tool started in background mode. An unknown type is refused (`InvalidParams`).
   */
  startBackground(request: { agentType: string; name: string; prompt: string; description?: string; model?: string }): BackgroundAgent {
    const agent = this.catalog.find((candidate) => candidate.infer && candidate.name === request.agentType);
    if (!agent) {
      const known = this.catalog.filter((candidate) => candidate.infer).map((candidate) => candidate.name);
      throw invalidParams(`Unknown agent type "${request.agentType}". Available agent types: ${known.join(", ") || "none"}.`, { agentType: request.agentType });
    }
    const toolCallId = `task_${randomUUID()}`;
    const { prompt, description, model, name } = request;
    return this.background.start(name, agent.name, (signal) => loadSubAgent().then(({ runSubAgent }) => runSubAgent(this.host, agent, { prompt, toolCallId, model, signal, displayName: name, description })), {
      prompt,
      description,
      model,
      toolCallId,
    });
  }

  /**
   * Runs one sub-agent that no tool call started (an agent factory's body asks for it) and answers
   * its final text: the agent named `agentName` when the session has it, else the general-purpose
   * agent. It shares the session's limit on concurrent sub-agents.
   */
  runDirect(request: { prompt: string; agentName?: string; model?: string; toolCallId: string; displayName: string; signal: AbortSignal }): Promise<string> {
    const named = request.agentName !== undefined ? this.catalog.find((candidate) => candidate.name === request.agentName) : undefined;
    const agent = named ?? this.catalog.find((candidate) => candidate.name === "general-purpose") ?? this.catalog.find((candidate) => candidate.infer);
    if (!agent) throw invalidParams("The session offers no agent to run (every built-in agent is excluded and no custom agent is delegable)");
    const { prompt, model, toolCallId, displayName, signal } = request;
    return this.limit.run(async () => (await loadSubAgent()).runSubAgent(this.host, agent, { prompt, toolCallId, model: model ?? this.subagentSettings.get(agent.name)?.model, signal, displayName }));
  }

  /** Tools of the selected agent's own MCP servers. */
  selectedTools(): Tool[] {
    return this.selectedMcp?.tools() ?? [];
  }

  /** Stops the selected agent's MCP servers. */
  async dispose(): Promise<void> {
    const mcp = this.selectedMcp;
    this.selectedMcp = undefined;
    await mcp?.dispose();
  }

  /** Selects a custom agent for the main loop; emits `subagent.selected`. */
  select(name: string): AgentDefinition {
    const agent = this.customAgents().find((candidate) => candidate.name === name);
    if (!agent) {
      const known = this.customAgents().map((candidate) => candidate.name);
      throw invalidParams(`Unknown agent "${name}". Custom agents: ${known.length > 0 ? known.join(", ") : "(none)"}`, { name });
    }
    this.selectedAgent = agent;
    this.startSelectedMcp();
    this.host.emitter.emit("subagent.selected", { agentName: agent.name, agentDisplayName: agent.displayName, tools: agent.tools });
    return agent;
  }

  /** Restores a selection from the event log (no event). */
  restoreSelection(name: string | undefined): void {
    this.selectedAgent = name ? this.customAgents().find((agent) => agent.name === name) : undefined;
    this.startSelectedMcp();
  }

  /** Starts the selected agent's own MCP servers (replacing the previous agent's). */
  private startSelectedMcp(): void {
    void this.selectedMcp?.dispose();
    const configs = this.selectedAgent?.mcpServers;
    this.selectedMcp = configs ? this.host.createMcpManager(configs, this.host.emitter) : undefined;
    void this.selectedMcp?.start();
  }

  /** Waits until the selected agent's MCP servers are connected (before a model call). */
  async ready(): Promise<void> {
    await this.selectedMcp?.start();
  }

  /** Returns to the default agent; emits `subagent.deselected`. */
  deselect(): void {
    if (!this.selectedAgent) return;
    this.selectedAgent = undefined;
    this.startSelectedMcp();
    this.host.emitter.emit("subagent.deselected", {});
  }

  /** Filters the tools the main loop offers by the selected agent's allow-list. */
  filter(tools: readonly Tool[]): Tool[] {
    const allowed = this.selectedAgent?.tools;
    if (!allowed) return [...tools];
    const names = new Set(allowed);
    const own = new Set(this.selectedTools());
    return tools.filter((tool) => names.has(tool.name) || own.has(tool));
  }

  private buildTools(): Tool[] {
    const toolsHost: AgentToolsHost = {
      parent: this.host,
      delegableAgents: () => this.catalog.filter((agent) => agent.infer),
      background: this.background,
      limit: this.limit,
      modelFor: (agentType) => this.subagentSettings.get(agentType)?.model,
    };
    // With every agent type excluded there is nothing to delegate to: no `task` tool.
    const delegable = toolsHost.delegableAgents().length > 0;
    return [...(delegable ? [createTaskTool(toolsHost)] : []), createReadAgentTool(toolsHost), createListAgentsTool(toolsHost)];
  }

  private finished(agent: BackgroundAgent): void {
    const outcome = agent.status === "completed" ? "finished" : `failed: ${agent.error ?? "unknown error"}`;
    this.host.notify(`<system_notification>\nBackground agent "${agent.id}" (${agent.agentType}) ${outcome}. Call read_agent with agent_id "${agent.id}" for its result.\n</system_notification>`);
  }
}
