import { z } from "zod";
import { interruptedText } from "../../loop/tool-runner.js";
import type { ShellExitContent, Tool, ToolOutcome } from "../types.js";
import { askPermission, defineBuiltinTool } from "./define.js";
import { ShellCommandParser } from "./shell/bash-parser.js";
import { analyzeShellCommand, shellRequestFrom } from "./shell/command-parse.js";
import { MAX_DETAILED_OUTPUT_CHARS, MAX_MODEL_OUTPUT_CHARS, truncateMiddle } from "../output-limits.js";
import { PartialOutputStream } from "./shell/partial-output.js";
import type { CommandRecord, RunResult, ShellManager } from "./shell/shell-manager.js";
import { SandboxUnavailableError } from "../../sandbox/errors.js";
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

/** Offered to the model only when the session's sandbox allows bypass. */
const bypassFields = {
  requestSandboxBypass: z
    .boolean()
    .optional()
    .describe(
      "Ask to run this one command outside the OS sandbox (only when the sandbox blocks something the task really needs). " +
        "The user must approve it; it runs in a fresh shell (no shellId, sync only).",
    ),
  requestSandboxBypassReason: z.string().optional().describe("With requestSandboxBypass: why the command cannot run in the sandbox."),
};
const bashSchemaWithBypass = bashSchema.extend(bypassFields);
type BashArgs = z.infer<typeof bashSchemaWithBypass>;

/**
 * The `bash` tool: runs a command line in bash (a fresh shell, or a named session that keeps its
 * state), streaming output as `tool.execution_partial_result`, after a `shell` permission. In a
 * named shell that ran a command that was not read-only, the request is asked as
 * {@link inChangedShell} says and earlier session approvals do not cover it ({@link NamedShellStates}).
 * Streamed output is coalesced and capped per call ({@link PartialOutputStream}); the command's
 * output is kept as head + tail ({@link OutputLog}), and the result is cut for the model and for
 * `detailedContent`. In a session with a sandbox, commands run in it (the permission request says
 * so in `sandboxed`, and so does `tool.execution_complete` on every call); with `allowBypass` the
 * model may ask to run one command outside it, which only the application's approval grants.
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
    schema: shells.launcher?.bypassAllowed ? bashSchemaWithBypass : bashSchema,
    dispose: () => {
      parser.dispose();
      return shells.dispose();
    },
    async execute(rawArgs, context) {
      const args: BashArgs = rawArgs;
      const launcher = shells.launcher;
      const bypass = args.requestSandboxBypass === true;
      const planned = bypass ? false : args.shellId !== undefined ? (shells.sandboxedShell(args.shellId) ?? launcher?.sandboxing === true) : launcher?.sandboxing === true;
      const refuse = (text: string, error: string): ToolOutcome => ({ resultType: "failure", textForModel: text, errorMessage: error, sandboxed: false });
      if (bypass && launcher?.bypassAllowed !== true) return refuse("This session's sandbox does not allow running commands outside it. Run the command without requestSandboxBypass.", "Sandbox bypass not allowed");
      if (bypass && (args.shellId !== undefined || args.mode === "async")) {
        return refuse("A sandbox bypass runs one sync command in a fresh shell: leave out shellId and mode \"async\".", "Sandbox bypass needs a one-off sync command");
      }
      const analysis = await analyzeShellCommand(args.command, parser);
      // Said whenever the session has a sandbox on (or a bypass is asked); without one, the request keeps its usual shape.
      const sandboxFields = {
        ...(launcher?.sandboxing || bypass ? { sandboxed: planned } : {}),
        ...(bypass ? { requestSandboxBypass: true, canOfferSessionApproval: false, ...(args.requestSandboxBypassReason ? { requestSandboxBypassReason: args.requestSandboxBypassReason } : {}) } : {}),
      };
      const request = { ...(await shellRequestFrom(analysis, args.command, args.description, context.workingDirectory)), ...sandboxFields };
      const changedAt = args.shellId === undefined ? undefined : shellStates.changedAt(args.shellId);
      // A bypass is granted by the application alone, each time: no session approval, hook or skill covers it.
      const denied = bypass
        ? await askPermission(context, request, { sessionApprovalsAfter: Number.POSITIVE_INFINITY, newTarget: true })
        : changedAt === undefined
          ? await askPermission(context, request)
          : await askPermission(context, inChangedShell(request), { sessionApprovalsAfter: changedAt });
      if (denied) return { ...denied, sandboxed: false };
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
      let result: RunResult;
      try {
        result = await shells.run({
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
          ...(bypass ? { unsandboxed: true } : {}),
        });
      } catch (error) {
        if (!(error instanceof SandboxUnavailableError)) throw error;
        partials.close();
        if (mode === "sync") announce();
        return refuse(error.message, "Sandbox unavailable");
      }
      if (mode === "sync") announce();
      switch (result.kind) {
        case "started":
          announce();
          return { resultType: "success", textForModel: `<command started in background with shellId: ${result.shellId}>`, telemetry, sandboxed: shells.sandboxedShell(result.shellId) ?? planned };
        case "busy":
          return {
            resultType: "failure",
            textForModel:
              `Shell ${result.shellId} is still running a command (${result.record.command}). Use read_bash or write_bash with ` +
              `shellId "${result.shellId}" to interact with it, stop_bash to stop it, or use another shellId.`,
            errorMessage: "Shell is busy",
            sandboxed: false,
          };
        case "interrupted":
          return { resultType: "failure", textForModel: interruptedText, errorMessage: "Interrupted", sandboxed: planned };
        case "timed-out": {
          const seconds = formatSeconds(timeoutMs);
          const marker =
            `<command timed out after ${seconds} seconds and was stopped. Run long commands with mode "async" ` +
            `(then read_bash), or give a larger initial_wait.>`;
          return { ...withOutput(result.record.output.textFrom(0), marker, maxOutputChars), resultType: "failure", errorMessage: "Command timed out", telemetry, sandboxed: result.record.sandboxed };
        }
        case "completed": {
          const output = result.record.output.textFrom(0);
          const { exitCode } = result.record;
          const contents: ShellExitContent[] =
            exitCode === null ? [] : [{ type: "shell_exit", shellId: result.shellId ?? "", exitCode, cwd: context.workingDirectory, outputPreview: output.slice(0, OUTPUT_PREVIEW_CHARS) }];
          return { ...withOutput(output, exitMarker(result.record), maxOutputChars), resultType: "success", telemetry, sandboxed: result.record.sandboxed, ...(contents.length > 0 ? { contents } : {}) };
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

