import type { ToolOutcome } from "../tools/types.js";
import type { HookRunner } from "./hook-runner.js";

/** What a preToolUse hook decided. */
export interface PreToolDecision {
  /** The arguments to run with (the hook may have changed them). */
  args: unknown;
  /** `allow` skips the permission request; `deny` blocks the call; `ask` / none asks as usual. */
  decision?: "allow" | "deny" | "ask";
  reason?: string;
  additionalContext?: string;
}

/** Runs the preToolUse hook for one call. */
export async function preToolUse(hooks: HookRunner, toolName: string, args: unknown, signal: AbortSignal): Promise<PreToolDecision> {
  const output = await hooks.run("preToolUse", { toolName, toolArgs: args }, signal);
  if (!output) return { args };
  const decision = output.permissionDecision;
  return {
    args: "modifiedArgs" in output && output.modifiedArgs !== undefined ? output.modifiedArgs : args,
    decision: decision === "allow" || decision === "deny" || decision === "ask" ? decision : undefined,
    reason: typeof output.permissionDecisionReason === "string" ? output.permissionDecisionReason : undefined,
    additionalContext: typeof output.additionalContext === "string" ? output.additionalContext : undefined,
  };
}

/** The outcome of a call a preToolUse hook denied. */
export function deniedByHook(reason: string | undefined): ToolOutcome {
  return { resultType: "denied", textForModel: `Denied by preToolUse hook: ${reason || "No reason provided"}`, errorMessage: "Denied by preToolUse hook" };
}

/** Runs the postToolUse hook; returns the (possibly replaced) outcome. */
export async function postToolUse(hooks: HookRunner, toolName: string, args: unknown, outcome: ToolOutcome, signal: AbortSignal): Promise<ToolOutcome> {
  const toolResult = {
    textResultForLlm: outcome.textForModel,
    resultType: outcome.resultType,
    ...(outcome.errorMessage ? { error: outcome.errorMessage } : {}),
    ...(outcome.telemetry ? { toolTelemetry: outcome.telemetry } : {}),
  };
  const output = await hooks.run("postToolUse", { toolName, toolArgs: args, toolResult }, signal);
  if (!output) return outcome;
  let result = outcome;
  const modified = output.modifiedResult as { textResultForLlm?: unknown; resultType?: unknown; error?: unknown } | undefined;
  if (modified && typeof modified.textResultForLlm === "string") {
    const resultType = modified.resultType;
    const kind = resultType === "failure" || resultType === "denied" || resultType === "rejected" || resultType === "success" ? resultType : outcome.resultType;
    result = {
      ...outcome,
      resultType: kind,
      textForModel: modified.textResultForLlm,
      errorMessage: kind === "success" ? undefined : typeof modified.error === "string" ? modified.error : modified.textResultForLlm,
    };
  }
  return withContext(result, typeof output.additionalContext === "string" ? output.additionalContext : undefined);
}

/** Appends hook-provided context to what the model sees. */
export function withContext(outcome: ToolOutcome, additionalContext: string | undefined): ToolOutcome {
  if (!additionalContext) return outcome;
  return { ...outcome, textForModel: `${outcome.textForModel}\n\n${additionalContext}` };
}
