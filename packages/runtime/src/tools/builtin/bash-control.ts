import { z } from "zod";
import { MAX_MODEL_OUTPUT_CHARS } from "../output-limits.js";
import type { Tool } from "../types.js";
import { formatSeconds, withOutput, type ShellToolOptions } from "./bash.js";
import { defineBuiltinTool } from "./define.js";
import type { CommandRecord, ShellManager, ShellSummary } from "./shell/shell-manager.js";

const DEFAULT_MAX_OUTPUT_CHARS = MAX_MODEL_OUTPUT_CHARS;
const MAX_DELAY_SECONDS = 600;

const shellIdField = z.string().describe("The shellId of the shell session (from bash).");
const delayField = z
  .number()
  .min(0)
  .describe("Seconds to wait for more output before returning (returns early when the command ends).");

/** The arguments of `read_bash`, built once for every session's tool. */
const readBashArguments = z.object({ shellId: shellIdField, delay: delayField });

/**
 * `read_bash`: waits up to `delay` seconds, then returns the output of a shell's command that has
 * not been read yet and whether it is still running.
 *
 * @example
 * const read = readBashTool(shells);
 */
export function readBashTool(shells: ShellManager, options: ShellToolOptions = {}): Tool {
  const maxOutputChars = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  return defineBuiltinTool({
    name: "read_bash",
    description:
      "Reads new output from a shell session started by bash (mode \"async\", or a named shell), waiting up to `delay` seconds " +
      "for the command to produce more or finish. Returns the output not read before and the command's status.",
    schema: readBashArguments,
    async execute({ shellId, delay }, context) {
      const read = await shells.read(shellId, seconds(delay), context.signal);
      if (!read) {
        return {
          resultType: "failure",
          textForModel: `Invalid shell ID: ${shellId}. Please supply a valid shell ID to read output from.\n\n${describeShells(shells.list())}`,
          errorMessage: "Invalid shell ID",
        };
      }
      if (!read.record) return { resultType: "success", textForModel: `<shell ${shellId} has not run a command yet>` };
      return withOutput(read.output, statusMarker(shellId, read.record), maxOutputChars);
    },
  });
}

/** The arguments of `write_bash`, built once for every session's tool. */
const writeBashArguments = z.object({
  shellId: shellIdField,
  input: z.string().optional().describe("The text to send to the command's standard input."),
  delay: delayField,
});

/**
 * `write_bash`: sends input (with `{enter}`-style keys) to a running command, waits `delay`
 * seconds and returns the new output.
 *
 * @example
 * const write = writeBashTool(shells);
 */
export function writeBashTool(shells: ShellManager, options: ShellToolOptions = {}): Tool {
  const maxOutputChars = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  return defineBuiltinTool({
    name: "write_bash",
    description:
      "Sends input to a command running in a shell session (e.g. an answer to a prompt), then waits up to `delay` seconds and " +
      "returns the new output. Special keys: {enter}, {tab}, {backspace}, {escape}, {up}, {down}, {left}, {right}; " +
      "end a line with \\n or {enter}.",
    schema: writeBashArguments,
    async execute({ shellId, input, delay }, context) {
      const written = await shells.write(shellId, input ?? "", seconds(delay), context.signal);
      if (!written) {
        return {
          resultType: "failure",
          textForModel: `<unable to send input. no command with id: ${shellId} is currently running>`,
          errorMessage: "No command is running",
        };
      }
      return withOutput(written.output, statusMarker(shellId, written.record), maxOutputChars);
    },
  });
}

/** The arguments of `stop_bash`, built once for every session's tool. */
const stopBashArguments = z.object({ shellId: shellIdField });

/**
 * `stop_bash`: kills a shell session and everything it started.
 *
 * @example
 * const stop = stopBashTool(shells);
 */
export function stopBashTool(shells: ShellManager): Tool {
  return defineBuiltinTool({
    name: "stop_bash",
    description: "Stops a shell session: kills its running command and every process it started, and forgets the session.",
    schema: stopBashArguments,
    async execute({ shellId }) {
      await shells.stop(shellId);
      return { resultType: "success", textForModel: `<command with id: ${shellId} stopped>` };
    },
  });
}

/** The arguments of `list_bash`, built once for every session's tool. */
const listBashArguments = z.object({});

/**
 * `list_bash`: the shell sessions, their status and their unread output.
 *
 * @example
 * const list = listBashTool(shells);
 */
export function listBashTool(shells: ShellManager): Tool {
  return defineBuiltinTool({
    name: "list_bash",
    description: "Lists the shell sessions of this session (background and named shells) with their status.",
    schema: listBashArguments,
    async execute() {
      return { resultType: "success", textForModel: describeShells(shells.list()) };
    },
  });
}

function seconds(delay: number): number {
  return Math.min(delay, MAX_DELAY_SECONDS) * 1000;
}

function statusMarker(shellId: string, record: CommandRecord): string {
  switch (record.status) {
    case "running":
      return (
        `<command with shellId: ${shellId} is still running after ${formatSeconds(Date.now() - record.startedAt)} seconds. ` +
        "If it is waiting for input, send it with write_bash; to wait for more output use read_bash; to end it use stop_bash.>"
      );
    case "exited":
      if (record.exitCode === null) return `<command with id: ${shellId} was terminated by a signal>`;
      return `<command with id: ${shellId} exited with exit code ${record.exitCode}>`;
    default:
      return `<command with id: ${shellId} was stopped>`;
  }
}

/** The `list_bash` text. */
export function describeShells(shells: ShellSummary[]): string {
  if (shells.length === 0) return "<no active shell sessions>";
  const lines = ["Active shell sessions:"];
  for (const shell of shells) {
    const last = shell.last;
    const status = last ? (last.status === "exited" ? "completed" : last.status) : "idle";
    const elapsed = last ? Math.round(((last.endedAt ?? Date.now()) - last.startedAt) / 1000) : 0;
    const unread = last && last.output.length > last.readOffset ? "yes" : "no";
    lines.push(
      `  shellId: ${shell.shellId}, pid: ${shell.pid ?? "unknown"}, mode: ${last?.mode ?? "sync"}, status: ${status}, ` +
        `elapsed: ${elapsed}s, commands: ${shell.commands}, unread output: ${unread}`,
    );
    if (last) lines.push(`    ${last.status === "running" ? "current" : "last"} command: ${last.command}`);
  }
  return lines.join("\n");
}
