import type { HookRunner } from "../hooks/hook-runner.js";
import { deniedByHook, postToolUse, preToolUse, withContext, type PreToolDecision } from "../hooks/tool-hooks.js";
import type { Logger } from "../log.js";
import type { EventEmitterPort } from "../ports/events.js";
import type { ContextOptions, PermissionTurn } from "../ports/tool-context.js";
import type { Tool, ToolContext, ToolOutcome } from "../tools/types.js";
import type { ModelToolCall } from "./messages.js";
import { errorMessage } from "../errors.js";
import { withinToolOutputLimits } from "../tools/output-limits.js";
import { PermissionTurns } from "./permission-turns.js";

/** The text a tool call gets when it was cut short by an abort. */
export const interruptedText = "The execution of this tool, or a previous tool was interrupted.";

/** What running one tool call produced. */
export interface ToolCallResult {
  call: ModelToolCall;
  outcome: ToolOutcome;
  /** The arguments the call ran with, as JSON, when a preToolUse hook replaced the model's. */
  rewrittenArguments?: string;
}

/** What the runner needs from its session. */
export interface ToolRunnerHost {
  readonly emitter: EventEmitterPort;
  /** Gets an `info` line as each call starts and ends (names, ids, duration; never arguments or results). */
  readonly logger: Logger;
  readonly model: string;
  findTool(name: string): Tool | undefined;
  toolNames(): string[];
  readonly hooks: HookRunner;
  /** A context for one call; `preApproved` (a preToolUse hook said allow) skips the permission request. */
  createContext(call: ModelToolCall, tool: Tool, signal: AbortSignal, options?: Omit<ContextOptions, "emitter">): ToolContext;
  /** Adds a file change to the session's code-change totals. */
  recordFileChange?(change: { path: string; diff: string; before?: string | null }): void;
  /** Awaited before a round of tool calls runs (the turn's start checkpoint must be taken first). */
  beforeToolCalls?(): Promise<void>;
}

/**
 * Runs the tool calls of one assistant message concurrently and returns the results in request
 * order; each call gets its place in the round's permission order, which the context honours when
 * the client generation asks one at a time, in call order. Arguments that are not
 * JSON and unknown tools become failures the model can act on.
 */
export async function runToolCalls(
  host: ToolRunnerHost,
  calls: readonly ModelToolCall[],
  interactionId: string,
  signal: AbortSignal,
  /** The turn that asked for the calls (`turnId` of the tool events). */
  turnId?: string,
): Promise<ToolCallResult[]> {
  await host.beforeToolCalls?.();
  const turns = new PermissionTurns(calls.map((call) => call.name));
  return Promise.all(
    calls.map(async (call, index) => {
      const permissionTurn: PermissionTurn = { ask: (request) => turns.ask(index, signal, request), pass: () => turns.pass(index) };
      try {
        return await runOne(host, call, interactionId, signal, turnId, permissionTurn);
      } finally {
        turns.pass(index);
      }
    }),
  );
}

async function runOne(
  host: ToolRunnerHost,
  call: ModelToolCall,
  interactionId: string,
  signal: AbortSignal,
  turnId: string | undefined,
  permissionTurn: PermissionTurn,
): Promise<ToolCallResult> {
  const parsed = parseArguments(call.rawArguments);
  const tool = host.findTool(call.name);
  const logging = host.logger.enabled("info");
  const started = logging ? performance.now() : 0;
  if (logging) host.logger.info("tool started", { toolName: call.name, toolCallId: call.id });
  host.emitter.emit("tool.execution_start", {
    toolCallId: call.id,
    toolName: call.name,
    arguments: parsed.ok ? parsed.value : {},
    ...(turnId !== undefined ? { turnId } : {}),
    model: host.model,
    ...tool?.startData,
  });
  const { outcome, rewrittenArguments } = await outcomeOf(host, call, tool, parsed, signal, permissionTurn);
  if (outcome.resultType === "success" && outcome.fileChange) host.recordFileChange?.(outcome.fileChange);
  // Every started call gets its completion, an interrupted one too: the history then holds a
  // result for each call the model made, live, on disk and after a resume.
  emitComplete(host, call, outcome, interactionId, turnId);
  if (logging) {
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    host.logger.info("tool finished", { toolName: call.name, toolCallId: call.id, durationMs, success: outcome.resultType === "success", resultType: outcome.resultType });
  }
  return { call, outcome, ...(rewrittenArguments !== undefined ? { rewrittenArguments } : {}) };
}

/**
 * What a started call produced, and the arguments a preToolUse hook rewrote it to; never throws
 * (a call cut short by an abort is "interrupted").
 */
async function outcomeOf(
  host: ToolRunnerHost,
  call: ModelToolCall,
  tool: Tool | undefined,
  parsed: ParsedArguments,
  signal: AbortSignal,
  permissionTurn: PermissionTurn,
): Promise<{ outcome: ToolOutcome; rewrittenArguments?: string }> {
  if (!parsed.ok) {
    return {
      outcome: {
        resultType: "failure",
        textForModel: `The arguments for the tool call '${call.name}' were not valid JSON. The arguments have been cleared. Arguments: ${call.rawArguments}. JSON parse error: ${parsed.error}`,
        errorMessage: "Invalid JSON arguments",
      },
    };
  }
  try {
    // The preToolUse hook sees every call the model makes, known tool or not: a deny answers it.
    const pre = host.hooks.active ? await preToolUse(host.hooks, call.name, parsed.value, signal) : undefined;
    const rewrittenArguments = pre && pre.args !== parsed.value ? JSON.stringify(pre.args ?? {}) : undefined;
    const answer = (outcome: ToolOutcome) => (rewrittenArguments !== undefined ? { outcome, rewrittenArguments } : { outcome });
    if (pre?.decision === "deny") return answer(deniedByHook(pre.reason));
    if (!tool) {
      return answer({
        resultType: "failure",
        textForModel: `Tool '${call.name}' does not exist. Available tools that can be called are ${host.toolNames().join(", ")}.`,
        errorMessage: `Tool '${call.name}' does not exist`,
      });
    }
    const outcome = withinToolOutputLimits(await executeWithHooks(host, call, tool, parsed.value, pre, signal, permissionTurn));
    return answer(signal.aborted ? interruptedOutcome(signal) : outcome);
  } catch (error) {
    // A hook or the output limits failed outside the tool itself.
    if (signal.aborted) return { outcome: interruptedOutcome(signal) };
    const message = errorMessage(error);
    return { outcome: { resultType: "failure", textForModel: `Failed to execute \`${call.name}\` tool: ${message}`, errorMessage: message } };
  }
}

/**
 * The outcome of a call an abort cut short: the model reads {@link interruptedText}; the
 * completion's error says who stopped it (the session's abort reason is `destroyed` when the
 * session closed, anything else is the user's abort).
 */
export function interruptedOutcome(signal: AbortSignal): ToolOutcome {
  const by = (signal.reason as { reason?: unknown } | undefined)?.reason;
  const errorMessage = by === "destroyed" ? "Interrupted: the session was closed before the tool call finished." : "Interrupted: the user aborted the turn before the tool call finished.";
  return { resultType: "interrupted", textForModel: interruptedText, errorMessage };
}

async function executeWithHooks(
  host: ToolRunnerHost,
  call: ModelToolCall,
  tool: Tool,
  args: unknown,
  pre: PreToolDecision | undefined,
  signal: AbortSignal,
  permissionTurn: PermissionTurn,
): Promise<ToolOutcome> {
  if (!pre) return executeSafely(tool, args, host.createContext(call, tool, signal, { permissionTurn }), signal);
  const context = host.createContext(call, tool, signal, { preApproved: pre.decision === "allow", permissionTurn });
  const outcome = await executeSafely(tool, pre.args, context, signal);
  if (signal.aborted) return outcome;
  return withContext(await postToolUse(host.hooks, tool.name, pre.args, outcome, signal), pre.additionalContext);
}

async function executeSafely(tool: Tool, args: unknown, context: ToolContext, signal: AbortSignal): Promise<ToolOutcome> {
  try {
    return await tool.execute(args, context);
  } catch (error) {
    if (signal.aborted) return interruptedOutcome(signal);
    const message = errorMessage(error);
    return {
      resultType: "failure",
      textForModel: `Failed to execute \`${tool.name}\` tool with arguments: ${JSON.stringify(args ?? {})} due to error: ${message}`,
      errorMessage: message,
    };
  }
}

function emitComplete(host: ToolRunnerHost, call: ModelToolCall, outcome: ToolOutcome, interactionId: string, turnId: string | undefined): void {
  const succeeded = outcome.resultType === "success";
  // As the reference, a success carries its full text for display (the model's text when there is
  // no other). A failure keeps the model's text in `result` (the reference sends only `error`):
  // a resume rebuilds what the model saw from these events.
  host.emitter.emit("tool.execution_complete", {
    toolCallId: call.id,
    success: succeeded,
    model: host.model,
    interactionId,
    ...(turnId !== undefined ? { turnId } : {}),
    result: {
      content: outcome.textForModel,
      ...(succeeded || outcome.detailedContent !== undefined ? { detailedContent: outcome.detailedContent ?? outcome.textForModel } : {}),
      ...(outcome.contents?.length ? { contents: outcome.contents } : {}),
    },
    ...(succeeded ? {} : { error: { message: outcome.errorMessage ?? outcome.textForModel, code: outcome.resultType } }),
    ...(outcome.telemetry ? { toolTelemetry: outcome.telemetry } : {}),
    ...(outcome.sandboxed !== undefined ? { sandboxed: outcome.sandboxed } : {}),
  });
}

type ParsedArguments = { ok: true; value: unknown } | { ok: false; error: string };

function parseArguments(raw: string): ParsedArguments {
  if (raw.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}
