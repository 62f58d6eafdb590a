import type { McpServerConfig, SessionCreateParams } from "@tandem/protocol";
import type { SessionAgents } from "../agents/session-agents.js";
import { McpManager } from "../mcp/manager.js";
import { pluginMcpServers } from "../mcp/plugin-servers.js";
import type { McpHost } from "../mcp/types.js";
import type { SessionSkills } from "../skills/session-skills.js";
import { buildSessionTools, createBuiltinServices, builtinToolNames, type BuiltinServices } from "../tools/registry.js";
import { ToolFilter } from "../tools/tool-filter.js";
import { SessionSandbox } from "../sandbox/session-sandbox.js";
import type { Tool } from "../tools/types.js";
import type { ToolSpec } from "../loop/messages.js";
import type { SessionScope } from "./scope.js";

/** The subsystems whose tools the toolset offers, built before it. */
export interface ToolsetParts {
  readonly agents: SessionAgents;
  readonly skills: SessionSkills;
  /** The `exit_plan_mode` tool (offered in plan mode). */
  readonly exitPlanMode: Tool;
  /** Elicitation, the preMcpToolCall hook and tokens for the MCP servers. */
  readonly mcpHost: Omit<McpHost, "emitter" | "logger" | "workingDirectory">;
  /** A background shell command finished: `notice` is the message for the model. */
  onBackgroundShellDone(notice: string): void;
  /**
   * Whether the session's first message was accepted. Until then the runtime's own MCP servers
   * (GitHub's) are not part of the session: they join at its first turn, or when its servers are
   * listed; a session resumed after its first message has them from the resume.
   */
  firstMessageAccepted(): boolean;
}

let builtinNameSet: ReadonlySet<string> | undefined;
/** The names of the built-in tools (computed on first use, not at load; no JSON Schema is built for them). */
function builtinNames(): ReadonlySet<string> {
  builtinNameSet ??= new Set([...builtinToolNames(), "report_intent"]);
  return builtinNameSet;
}

/**
 * The order of the reference runtime's tools (1.0.102, observed): `task_complete` is offered in
 * plan and autopilot mode, `exit_plan_mode` in plan mode; the application's tools follow, then MCP tools.
 * `report_intent`, when offered, comes after `web_fetch`, where the 0.2.0 generation's runtime had it.
 */
const builtinOrder = [
  "bash", "write_bash", "read_bash", "stop_bash", "list_bash", "view", "create", "edit", "web_fetch", "report_intent", "ask_user",
  "skill", "sql", "task_complete", "exit_plan_mode", "read_agent", "list_agents", "grep", "glob", "task",
];
const orderIndex = new Map(builtinOrder.map((name, index) => [name, index]));

/**
 * Every tool a session offers, in the order of the reference runtime ({@link builtinOrder}): the
 * built-ins with the skill, plan and agent tools among them, then the application's custom tools,
 * then MCP tools. `availableTools` and `excludedTools` apply to all of them; the selected agent's
 * allow-list applies on top.
 *
 * @example
 * const toolset = new SessionToolset(scope, { agents, skills, exitPlanMode, mcpHost, onBackgroundShellDone });
 * toolset.offered().map((tool) => tool.name);
 */
export class SessionToolset {
  readonly services: BuiltinServices;
  /** The OS sandbox the session's shells and stdio MCP servers start in. */
  readonly sandbox: SessionSandbox;
  readonly agents: SessionAgents;
  readonly skills: SessionSkills;
  private mcpServers: McpManager;
  private registryTools: Tool[];
  private readonly exitPlanModeTool: Tool;
  private readonly stopListening: () => void;

  /** Built-in MCP servers removed from this session (`session.mcp.removeGitHub`): not added again on resume. */
  private readonly removedBuiltinMcp = new Set<string>();

  /**
   * Reads the scope's configuration, mode and client generation at each use, and the runtime's
   * settings of the built-in tools, sandbox, `--report-intent` and built-in MCP servers from its services.
   */
  constructor(
    private readonly host: SessionScope,
    private readonly parts: ToolsetParts,
  ) {
    const { config, services } = host;
    this.sandbox = new SessionSandbox(config.sandbox, host.workingDirectory, services.sandbox);
    this.services = createBuiltinServices({ logger: host.logger, sessionFolder: host.workspacePath, options: services.builtinTools ?? {}, shells: { launcher: this.sandbox } });
    this.stopListening = this.services.shells.onBackgroundComplete((completion) => {
      host.emitter.emit("session.background_tasks_changed", {});
      parts.onBackgroundShellDone(completion.notice);
    });
    this.registryTools = buildSessionTools(this.withReportIntent(config), this.services);
    this.agents = parts.agents;
    this.skills = parts.skills;
    this.exitPlanModeTool = parts.exitPlanMode;
    this.mcpServers = this.createMcp(config);
  }

  /** The session's MCP servers. */
  get mcp(): McpManager {
    return this.mcpServers;
  }

  /**
   * Replaces the MCP servers (a resume that brings its own `mcpServers`): the old ones stop, the new
   * ones connect on the next `start()`.
   */
  async replaceMcpServers(config: SessionCreateParams): Promise<void> {
    const previous = this.mcpServers;
    this.mcpServers = this.createMcp(config, previous.hasStarted);
    await previous.dispose();
  }

  /**
   * Removes a server the runtime added (not one the application configured under the same name):
   * it stops and is no longer listed, and a resume does not add it again. False when there was none.
   */
  async removeBuiltinMcpServer(serverName: string): Promise<boolean> {
    const removed = await this.mcpServers.removeBuiltin(serverName);
    if (removed) this.removedBuiltinMcp.add(serverName);
    return removed;
  }

  /**
   * The runtime's built-in servers, the plugin folders' servers and the configured ones (a later
   * source wins a name), minus `disabledMcpServers` (listed as disabled, never started). The
   * built-in ones join when the MCP host starts, unless the session already had its first message
   * or its previous host had started (`hostWasStarted`).
   */
  private createMcp(config: SessionCreateParams, hostWasStarted = false): McpManager {
    const { host } = this;
    const { pluginDirectories } = config as { pluginDirectories?: unknown };
    const builtins = Object.fromEntries(Object.entries(host.services.builtinMcpServers?.(config) ?? {}).filter(([name]) => !this.removedBuiltinMcp.has(name)));
    const plugins = pluginMcpServers(stringList(pluginDirectories), host.logger);
    const configured: Record<string, McpServerConfig> = { ...plugins, ...(config.mcpServers ?? {}) };
    const servers: Record<string, McpServerConfig> = { ...builtins, ...configured };
    const builtinServers = Object.keys(builtins).filter((name) => !(name in configured));
    const builtinsJoinAtStart = !this.parts.firstMessageAccepted() && !hostWasStarted;
    return new McpManager(
      servers,
      { emitter: host.emitter, logger: host.logger, workingDirectory: host.workingDirectory, launcher: this.sandbox, ...this.parts.mcpHost },
      { disabledServers: stringList(config.disabledMcpServers), builtinServers, builtinsJoinAtStart },
    );
  }

  /** The session moved to `folder`: its sandbox follows (the new folder is the writable one). */
  followWorkingDirectory(folder: string): void {
    this.sandbox.reconfigure(undefined, folder);
  }

  /** Rebuilds the built-in and custom tools after the configuration or the clients' tools changed. */
  rebuild(config: SessionCreateParams): void {
    this.sandbox.reconfigure(config.sandbox);
    this.registryTools = buildSessionTools(this.withReportIntent(config), this.services);
  }

  /**
   * Whether `report_intent` is offered: the session's `reportIntent` setting, else the runtime's
   * `--report-intent`, else the default of the client generation that opened the session.
   */
  offersReportIntent(config: SessionCreateParams = this.host.config): boolean {
    return config.reportIntent ?? this.host.services.reportIntent ?? this.host.profile.offersReportIntent;
  }

  private withReportIntent(config: SessionCreateParams): SessionCreateParams {
    return { ...config, reportIntent: this.offersReportIntent(config) };
  }

  /** Every tool of the session, in order, after availableTools / excludedTools. */
  all(): Tool[] {
    const { mode } = this.host;
    const byMode = (tool: Tool): boolean => tool.name !== "task_complete" || this.host.profile.taskCompleteModes.has(mode);
    const builtins = this.registryTools.filter((tool) => builtinNames().has(tool.name) && byMode(tool));
    const custom = this.registryTools.filter((tool) => !builtinNames().has(tool.name));
    const planTools = mode === "plan" ? [this.exitPlanModeTool] : [];
    const extra = this.filter([...this.skills.tools(), ...this.agents.tools.filter((tool) => orderIndex.has(tool.name)), ...planTools]);
    const ordered = [...builtins, ...extra].sort((a, b) => (orderIndex.get(a.name) ?? 0) - (orderIndex.get(b.name) ?? 0));
    return [...ordered, ...custom, ...this.filter(this.mcp.tools()), ...this.filter(this.agents.selectedTools())];
  }

  /**
   * The tools the main loop offers: {@link all} narrowed by the selected agent, or, with none
   * selected, without the default agent's `excludedTools` (sub-agents keep those).
   */
  offered(): Tool[] {
    const tools = this.agents.filter(this.all());
    if (this.agents.selected) return tools;
    const excluded = defaultAgentExclusions(this.host.config);
    return excluded.size === 0 ? tools : tools.filter((tool) => !excluded.has(tool.name));
  }

  /** A tool the main loop may call, including tools of a crashed MCP server (calling restarts it). */
  find(name: string): Tool | undefined {
    const found = this.offered().find((tool) => tool.name === name);
    if (found) return found;
    const mcpTool = this.mcp.findTool(name);
    return mcpTool && this.agents.filter(this.filter([mcpTool])).length > 0 ? mcpTool : undefined;
  }

  /** Tools left out by availableTools / excludedTools (for the configuration notice): built-in, agent, skill and custom tools. */
  disabledNames(): string[] {
    const { requestUserInput, tools } = this.host.config;
    const reportIntent = this.offersReportIntent();
    const everything = [...buildSessionTools({ requestUserInput, tools, reportIntent }, this.services), ...this.agents.tools, ...this.skills.tools()];
    const allowed = new Set(this.filter(everything).map((tool) => tool.name));
    return [...new Set(everything.map((tool) => tool.name))].filter((name) => !allowed.has(name)).sort();
  }

  /** Stops shells, background agents and MCP servers. */
  async dispose(): Promise<void> {
    this.stopListening();
    this.agents.background.cancelAll();
    await Promise.all([this.services.shells.dispose(), this.services.database.close(), this.mcp.dispose(), this.agents.dispose()]);
    await this.sandbox.dispose();
  }

  private filter(tools: readonly Tool[]): Tool[] {
    const filter = new ToolFilter(this.host.config.availableTools, this.host.config.excludedTools);
    // Skill, agent and plan tools are the runtime's own: they count as built-ins.
    return tools.filter((tool) => filter.allows(tool, typeof tool.startData?.mcpServerName === "string" ? "mcp" : "builtin"));
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : [];
}

/** The tool names `defaultAgent.excludedTools` hides from the main agent. */
function defaultAgentExclusions(config: SessionCreateParams): ReadonlySet<string> {
  const excluded = (config as { defaultAgent?: { excludedTools?: unknown } }).defaultAgent?.excludedTools;
  return new Set(Array.isArray(excluded) ? excluded.filter((name): name is string => typeof name === "string") : []);
}

/**
 * Whether two lists offer the same tools. Parameters are compared by what they are built from
 * (a built-in's, see `Tool.parametersSource`), then by identity (a rebuilt tool set mostly reuses
 * them), as text only when they differ: a create builds no built-in tool's JSON Schema for this, and
 * serialising every schema twice on each attach was ~0.1 ms of every session's create.
 *
 * @example
 * if (!sameToolSpecs(loop.toolSpecs(), before)) emitter.emit("session.tools_updated", { model });
 */
export function sameToolSpecs(a: readonly ToolSpec[], b: readonly ToolSpec[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((spec, index) => {
    const other = b[index] as ToolSpec;
    if (spec.name !== other.name || spec.description !== other.description) return false;
    // Built from the same source: the same parameters, without building them.
    if (spec.parametersSource !== undefined && spec.parametersSource === other.parametersSource) return true;
    return spec.parameters === other.parameters || JSON.stringify(spec.parameters) === JSON.stringify(other.parameters);
  });
}
