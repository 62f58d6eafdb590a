import { isAbsolute } from "node:path";
import type { HookRunner } from "./hook-runner.js";

/** How many times in a row an agentStop hook may keep the agent going before its block is ignored. */
export const maxConsecutiveStopBlocks = 5;

/**
 * Runs the agentStop hook when the agent finished answering a message. Returns the follow-up
 * prompt when the hook blocked the stop (`{ decision: "block", reason }`): the agent goes on with
 * `reason` as the next user message. `stopHookActive` tells the hook that this stop follows one of
 * its own blocks, so it can let the agent stop. `transcriptLocation` is where the session's events
 * are written; it is sent as `transcriptPath` when it is a file (not a database).
 *
 * @example
 * const followUp = await continuationFromStopHook(hooks, { stopHookActive: false, transcriptLocation: "/home/me/.tandem/session-state/<id>/events.jsonl" });
 * if (followUp) await recordUserMessage(followUp);
 */
export async function continuationFromStopHook(
  hooks: HookRunner,
  options: { stopHookActive: boolean; transcriptLocation: string },
): Promise<string | undefined> {
  const transcript = options.transcriptLocation;
  const output = await hooks.run("agentStop", {
    stopReason: "end_turn",
    stop_hook_active: options.stopHookActive,
    ...(isAbsolute(transcript) ? { transcriptPath: transcript } : {}),
  });
  if (output?.decision !== "block") return undefined;
  return typeof output.reason === "string" && output.reason.trim() !== "" ? output.reason : undefined;
}
