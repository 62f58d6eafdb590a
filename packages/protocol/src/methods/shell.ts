/**
 * Shell commands an application runs in a session (the official SDK 1.0.x's `session.shell.*`):
 * `exec` / `kill` start and signal a process of the session's own (its output goes to the
 * requesting client as `shell.output` / `shell.exit` notifications), and `executeUserRequested` /
 * `cancelUserRequested` run a command the user typed, as a tool call the session records.
 */
import { z } from "zod";
import { SessionId } from "../common.js";
import { defineNotification, defineRequest } from "../method.js";

const sessionScoped = { sessionId: SessionId };

/** `session.shell.exec`: starts `command` (in its own process group) and answers its id at once. */
export const SessionShellExec = defineRequest(
  "session.shell.exec",
  () => z.looseObject({ ...sessionScoped, command: z.string().min(1), cwd: z.string().optional(), timeout: z.number().int().positive().optional() }),
  () => z.looseObject({ processId: z.string() }),
);
/** `session.shell.kill`: signals the process group; `killed: false` when the process is unknown or has exited. */
export const SessionShellKill = defineRequest(
  "session.shell.kill",
  () => z.looseObject({ ...sessionScoped, processId: z.string(), signal: z.enum(["SIGTERM", "SIGKILL", "SIGINT"]).optional() }),
  () => z.looseObject({ killed: z.boolean() }),
);
/** `session.shell.executeUserRequested`: runs a command the user typed, as a tool call; resolves when it ends. */
export const SessionShellExecuteUserRequested = defineRequest(
  "session.shell.executeUserRequested",
  () => z.looseObject({ ...sessionScoped, requestId: z.string().min(1), command: z.string().min(1) }),
  () => z.looseObject({ toolCallId: z.string(), success: z.boolean(), output: z.string(), exitCode: z.number().nullable().optional(), error: z.string().optional() }),
);
/** `session.shell.cancelUserRequested`: `cancelled: false` when no such command is running. */
export const SessionShellCancelUserRequested = defineRequest(
  "session.shell.cancelUserRequested",
  () => z.looseObject({ ...sessionScoped, requestId: z.string().min(1) }),
  () => z.looseObject({ cancelled: z.boolean() }),
);

/** `shell.output` (server → client): a chunk of a `session.shell.exec` process's output. */
export const ShellOutputNotification = defineNotification(
  "shell.output",
  () => z.looseObject({ sessionId: SessionId, processId: z.string(), stream: z.enum(["stdout", "stderr"]), data: z.string() }),
);
/** `shell.exit` (server → client): a `session.shell.exec` process ended (`exitCode` null when a signal ended it). */
export const ShellExitNotification = defineNotification(
  "shell.exit",
  () => z.looseObject({ sessionId: SessionId, processId: z.string(), exitCode: z.number().nullable(), signal: z.string().optional() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const shellRequests = [SessionShellExec, SessionShellKill, SessionShellExecuteUserRequested, SessionShellCancelUserRequested] as const;
