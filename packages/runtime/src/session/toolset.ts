import type { SessionCreateParams } from "@tandem/protocol";
import { SessionAgents, type AgentsHost } from "../agents/session-agents.js";
import { McpManager } from "../mcp/manager.js";
import type { McpHost } from "../mcp/types.js";
import { createExitPlanModeTool, type ExitPlanHost } from "../plan/plan-mode.js";
import { SessionSkills, type SkillsHost } from "../skills/session-skills.js";
import { buildSessionTools, createBuiltinServices, listBuiltinTools, type BuiltinServices } from "../tools/registry.js";
import { ToolFilter } from "../tools/tool-filter.js";
import type { Tool } from "../tools/types.js";

/** What the toolset needs from its session. */
export interface ToolsetHost extends AgentsHost, SkillsHost, ExitPlanHost {
  readonly config: SessionCreateParams;
  readonly mode: string;
  /** Elicitation and tool-list changes for the MCP servers. */
  readonly mcpHost: Omit<McpHost, "emitter" | "logger" | "workingDirectory">;
  /** A background shell command finished: `notice` is the message for the model. */
  onBackgroundShellDone(notice: string): void;
}

let builtinNameSet: ReadonlySet<string> | undefined;
/** The names of the built-in tools (computed on first use, not at load). */
function builtinNames(): ReadonlySet<string> {
  builtinNameSet ??= new Set(listBuiltinTools().map((tool) => tool.name));
  return builtinNameSet;
}

/**
 * Every tool a session offers, in the order of the reference runtime: the built-ins (with `skill`,
 * `read_agent` and `list_agents` after `report_intent`, and `task` after `glob`), then the
 * application's custom tools, then `exit_plan_mode` in plan mode, then MCP tools. `availableTools`
 * and `excludedTools` apply to all of them; the selected agent's allow-list applies on top.
 *
 * @example
 * const toolset = new SessionToolset(session);
 * toolset.offered().map((tool) => tool.name);
 */
export class SessionToolset {
  readonly services: BuiltinServices;
  readonly agents: SessionAgents;
  readonly skills: SessionSkills;
  readonly mcp: McpManager;
  private registryTools: Tool[];
  private readonly exitPlanModeTool: Tool;
  private readonly stopListening: () => void;

  constructor(private readonly host: ToolsetHost) {
    const { config } = host;
    this.services = createBuiltinServices({ logger: host.logger });
    this.stopListening = this.services.shells.onBackgroundComplete((completion) => {
      host.emitter.emit("session.background_tasks_changed", {});
      host.onBackgroundShellDone(completion.notice);
    });
    this.registryTools = buildSessionTools(config, this.services);
    this.agents = new SessionAgents(config.customAgents, host);
    this.skills = new SessionSkills(config.skillDirectories ?? [], config.disabledSkills ?? [], host);
    this.exitPlanModeTool = createExitPlanModeTool(host);
    this.mcp = new McpManager(config.mcpServers ?? {}, {
      emitter: host.emitter,
      logger: host.logger,
      workingDirectory: host.workingDirectory,
      ...host.mcpHost,
    });
  }

  /** Rebuilds the built-in and custom tools after the configuration or the clients' tools changed. */
  rebuild(config: SessionCreateParams): void {
    this.registryTools = buildSessionTools(config, this.services);
  }

  /** Every tool of the session, in order, after availableTools / excludedTools. */
  all(): Tool[] {
    const builtins = this.registryTools.filter((tool) => builtinNames().has(tool.name));
    const custom = this.registryTools.filter((tool) => !builtinNames().has(tool.name));
    const byName = new Map(this.agents.tools.map((tool) => [tool.name, tool]));
    const afterIntent = [...this.skills.tools(), byName.get("read_agent"), byName.get("list_agents")].filter(isTool);
    const afterGlob = [byName.get("task")].filter(isTool);
    const ordered: Tool[] = [];
    let intentPlaced = false;
    let globPlaced = false;
    for (const [index, tool] of builtins.entries()) {
      ordered.push(tool);
      const next = builtins[index + 1]?.name;
      if (!intentPlaced && (tool.name === "ask_user" || (tool.name === "report_intent" && next !== "ask_user"))) {
        ordered.push(...this.filter(afterIntent));
        intentPlaced = true;
      }
      if (!globPlaced && tool.name === "glob") {
        ordered.push(...this.filter(afterGlob));
        globPlaced = true;
      }
    }
    if (!intentPlaced) ordered.push(...this.filter(afterIntent));
    if (!globPlaced) ordered.push(...this.filter(afterGlob));
    const planTools = this.host.mode === "plan" ? this.filter([this.exitPlanModeTool]) : [];
    return [...ordered, ...custom, ...planTools, ...this.filter(this.mcp.tools()), ...this.filter(this.agents.selectedTools())];
  }

  /** The tools the main loop offers: {@link all} narrowed by the selected agent. */
  offered(): Tool[] {
    return this.agents.filter(this.all());
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
    const everything = [...buildSessionTools({ requestUserInput, tools }, this.services), ...this.agents.tools, ...this.skills.tools()];
    const kept = new Set(this.all().map((tool) => tool.name));
    return [...new Set(everything.map((tool) => tool.name))].filter((name) => !kept.has(name)).sort();
  }

  /** Stops shells, background agents and MCP servers. */
  async dispose(): Promise<void> {
    this.stopListening();
    this.agents.background.cancelAll();
    await Promise.all([this.services.shells.dispose(), this.mcp.dispose(), this.agents.dispose()]);
  }

  private filter(tools: readonly Tool[]): Tool[] {
    const filter = new ToolFilter(this.host.config.availableTools, this.host.config.excludedTools);
    // Skill, agent and plan tools are the runtime's own: they count as built-ins.
    return tools.filter((tool) => filter.allows(tool, typeof tool.startData?.mcpServerName === "string" ? "mcp" : "builtin"));
  }
}

function isTool(tool: Tool | undefined): tool is Tool {
  return tool !== undefined;
}
