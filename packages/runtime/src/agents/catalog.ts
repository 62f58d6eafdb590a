import type { CustomAgentConfig, McpServerConfig } from "@tandem/protocol";

/** An agent the session can select or delegate to. */
export interface AgentDefinition {
  name: string;
  displayName: string;
  description: string;
  /** Tool allow-list; null means every tool. */
  tools: string[] | null;
  prompt: string;
  /** Whether the main agent may delegate to it through the `task` tool. */
  infer: boolean;
  builtIn: boolean;
  /** MCP servers of this agent only: started while it runs (or while it is selected). */
  mcpServers?: Record<string, McpServerConfig>;
  /** The model it runs on, when not the session's. */
  model?: string;
}

/** Tools that run agents; sub-agents never get them (no unbounded nesting). */
export const agentToolNames = new Set(["task", "read_agent", "list_agents"]);

/** The read-only agents' tools, in the order the reference offers them. */
const readOnlyTools = ["grep", "glob", "view", "bash", "read_bash", "stop_bash", "list_bash"];

/** The built-in agent types the `task` tool offers. */
export const builtInAgents: readonly AgentDefinition[] = [
  {
    name: "explore",
    displayName: "Explore Agent",
    description: "Quickly searches and reads the codebase to answer a question; makes no changes.",
    tools: readOnlyTools,
    prompt: "You are an exploration sub-agent. Search and read to answer the question you were given. Do not change anything. Reply with a focused answer that cites file paths.",
    infer: true,
    builtIn: true,
  },
  {
    name: "task",
    displayName: "Task",
    description: "Runs commands (builds, tests, scripts) and reports the outcome briefly.",
    tools: null,
    prompt: "You are a task sub-agent. Carry out the command-driven task you were given and report the outcome: what ran, whether it succeeded, and the essential output.",
    infer: true,
    builtIn: true,
  },
  {
    name: "general-purpose",
    displayName: "General purpose",
    description: "Handles a self-contained piece of a larger task with the full tool set.",
    tools: null,
    prompt: "You are a sub-agent working on one part of a larger task. Complete your part fully, then reply with a summary of what you did and anything the caller must know.",
    infer: true,
    builtIn: true,
  },
  {
    name: "code-review",
    displayName: "Code review",
    description: "Reviews changes or code for bugs and risks; makes no changes.",
    tools: readOnlyTools,
    prompt: "You are a code-review sub-agent. Read the code you were pointed at and report real problems (bugs, risks, missing tests), most important first. Do not change anything.",
    infer: true,
    builtIn: true,
  },
];

/**
 * The session's agents: the built-in types (less `excludedBuiltinAgents`, and those a custom agent
 * of the same name replaces), then the application's custom agents.
 */
export function agentCatalog(customAgents: readonly CustomAgentConfig[] | undefined, excludedBuiltinAgents: readonly string[] = []): AgentDefinition[] {
  const custom = (customAgents ?? []).map(
    (agent): AgentDefinition => ({
      name: agent.name,
      displayName: agent.displayName ?? agent.name,
      description: agent.description ?? "",
      tools: agent.tools ?? null,
      prompt: agent.prompt,
      infer: agent.infer !== false,
      builtIn: false,
      ...(agent.mcpServers && Object.keys(agent.mcpServers).length > 0 ? { mcpServers: agent.mcpServers } : {}),
      ...(agent.model ? { model: agent.model } : {}),
    }),
  );
  const hidden = new Set([...custom.map((agent) => agent.name), ...excludedBuiltinAgents]);
  return [...builtInAgents.filter((agent) => !hidden.has(agent.name)), ...custom];
}
