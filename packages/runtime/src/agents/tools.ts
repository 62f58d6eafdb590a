import { z } from "zod";
import { defineBuiltinTool, invalidInput, parametersSchema } from "../tools/builtin/define.js";
import { failure, LazyParameters, success, type Tool, type ToolContext, type ToolOutcome } from "../tools/types.js";
import type { BackgroundAgent, BackgroundAgents } from "./background.js";
import type { Semaphore } from "./semaphore.js";
import type { AgentDefinition } from "./catalog.js";
import { importOnce } from "../import-once.js";
import type { SubAgentParent } from "./sub-agent.js";

/** The sub-agent run (its loop, compaction and tools), loaded with the first sub-agent: a session that starts none does not parse it. */
const loadSubAgent = importOnce(() => import("./sub-agent.js"));

/** What the agent tools need from the session. */
export interface AgentToolsHost {
  /** The session the sub-agents borrow from. */
  readonly parent: SubAgentParent;
  /** Agents the main agent may delegate to. */
  delegableAgents(): AgentDefinition[];
  readonly background: BackgroundAgents;
  /** Bounds concurrent sub-agents. */
  readonly limit: Semaphore;
  /** The model the application chose for an agent type (`session.tools.updateSubagentSettings`), if any. */
  modelFor?(agentType: string): string | undefined;
}

/** The `task` tool's argument schema for one list of agent types. */
function taskArguments(names: [string, ...string[]]) {
  return z.object({
    description: z.string().optional().describe("A few words on what the sub-agent will do"),
    prompt: z.string().describe("The complete instructions for the sub-agent; it sees nothing else"),
    agent_type: z.enum(names).describe("Which kind of agent to run"),
    name: z.string().describe("A short name for this sub-agent run"),
    model: z.string().optional().describe("A different model for the sub-agent"),
    mode: z.enum(["sync", "background"]).optional().describe("sync (default) waits for the answer; background returns an agent_id for read_agent"),
  });
}

/**
 * The `task` tool's schema and its JSON Schema per list of agent types. Most sessions offer the
 * same agents, and converting the schema to JSON Schema was ~0.5 ms of every session's create
 * (bench scenario 2); a pure cache of a function of the names, bounded. The JSON Schema is built
 * when a model request first reads it.
 */
const taskSchemas = new Map<string, { schema: ReturnType<typeof taskArguments>; parameters: LazyParameters }>();
const maxTaskSchemas = 32;

function taskSchemaFor(names: [string, ...string[]]): { schema: ReturnType<typeof taskArguments>; parameters: LazyParameters } {
  const key = names.join("\u0000");
  let entry = taskSchemas.get(key);
  if (!entry) {
    const schema = taskArguments(names);
    entry = { schema, parameters: new LazyParameters(() => parametersSchema(schema)) };
    if (taskSchemas.size >= maxTaskSchemas) taskSchemas.clear();
    taskSchemas.set(key, entry);
  }
  return entry;
}

/** The `task` tool: runs a sub-agent (sync: its answer is the result; background: an agent id). */
export function createTaskTool(host: AgentToolsHost): Tool {
  const agents = host.delegableAgents();
  const names = agents.map((agent) => agent.name) as [string, ...string[]];
  const { schema, parameters } = taskSchemaFor(names);
  const catalogue = agents.map((agent) => `- ${agent.name}: ${agent.description}`).join("\n");
  return {
    name: "task",
    description: `Delegate a self-contained piece of work to a sub-agent with its own conversation. Available agent types:\n${catalogue}`,
    get parameters() {
      return parameters.json;
    },
    parametersSource: parameters,
    async execute(args: unknown, context: ToolContext): Promise<ToolOutcome> {
      const parsed = schema.safeParse(args);
      if (!parsed.success) return invalidInput(parsed.error, args);
      const { runSubAgent } = await loadSubAgent();
      const { prompt, agent_type: agentType, name, model: requestedModel, mode, description } = parsed.data;
      const agent = agents.find((candidate) => candidate.name === agentType);
      if (!agent) return failure(`Unknown agent type "${agentType}".`);
      const model = requestedModel ?? host.modelFor?.(agentType);
      if (mode === "background") {
        const started = host.background.start(name, agentType, (signal) =>
          runSubAgent(host.parent, agent, { prompt, toolCallId: context.toolCallId, model, signal, displayName: name, description }),
          { prompt, description, model, toolCallId: context.toolCallId },
        );
        // The model is told it will hear back, so it ends its turn instead of polling read_agent.
        return success(`Agent started in background with agent_id: ${started.id}. A notice will arrive in this conversation when it finishes: until then, end your reply saying you are waiting, or go on with work that does not depend on it.`);
      }
      const text = await host.limit.run(() => runSubAgent(host.parent, agent, { prompt, toolCallId: context.toolCallId, model, signal: context.signal, displayName: name, description }));
      return success(text);
    },
  };
}

function describeAgent(agent: BackgroundAgent): string {
  const elapsed = Math.round(((agent.finishedAt ?? Date.now()) - agent.startedAt) / 1000);
  return `agent_id: ${agent.id}, name: ${agent.name}, type: ${agent.agentType}, status: ${agent.status}, elapsed: ${elapsed}s`;
}

/** A finished background agent's identity and timing, as `read_agent` reports it. */
function describeFinished(agent: BackgroundAgent): string {
  const elapsed = Math.round(((agent.finishedAt ?? Date.now()) - agent.startedAt) / 1000);
  const description = agent.description !== undefined ? ` ("${agent.description}")` : "";
  return `Background agent ${agent.id} (${agent.agentType})${description} finished after ${elapsed}s.`;
}

/** The arguments of `read_agent`, built once for every session's tool. */
const readAgentArguments = z.object({
  agent_id: z.string().describe("The id returned when the agent started"),
  wait: z.boolean().optional().describe("Wait for the agent to finish"),
  timeout: z.number().optional().describe("Seconds to wait at most (default 30)"),
  since_turn: z.number().optional().describe("Accepted for compatibility"),
});

/** The `read_agent` tool: a background agent's status or result (optionally waiting for it). */
export function createReadAgentTool(host: AgentToolsHost): Tool {
  return defineBuiltinTool({
    name: "read_agent",
    description: "Get the status or the result of a background agent started with the task tool.",
    schema: readAgentArguments,
    async execute(args, context) {
      const agent = host.background.get(args.agent_id);
      if (!agent) return failure(`No agent found with agent_id: ${args.agent_id}. The agent may have been cleared or never existed.`, "Agent not found");
      if (args.wait && (agent.status === "running" || agent.status === "queued")) {
        const timeoutMs = Math.max(0, (args.timeout ?? 30) * 1000);
        await Promise.race([agent.done, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()), abortPromise(context.signal)]);
      }
      if (agent.status === "completed") return success(`${describeFinished(agent)}\n\n${agent.result ?? ""}`);
      if (agent.status === "failed") return failure(`Agent ${agent.id} failed: ${agent.error ?? "unknown error"}`, "Agent failed");
      return success(`Agent ${agent.id} is still ${agent.status}. ${describeAgent(agent)}`);
    },
  });
}

/** The arguments of `list_agents`, built once for every session's tool. */
const listAgentsArguments = z.object({ include_completed: z.boolean().optional().describe("Also list finished agents") });
/** `list_agents`' JSON Schema, without a `required` key like the reference's; built when first read. */
const listAgentsParameters = new LazyParameters(() => {
  const { required: _none, ...parameters } = parametersSchema(listAgentsArguments);
  return parameters;
});

/** The `list_agents` tool (its schema has no `required` key, like the reference's). */
export function createListAgentsTool(host: AgentToolsHost): Tool {
  const tool = defineBuiltinTool({
    name: "list_agents",
    description: "List the background agents of this session.",
    schema: listAgentsArguments,
    async execute(args) {
      const agents = host.background.list(args.include_completed ?? true);
      if (agents.length === 0) return success("<no background agents>");
      return success(`Background agents:\n${agents.map((agent) => `  ${describeAgent(agent)}`).join("\n")}`);
    },
  });
  return {
    name: tool.name,
    description: tool.description,
    get parameters() {
      return listAgentsParameters.json;
    },
    parametersSource: listAgentsParameters,
    execute: (args, context) => tool.execute(args, context),
  };
}

function abortPromise(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
