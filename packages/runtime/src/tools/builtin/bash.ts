import { z } from "zod";
import { interruptedText } from "../../loop/tool-runner.js";
import type { ShellExitContent, Tool, ToolOutcome } from "../types.js";
import { askPermission, defineBuiltinTool } from "./define.js";
import { ShellCommandParser } from "./shell/bash-parser.js";
import { analyzeShellCommand, shellRequestFrom } from "./shell/command-parse.js";
import { MAX_DETAILED_OUTPUT_CHARS, MAX_MODEL_OUTPUT_CHARS, truncateMiddle } from "../output-limits.js";
import { PartialOutputStream } from "./shell/partial-output.js";
import type { CommandRecord, ShellManager } from "./shell/shell-manager.js";
import { inChangedShell, NamedShellStates } from "./shell/shell-states.js";

/** Limits of the shell tools. */
export interface ShellToolOptions {
  /** Output longer than this reaches the model as head + tail (default 30,000 characters). */
  maxOutputChars?: number;
  /** How long a sync command may run when the model gives no `initial_wait` (default 120 s). */
  defaultTimeoutMs?: number;
}

const DEFAULT_MAX_OUTPUT_CHARS = MAX_MODEL_OUTPUT_CHARS;
const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;

const bashSchema = z.object({
  command: z.string().describe("The bash command line to run."),
  description: z
    .string()
    .describe("A short, human-readable description of what the command does and why (shown to the user when asking permission)."),
  shellId: z
    .string()
    .optional()
    .describe(
      "Name of a persistent shell session. Commands in the same session share state (working directory, exported variables). " +
        "Omit it for a one-off command in a fresh shell.",
    ),
  mode: z
    .enum(["sync", "async"])
    .optional()
    .describe(
      '"sync" (default) waits for the command to finish. "async" starts it in the background and returns a shellId at once; ' +
        "use read_bash, write_bash and stop_bash with that shellId.",
    ),
  detach: z
    .boolean()
    .optional()
    .describe(
      'With mode "async": let the command keep running after the session ends or the runtime exits, even by a crash (servers, watchers). ' +
        "Without it, everything a command starts is stopped with its shell, the session or the runtime.",
    ),
  initial_wait: z
    .number()
    .positive()
    .optional()
    .describe("With mode \"sync\": seconds to wait for the command before it is stopped (default 120, at most 600)."),
});

/**
 * The `bash` tool: runs a command line in bash (a fresh shell, or a named session that keeps its
 * state), streaming output as `tool.execution_partial_result`, after a `shell` permission. In a
 * named shell that ran a command that was not read-only, the request is asked as
 * {@link inChangedShell} says and earlier session approvals do not cover it ({@link NamedShellStates}).
 * Streamed output is coalesced and capped per call ({@link PartialOutputStream}); the command's
 * output is kept as head + tail ({@link OutputLog}), and the result is cut for the model and for
 * `detailedContent`.
 *
 * @example
 * const bash = bashTool(new ShellManager());
 */
export function bashTool(
  shells: ShellManager,
  options: ShellToolOptions = {},
  parser: ShellCommandParser = new ShellCommandParser(),
  shellStates: NamedShellStates = new NamedShellStates(),
): Tool {
  const maxOutputChars = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  return defineBuiltinTool({
    name: "bash",
    description: [
      "Runs a bash command and returns its combined stdout and stderr followed by `<exited with exit code N>`.",
      "Each call without shellId runs in a fresh shell in the session's working directory; give a shellId to keep",
      "state (cd, export) across calls. Use mode \"async\" for servers and long builds, then read_bash to collect output.",
      "Prefer the view, grep and glob tools over cat, grep and find for reading and searching files.",
    ].join(" "),
    schema: bashSchema,
    dispose: () => {
      parser.dispose();
      return shells.dispose();
    },
    async execute(args, context) {
      const analysis = await analyzeShellCommand(args.command, parser);
      const request = await shellRequestFrom(analysis, args.command, args.description, context.workingDirectory);
      const changedAt = args.shellId === undefined ? undefined : shellStates.changedAt(args.shellId);
      const denied =
        changedAt === undefined
          ? await askPermission(context, request)
          : await askPermission(context, inChangedShell(request), { sessionApprovalsAfter: changedAt });
      if (denied) return denied;
      // Marked before it runs, and after its own approval was remembered: that approval is not carried over either.
      // In a shell already changed, any word may be a function that changes it again.
      if (args.shellId !== undefined && (analysis.changesShellState || changedAt !== undefined)) shellStates.markChanged(args.shellId);
      const mode = args.mode ?? "sync";
      const timeoutMs = Math.min(MAX_TIMEOUT_MS, args.initial_wait !== undefined ? args.initial_wait * 1000 : defaultTimeoutMs);
      const telemetry = {
        properties: { customTimeout: String(args.initial_wait !== undefined), executionMode: mode, detached: String(args.detach === true) },
        metrics: { commandTimeout: timeoutMs },
      };
      const partials = new PartialOutputStream((text) =>
        context.emitter.emit("tool.execution_partial_result", { toolCallId: context.toolCallId, partialOutput: text }),
      );
      // A running command is one of the session's tasks: clients refresh their list when it starts
      // and ends, as the reference signals them (an async command signals once it is started).
      const announce = () => context.emitter.emit("session.background_tasks_changed", {});
      if (mode === "sync") announce();
      const result = await shells.run({
        command: args.command,
        description: args.description,
        ...(args.shellId !== undefined ? { shellId: args.shellId } : {}),
        mode,
        detach: args.detach === true,
        timeoutMs,
        cwd: context.workingDirectory,
        signal: context.signal,
        onOutput: (text) => partials.write(text),
        onOutputEnd: () => partials.close(),
      });
      if (mode === "sync") announce();
      switch (result.kind) {
        case "started":
          announce();
          return { resultType: "success", textForModel: `<command started in background with shellId: ${result.shellId}>`, telemetry };
        case "busy":
          return {
            resultType: "failure",
            textForModel:
              `Shell ${result.shellId} is still running a command (${result.record.command}). Use read_bash or write_bash with ` +
              `shellId "${result.shellId}" to interact with it, stop_bash to stop it, or use another shellId.`,
            errorMessage: "Shell is busy",
          };
        case "interrupted":
          return { resultType: "failure", textForModel: interruptedText, errorMessage: "Interrupted" };
        case "timed-out": {
          const seconds = formatSeconds(timeoutMs);
          const marker =
            `<command timed out after ${seconds} seconds and was stopped. Run long commands with mode "async" ` +
            `(then read_bash), or give a larger initial_wait.>`;
          return { ...withOutput(result.record.output.textFrom(0), marker, maxOutputChars), resultType: "failure", errorMessage: "Command timed out", telemetry };
        }
        case "completed": {
          const output = result.record.output.textFrom(0);
          const { exitCode } = result.record;
          const contents: ShellExitContent[] =
            exitCode === null ? [] : [{ type: "shell_exit", shellId: result.shellId ?? "", exitCode, cwd: context.workingDirectory, outputPreview: output.slice(0, OUTPUT_PREVIEW_CHARS) }];
          return { ...withOutput(output, exitMarker(result.record), maxOutputChars), resultType: "success", telemetry, ...(contents.length > 0 ? { contents } : {}) };
        }
      }
    },
  });
}

/** How much of a command's output `result.contents` previews. */
const OUTPUT_PREVIEW_CHARS = 2_000;

function exitMarker(record: CommandRecord): string {
  if (record.exitCode === null) return "<command was terminated by a signal>";
  return `<exited with exit code ${record.exitCode}>`;
}

/**
 * `output` (with a final newline) then `marker`; long output is cut in the middle for the model
 * (`maxOutputChars`) and for `detailedContent` ({@link MAX_DETAILED_OUTPUT_CHARS}).
 */
export function withOutput(output: string, marker: string, maxOutputChars: number): Pick<ToolOutcome, "textForModel" | "detailedContent"> & { resultType: "success" } {
  const ensureNewline = (text: string) => (text.endsWith("\n") ? text : `${text}\n`);
  if (output.length <= maxOutputChars) return { resultType: "success", textForModel: ensureNewline(output) + marker };
  return {
    resultType: "success",
    textForModel: ensureNewline(truncateMiddle(output, maxOutputChars)) + marker,
    detailedContent: ensureNewline(truncateMiddle(output, Math.max(maxOutputChars, MAX_DETAILED_OUTPUT_CHARS))) + marker,
  };
}

/** Seconds for messages: whole numbers plain, fractions with up to one decimal. */
export function formatSeconds(milliseconds: number): string {
  const seconds = milliseconds / 1000;
  return Number.isInteger(seconds) ? String(seconds) : seconds.toFixed(1);
}

