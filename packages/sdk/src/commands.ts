import type { SessionEventOf } from "@tandem/protocol";
import type { SessionRpc } from "./rpc.js";

/** What a command handler is told when the user runs its command (1.0.x `CommandContext`). */
export interface CommandContext {
  /** The session the command was run in. */
  sessionId: string;
  /** The whole command as typed (`/deploy production`). */
  command: string;
  /** The command's name, without the slash. */
  commandName: string;
  /** What follows the name (`production`), `""` when nothing does. */
  args: string;
}

/** Runs a registered command; a throw (or rejection) reports the command as failed. */
export type CommandHandler = (context: CommandContext) => Promise<void> | void;

/**
 * A slash command the application registers for its session (1.0.x `CommandDefinition`): the user
 * runs it as `/name args` (a message, or `session.commands.invoke`) and the runtime hands it to
 * this client, which runs `handler`.
 *
 * @example
 * const deploy: CommandDefinition = { name: "deploy", description: "Deploys", handler: ({ args }) => deployTo(args) };
 */
export interface CommandDefinition {
  /** The name, without the slash. */
  name: string;
  /** Shown next to the name in command lists. */
  description?: string;
  handler: CommandHandler;
}

/** The `commands` field of `session.create` / `session.resume`: names and descriptions, no handlers. */
export function toCommandRegistrations(commands: readonly CommandDefinition[] | undefined): Array<{ name: string; description: string }> | undefined {
  return commands?.map((command) => ({ name: command.name, description: command.description ?? "" }));
}

/**
 * Runs the handler a `command.execute` names and answers with `session.commands.handlePendingCommand`
 * (`error` when the handler threw or no command has that name), as the official 1.0.x client does.
 */
export async function runCommandAndRespond(
  rpc: SessionRpc,
  sessionId: string,
  handlers: ReadonlyMap<string, CommandHandler>,
  event: SessionEventOf<"command.execute">,
): Promise<void> {
  const { requestId, command, commandName, args } = event.data;
  const handler = handlers.get(commandName);
  let error: string | undefined;
  if (!handler) error = `Unknown command: ${commandName}`;
  else {
    try {
      await handler({ sessionId, command, commandName, args });
    } catch (thrown) {
      error = thrown instanceof Error ? thrown.message : String(thrown);
    }
  }
  try {
    await rpc.commands.handlePendingCommand({ requestId, ...(error !== undefined ? { error } : {}) });
  } catch {
    // The connection is gone or the runtime no longer waits for this command.
  }
}
