import type { AgentMode, SlashCommandInvocationResult } from "@tandem/protocol";
import { invalidParams } from "../errors.js";
import { fleetPrompt } from "./fleet.js";

/** What the built-in commands act on: the session's own operations. */
export interface CommandSession {
  /** The current model (`/model` without an argument) and the agent mode (`/plan` switches to plan mode; the switch emits `session.mode_changed`). */
  readonly scope: { readonly model: string; setMode(mode: AgentMode): void };
  /** Model switches (`/model`; a switch emits `session.model_change`). */
  readonly models: { switchTo(modelId: string): void };
  /** `placement: "next"` puts the message before the others waiting (a command's own follow-up). */
  send(params: { sessionId: string; prompt: string }, placement?: "last" | "next"): Promise<string>;
  readonly sessionId: string;
  readonly context: { compactNow(): Promise<{ success: boolean; messagesRemoved: number; tokensRemoved: number }> };
  readonly agents: { readonly selected: { name: string } | undefined; customAgents(): Array<{ name: string }>; select(name: string): unknown; deselect(): void };
  readonly history: { timeline(): Promise<{ live: ReadonlyArray<{ id: string }> }>; truncate(eventId: string): Promise<{ eventsRemoved: number }> };
}

/** A built-in slash command. */
export interface BuiltinCommand {
  readonly name: string;
  readonly description: string;
  readonly allowDuringAgentExecution: boolean;
  run(session: CommandSession, args: string): Promise<SlashCommandInvocationResult>;
}

const done = (message: string): SlashCommandInvocationResult => ({ kind: "completed", message });

/** The runtime's own commands: `/compact`, `/plan`, `/fleet`, `/model`, `/agent`, `/clear`. */
export const builtinCommands: readonly BuiltinCommand[] = [
  {
    name: "compact",
    description: "Summarize the conversation so far to free context",
    allowDuringAgentExecution: true,
    async run(session) {
      const result = await session.context.compactNow();
      return done(result.messagesRemoved > 0 ? `Compacted: ${result.messagesRemoved} messages (${result.tokensRemoved} tokens) replaced by a summary.` : "Nothing to compact.");
    },
  },
  {
    name: "plan",
    description: "Switch to plan mode (and plan the given task)",
    allowDuringAgentExecution: false,
    async run(session, args) {
      session.scope.setMode("plan");
      if (!args) return done("Plan mode.");
      await session.send({ sessionId: session.sessionId, prompt: args }, "next");
      return done("Plan mode; planning the task.");
    },
  },
  {
    name: "fleet",
    description: "Split the task into parts run by parallel sub-agents",
    allowDuringAgentExecution: false,
    async run(session, args) {
      await session.send({ sessionId: session.sessionId, prompt: fleetPrompt(args || undefined) }, "next");
      return done("Fleet started.");
    },
  },
  {
    name: "model",
    description: "Show or switch the model: /model [id]",
    allowDuringAgentExecution: true,
    async run(session, args) {
      if (!args) return { kind: "text", text: `Current model: ${session.scope.model}` };
      session.models.switchTo(args);
      return done(`Model: ${args}`);
    },
  },
  {
    name: "agent",
    description: "Show, select or deselect (/agent none) a custom agent",
    allowDuringAgentExecution: false,
    async run(session, args) {
      const { agents } = session;
      if (!args) {
        const names = agents.customAgents().map((agent) => agent.name);
        return { kind: "text", text: `Current agent: ${agents.selected?.name ?? "none"}. Available: ${names.length > 0 ? names.join(", ") : "none"}` };
      }
      if (args === "none") {
        agents.deselect();
        return done("No agent selected.");
      }
      agents.select(args);
      return done(`Agent: ${args}`);
    },
  },
  {
    name: "clear",
    description: "Clear the conversation (its events stay in the log)",
    allowDuringAgentExecution: false,
    async run(session) {
      const [first] = (await session.history.timeline()).live;
      if (!first) return done("The conversation is already empty.");
      const { eventsRemoved } = await session.history.truncate(first.id);
      return done(`Cleared ${eventsRemoved} events from the conversation.`);
    },
  },
];

/** The built-in command called `name` (case-insensitive, slash optional). */
export function findBuiltin(name: string): BuiltinCommand | undefined {
  const wanted = normalizeName(name);
  return builtinCommands.find((command) => command.name === wanted);
}

/** A command name as matched: without its leading slashes, lower case. */
export function normalizeName(name: string): string {
  return name.replace(/^\/+/, "").trim().toLowerCase();
}

/** `"/model gpt-5"` → `{ name: "model", args: "gpt-5" }`; undefined for text that is not a slash command. */
export function parseSlashCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z][\w.:-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  return { name: match[1]!.toLowerCase(), args: (match[2] ?? "").trim() };
}

/** The error for a command nobody knows. */
export function unknownCommand(name: string) {
  return invalidParams(`Unknown slash command /${normalizeName(name)}`, { name });
}
