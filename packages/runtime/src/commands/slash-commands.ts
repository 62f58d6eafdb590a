import { randomUUID } from "node:crypto";
import type { SlashCommandInfo, SlashCommandInvocationResult } from "@tandem/protocol";
import { ErrorCodes, errorMessage, invalidParams, TandemError } from "../errors.js";
import type { ClientNeed, ClientPort } from "../ports/clients.js";
import type { EventEmitterPort } from "../ports/events.js";
import { PendingAbandoned, type PendingRequests } from "../ports/pending.js";
import type { QueuedCommand } from "../ports/queued-command.js";
import { builtinCommands, findBuiltin, normalizeName, parseSlashCommand, unknownCommand, type BuiltinCommand, type CommandSession } from "./builtins.js";

/** What running commands needs of a session, beyond what the built-ins use. */
export interface CommandHost extends CommandSession {
  readonly emitter: EventEmitterPort;
  readonly scope: CommandSession["scope"] & {
    readonly pending: PendingRequests;
    /** The commands the attached clients registered, and the client that runs one. */
    readonly clients: { commands(): Array<{ name: string; description?: string }>; clientFor(need: ClientNeed): ClientPort | undefined };
  };
  readonly turns: {
    /** Queues a command behind the waiting messages; the session runs it in its turn. */
    enqueueCommand(requestId: string, command: QueuedCommand): void;
    /** `session.queue.*`: a command answered before its turn leaves the queue. */
    readonly pendingMessages: { removeAt(id: string): boolean };
  };
}

/** How a client answered a command it was handed (`handlePendingCommand` or `respondToQueuedCommand`). */
export interface CommandAnswer {
  error?: string;
  /** 1.0.x `respondToQueuedCommand`: the queue waits for the next send before it goes on. */
  stopProcessingQueue?: boolean;
}

/**
 * Who runs a command: the runtime (a built-in), the client that registered it, or (`host`) a
 * client that watches `command.queued` and answers with `respondToQueuedCommand`.
 */
type CommandTarget = { builtin: BuiltinCommand; owner?: undefined; host?: undefined } | { builtin?: undefined; owner: ClientPort; host?: undefined } | { builtin?: undefined; owner?: undefined; host: true };

/** Where a queued command's failure goes: a `session.warning` (sent as a message) or the caller (`invoke`). */
type FailureReport = "warning" | "caller";

/**
 * Slash commands of a session: the built-ins (see `builtins.ts`) and the commands clients
 * registered. A registered command runs in the client that registered it: the runtime sends that
 * client alone a `command.execute` event and waits for its `session.commands.handlePendingCommand`
 * (or `session.respondToQueuedCommand`).
 *
 * A user message that is a known command (`/model gpt-5`) is not sent to the model: it is announced
 * by `command.queued`, waits in the session's queue behind the running turn and the messages sent
 * before it (listed by `session.queue.pendingItems` as `kind: "command"`, removable like them), runs
 * in its turn and is closed by `command.completed` (same `requestId`; also when it is removed or
 * aborted). A failure is a `session.warning` (`warningType: "command"`); `session.idle` follows
 * when nothing else waits. An application that answers the `requestId` before the command's turn
 * (`session.respondToQueuedCommand`) ran it itself: it leaves the queue. An answer with 1.0.x's
 * `stopProcessingQueue` holds what still waits until the next send. Unknown `/words` are ordinary
 * prompts.
 *
 * @example
 * const requestId = commands.runPrompt(session, "/compact");
 */
export class SlashCommands {
  /** `session.commands.list`. */
  list(session: CommandHost, filters: { includeBuiltins?: boolean; includeClientCommands?: boolean } = {}): SlashCommandInfo[] {
    const listed: SlashCommandInfo[] = [];
    if (filters.includeBuiltins !== false) {
      for (const command of builtinCommands) listed.push({ name: command.name, description: command.description, kind: "builtin", allowDuringAgentExecution: command.allowDuringAgentExecution });
    }
    if (filters.includeClientCommands !== false) {
      for (const command of session.scope.clients.commands()) {
        if (findBuiltin(command.name)) continue;
        listed.push({ name: command.name, description: command.description ?? "", kind: "client", allowDuringAgentExecution: true });
      }
    }
    return listed;
  }

  /**
   * `session.commands.invoke`: runs a command and answers with what it produced. A command that
   * may run during a turn (`allowDuringAgentExecution`) runs at once; the others wait for their turn
   * in the queue like a message.
   */
  async invoke(session: CommandHost, name: string, args: string): Promise<SlashCommandInvocationResult> {
    const commandName = normalizeName(name);
    const target = this.resolve(session, commandName);
    if (!target) throw unknownCommand(name);
    if (target.builtin?.allowDuringAgentExecution === false) {
      return this.queue(session, `/${commandName}${args ? ` ${args}` : ""}`, commandName, args, target, "caller");
    }
    if (target.builtin) return target.builtin.run(session, args);
    if (!target.owner) throw unknownCommand(name);
    const { requestId, promise } = session.scope.pending.open<CommandAnswer>("command", undefined, commandName);
    return this.runInClient(session, target.owner, requestId, promise, commandName, args);
  }

  /**
   * A user message: when it is a command the session knows, queues it (see the class) and answers
   * its `requestId`; otherwise undefined (the message goes to the model).
   */
  runPrompt(session: CommandHost, prompt: string): string | undefined {
    const parsed = parseSlashCommand(prompt);
    if (!parsed) return undefined;
    const target = this.resolve(session, parsed.name);
    if (!target) return undefined;
    let requestId = "";
    void this.queue(session, prompt.trim(), parsed.name, parsed.args, target, "warning", (id) => (requestId = id)).catch(() => undefined);
    return requestId;
  }

  /**
   * `session.commands.enqueue`: queues a command like a user message would (see the class). A
   * command the runtime does not know is queued for the application when one of its clients
   * watches `command.queued` (`hostRunsUnknown`): it waits in the queue, and once its turn comes,
   * for the application's `respondToQueuedCommand`. Otherwise it is queued too and, at its turn,
   * fails with a `session.warning` saying it is unknown. Text that is not a slash command is
   * refused (-32602).
   */
  enqueue(session: CommandHost, text: string, hostRunsUnknown: boolean): { requestId: string } {
    const parsed = parseSlashCommand(text);
    if (!parsed) throw invalidParams(`Not a slash command: ${JSON.stringify(text.slice(0, 80))}. Write it as /name followed by its arguments.`, { command: text.slice(0, 200) });
    const unknown: CommandTarget = hostRunsUnknown
      ? { host: true }
      : { builtin: { name: parsed.name, description: "", allowDuringAgentExecution: false, run: () => Promise.reject(unknownCommand(parsed.name)) } };
    const target: CommandTarget = this.resolve(session, parsed.name) ?? unknown;
    let requestId = "";
    void this.queue(session, text.trim(), parsed.name, parsed.args, target, "warning", (id) => (requestId = id)).catch(() => undefined);
    return { requestId };
  }

  private resolve(session: CommandHost, commandName: string): CommandTarget | undefined {
    const builtin = findBuiltin(commandName);
    if (builtin) return { builtin };
    const owner = session.scope.clients.clientFor({ kind: "command", name: commandName });
    return owner ? { owner } : undefined;
  }

  /**
   * Puts a command in the session's queue between `command.queued` and `command.completed`;
   * resolves with its result once it ran, rejects when it failed or left the queue unrun.
   */
  private queue(
    session: CommandHost,
    text: string,
    commandName: string,
    args: string,
    target: CommandTarget,
    failures: FailureReport,
    onQueued: (requestId: string) => void = () => undefined,
  ): Promise<SlashCommandInvocationResult> {
    // A registered command's request is open from the start: its client may answer it before its turn.
    const answer = target.owner || target.host ? session.scope.pending.open<CommandAnswer>("command", undefined, commandName) : undefined;
    const requestId = answer?.requestId ?? randomUUID();
    let state: "waiting" | "running" | "done" = "waiting";
    let resolveResult!: (result: SlashCommandInvocationResult) => void;
    let rejectResult!: (error: unknown) => void;
    const result = new Promise<SlashCommandInvocationResult>((resolve, reject) => ((resolveResult = resolve), (rejectResult = reject)));
    const finish = (outcome: { result: SlashCommandInvocationResult } | { error: unknown }): void => {
      state = "done";
      if ("error" in outcome && failures === "warning") {
        const message = errorMessage(outcome.error);
        session.emitter.emit("session.warning", { warningType: "command", message: message.startsWith(`/${commandName} `) ? message : `/${commandName} failed: ${message}` });
      }
      session.emitter.emit("command.completed", { requestId });
      if ("error" in outcome) rejectResult(outcome.error);
      else resolveResult(outcome.result);
    };
    const command: QueuedCommand = {
      text,
      run: async () => {
        if (state !== "waiting") return undefined;
        state = "running";
        try {
          const output = target.builtin
            ? await target.builtin.run(session, args)
            : target.owner
              ? await this.runInClient(session, target.owner, requestId, answer!.promise, commandName, args)
              : await this.awaitHost(answer!.promise, commandName);
          finish({ result: output });
        } catch (error) {
          finish({ error });
        }
        const stop = await answer?.promise.then((settled) => settled.stopProcessingQueue === true, () => false);
        return stop ? "pause" : undefined;
      },
      cancel: () => {
        if (state !== "waiting") return;
        if (answer) session.scope.pending.settle(requestId, "command", { error: "removed from the queue" });
        state = "done";
        session.emitter.emit("command.completed", { requestId });
        rejectResult(new TandemError(ErrorCodes.SessionBusy, `/${commandName} left the queue before it ran (removed or aborted)`, { commandName, requestId }));
      },
    };
    answer?.promise.then(
      (early) => {
        if (state !== "waiting") return;
        // Answered before its turn: the application ran it (or declined it) itself.
        state = "done";
        session.turns.pendingMessages.removeAt(requestId);
        finish(early.error ? { error: new TandemError(ErrorCodes.InternalError, `/${commandName} failed: ${early.error}`, { commandName }) } : { result: { kind: "completed" } });
      },
      () => undefined,
    );
    session.emitter.emit("command.queued", { requestId, command: text });
    onQueued(requestId);
    session.turns.enqueueCommand(requestId, command);
    return result;
  }

  /** A command the application runs: done when it answers (`respondToQueuedCommand`). */
  private async awaitHost(answer: Promise<CommandAnswer>, commandName: string): Promise<SlashCommandInvocationResult> {
    const { error } = await answer.catch((reason: unknown) => ({ error: `it was not answered (${errorMessage(reason)})` }));
    if (error) throw new TandemError(ErrorCodes.InternalError, `/${commandName} failed: ${error}`, { commandName });
    return { kind: "completed" };
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
    const { error } = await answer.catch((reason: unknown) => ({
      error: reason instanceof PendingAbandoned && reason.reason === "aborted" ? "it was cancelled" : `the client that registered it went away (${errorMessage(reason)})`,
    }));
    if (error) throw new TandemError(ErrorCodes.InternalError, `/${commandName} failed: ${error}`, { commandName });
    return { kind: "completed" };
  }
}
