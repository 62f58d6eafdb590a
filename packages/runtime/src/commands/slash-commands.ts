import { randomUUID } from "node:crypto";
import type { SlashCommandInfo, SlashCommandInvocationResult } from "@tandem/protocol";
import { ErrorCodes, errorMessage, TandemError } from "../errors.js";
import type { ClientNeed, ClientPort } from "../session/client-port.js";
import type { EventEmitterPort } from "../session/emitter.js";
import type { PendingRequests } from "../session/pending.js";
import { builtinCommands, findBuiltin, normalizeName, parseSlashCommand, unknownCommand, type CommandSession } from "./builtins.js";

/** What running commands needs of a session, beyond what the built-ins use. */
export interface CommandHost extends CommandSession {
  readonly emitter: EventEmitterPort;
  readonly pending: PendingRequests;
  clientFor(need: ClientNeed): ClientPort | undefined;
  /** The commands the attached clients registered. */
  readonly clients: { commands(): Array<{ name: string; description?: string }> };
}

/** How a client answered a command it was handed (`handlePendingCommand` or `respondToQueuedCommand`). */
export interface CommandAnswer {
  error?: string;
}

/**
 * Slash commands of a session: the built-ins (see `builtins.ts`) and the commands clients
 * registered. A registered command runs in the client that registered it: the runtime sends that
 * client alone a `command.execute` event and waits for its `session.commands.handlePendingCommand`
 * (or `session.respondToQueuedCommand`).
 *
 * A user message that is a known command (`/model gpt-5`) is run instead of being sent to the
 * model, announced by `command.queued` and closed by `command.completed` (same `requestId`); a
 * failure is a `session.warning` (`warningType: "command"`); `session.idle` follows when no turn
 * runs. Unknown `/words` are ordinary prompts.
 *
 * @example
 * const requestId = await commands.runPrompt(session, "/compact");
 */
export class SlashCommands {
  /** `session.commands.list`. */
  list(session: CommandHost, filters: { includeBuiltins?: boolean; includeClientCommands?: boolean } = {}): SlashCommandInfo[] {
    const listed: SlashCommandInfo[] = [];
    if (filters.includeBuiltins !== false) {
      for (const command of builtinCommands) listed.push({ name: command.name, description: command.description, kind: "builtin", allowDuringAgentExecution: command.allowDuringAgentExecution });
    }
    if (filters.includeClientCommands !== false) {
      for (const command of session.clients.commands()) {
        if (findBuiltin(command.name)) continue;
        listed.push({ name: command.name, description: command.description ?? "", kind: "client", allowDuringAgentExecution: true });
      }
    }
    return listed;
  }

  /** `session.commands.invoke`: runs a command now and answers with what it produced. */
  async invoke(session: CommandHost, name: string, args: string): Promise<SlashCommandInvocationResult> {
    const builtin = findBuiltin(name);
    if (builtin) return builtin.run(session, args);
    const owner = session.clientFor({ kind: "command", name: normalizeName(name) });
    if (!owner) throw unknownCommand(name);
    const { requestId, promise } = session.pending.open<CommandAnswer>("command", undefined, normalizeName(name));
    return this.runInClient(session, owner, requestId, promise, normalizeName(name), args);
  }

  /**
   * A user message: when it is a command the session knows, runs it (in the background, like a
   * turn) and answers its `requestId`; otherwise undefined (the message goes to the model).
   */
  runPrompt(session: CommandHost, prompt: string): string | undefined {
    const parsed = parseSlashCommand(prompt);
    if (!parsed) return undefined;
    const builtin = findBuiltin(parsed.name);
    const owner = builtin ? undefined : session.clientFor({ kind: "command", name: parsed.name });
    if (!builtin && !owner) return undefined;
    const pending = owner ? session.pending.open<CommandAnswer>("command", undefined, parsed.name) : undefined;
    const requestId = pending?.requestId ?? randomUUID();
    session.emitter.emit("command.queued", { requestId, command: prompt.trim() });
    const run = builtin ? builtin.run(session, parsed.args) : this.runInClient(session, owner!, requestId, pending!.promise, parsed.name, parsed.args);
    void run
      .catch((error: unknown) => session.emitter.emit("session.warning", { warningType: "command", message: `/${parsed.name} failed: ${errorMessage(error)}` }))
      .finally(() => {
        session.emitter.emit("command.completed", { requestId });
        // A command that started no turn still ends the exchange (so `sendAndWait` returns).
        if (!session.busy) session.emitter.emit("session.idle", {});
      });
    return requestId;
  }

  private async runInClient(
    session: CommandHost,
    owner: ClientPort,
    requestId: string,
    answer: Promise<CommandAnswer>,
    commandName: string,
    args: string,
  ): Promise<SlashCommandInvocationResult> {
    const command = `/${commandName}${args ? ` ${args}` : ""}`;
    // Only the registering client is told: another client would answer "Unknown command".
    const event = { id: randomUUID(), timestamp: new Date().toISOString(), parentId: null, ephemeral: true, type: "command.execute", data: { requestId, command, commandName, args } };
    owner.deliverSessionEvent(session.sessionId, JSON.stringify(event), "command.execute");
    const { error } = await answer.catch((reason: unknown) => ({ error: `the client that registered it went away (${errorMessage(reason)})` }));
    if (error) throw new TandemError(ErrorCodes.InternalError, `/${commandName} failed: ${error}`, { commandName });
    return { kind: "completed" };
  }
}
