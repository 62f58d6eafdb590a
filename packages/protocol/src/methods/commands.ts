/**
 * Slash commands (the older `command.queued` / `command.completed` and the responding request;
 * the official SDK 1.0.x's `session.commands.*`): the runtime's built-ins (`/compact`, `/plan`,
 * `/fleet`, `/model`, `/agent`, `/clear`) and the commands applications and extensions register
 * (`commands: [{ name, description }]` on `session.create` / `session.resume`), which the runtime
 * hands to the registering client as a `command.execute` event.
 */
import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

const sessionScoped = { sessionId: SessionId };

/** A command as `session.commands.list` describes it (1.0.x `SlashCommandInfo`). */
export const SlashCommandInfo = z.looseObject({
  name: z.string(),
  aliases: z.array(z.string()).optional(),
  description: z.string(),
  kind: z.enum(["builtin", "skill", "client"]),
  allowDuringAgentExecution: z.boolean().optional(),
});
export type SlashCommandInfo = z.infer<typeof SlashCommandInfo>;


/** What invoking a command produced (1.0.x `SlashCommandInvocationResult`, the kinds Tandem produces). */
export const SlashCommandInvocationResult = z.union([
  z.looseObject({ kind: z.literal("text"), text: z.string() }),
  z.looseObject({ kind: z.literal("completed"), message: z.string().optional() }),
]);
export type SlashCommandInvocationResult = z.infer<typeof SlashCommandInvocationResult>;

/** `session.commands.list`. */
export const SessionCommandsList = defineRequest(
  "session.commands.list",
  () => z.looseObject({ ...sessionScoped, includeBuiltins: z.boolean().optional(), includeSkills: z.boolean().optional(), includeClientCommands: z.boolean().optional() }),
  () => z.looseObject({ commands: z.array(SlashCommandInfo) }),
);

/** `session.commands.invoke`: runs a command (`name` without or with its slash, `input` after it). */
export const SessionCommandsInvoke = defineRequest(
  "session.commands.invoke",
  () => z.looseObject({ ...sessionScoped, name: z.string().min(1), input: z.string().optional() }),
  SlashCommandInvocationResult,
);

/** `session.commands.execute`: runs a command and reports only its error. */
export const SessionCommandsExecute = defineRequest(
  "session.commands.execute",
  () => z.looseObject({ ...sessionScoped, commandName: z.string().min(1), args: z.string().optional() }),
  () => z.looseObject({ error: z.string().optional() }),
);

/** `session.commands.handlePendingCommand`: a client finished a `command.execute` it was handed. */
export const SessionCommandsHandlePendingCommand = defineRequest(
  "session.commands.handlePendingCommand",
  () => z.looseObject({ ...sessionScoped, requestId: z.string(), error: z.string().optional() }),
  () => z.looseObject({ success: z.boolean() }),
);

const RespondToQueuedCommandParams = z.looseObject({
  ...sessionScoped,
  requestId: z.string(),
  result: z.looseObject({ handled: z.boolean(), stopProcessingQueue: z.boolean().optional() }),
});
const RespondToQueuedCommandResult = z.looseObject({ success: z.boolean() });

/** `session.commands.respondToQueuedCommand` (1.0.x): the host ran a queued command itself (or did not). */
export const SessionCommandsRespondToQueuedCommand = defineRequest("session.commands.respondToQueuedCommand", RespondToQueuedCommandParams, RespondToQueuedCommandResult);
/** `session.respondToQueuedCommand`: the older name of the same request. */
export const SessionRespondToQueuedCommand = defineRequest("session.respondToQueuedCommand", RespondToQueuedCommandParams, RespondToQueuedCommandResult);

/**
 * `session.tools.execute` (1.0.x): the user, not the model, runs one of the session's tools. The
 * session emits `tool.user_requested`, then the usual `tool.execution_start` / `_complete`.
 */
export const SessionToolsExecute = defineRequest(
  "session.tools.execute",
  () => z.looseObject({ ...sessionScoped, name: z.string().min(1), arguments: z.unknown().optional(), toolCallId: z.string().optional() }),
  () => z.looseObject({ textResultForLlm: z.string(), resultType: z.string(), sessionLog: z.string().optional(), error: z.string().optional() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const commandRequests = [
  SessionCommandsList,
  SessionCommandsInvoke,
  SessionCommandsExecute,
  SessionCommandsHandlePendingCommand,
  SessionCommandsRespondToQueuedCommand,
  SessionRespondToQueuedCommand,
  SessionToolsExecute,
] as const;
