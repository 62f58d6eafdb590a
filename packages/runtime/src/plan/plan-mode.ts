import type { PermissionRequest, PermissionResult } from "@tandem/protocol";
import { z } from "zod";
import { defineBuiltinTool } from "../tools/builtin/define.js";
import { failure, success, type Tool, type ToolContext, type ToolOutcome } from "../tools/types.js";
import type { EventEmitterPort } from "../session/emitter.js";
import { PendingAbandoned, type PendingRequests } from "../session/pending.js";
import type { AgentMode } from "@tandem/protocol";
import type { SessionWorkspace } from "./plan-file.js";

/** The rule name plan mode denies with. */
export const planModeRule = "plan_mode";

/**
 * Plan mode lets the agent read but not change the workspace: writes, shell commands and MCP tools
 * that are not read-only are refused. Writing the session's own plan file is allowed.
 * Returns the denial, or undefined when the request may go on to the application.
 */
export function planModeDenial(request: PermissionRequest, planPath: string): PermissionResult | undefined {
  const changes =
    request.kind === "write" ? request.fileName !== planPath : request.kind === "shell" || request.kind === "memory" || (request.kind === "mcp" && !request.readOnly);
  if (!changes) return undefined;
  return { kind: "denied-by-rules", rules: [{ kind: planModeRule, argument: request.kind }] };
}

/** The actions the client may answer an exit-plan-mode request with. */
export const exitPlanActions = ["autopilot", "interactive", "exit_only"] as const;

/** What the exit_plan_mode tool needs from its session. */
export interface ExitPlanHost {
  readonly emitter: EventEmitterPort;
  readonly pending: PendingRequests;
  readonly workspace: SessionWorkspace;
  setMode(mode: AgentMode): void;
}

/** The client's answer to `exit_plan_mode.requested`. */
export interface ExitPlanAnswer {
  action: string;
  feedback?: string;
}

/**
 * The `exit_plan_mode` tool (offered only in plan mode): saves the plan, asks the client with
 * `exit_plan_mode.requested`, and continues according to the answer — `autopilot` or
 * `interactive` switch the mode and implement; `exit_only` stops; anything else (with feedback)
 * stays in plan mode to revise.
 */
export function createExitPlanModeTool(host: ExitPlanHost): Tool {
  return defineBuiltinTool({
    name: "exit_plan_mode",
    description:
      "Present your finished plan to the user and ask to leave plan mode. Give a short summary and the plan in markdown; the user approves it (and you implement it) or asks for changes.",
    schema: z.object({
      summary: z.string().describe("A few sentences summarising the plan"),
      plan: z.string().optional().describe("The full plan in markdown (saved as the session's plan file)"),
    }),
    async execute({ summary, plan }, context: ToolContext): Promise<ToolOutcome> {
      if (plan?.trim()) await host.workspace.updatePlan(plan);
      const planContent = (await host.workspace.readPlan()).content ?? "";
      if (host.emitter.sinkCount === 0) return failure("No client is connected to review the plan; stay in plan mode.", "No client");
      const { requestId, promise } = host.pending.open<ExitPlanAnswer>("exitPlanMode", context.signal);
      host.emitter.emit("exit_plan_mode.requested", { requestId, summary, planContent, actions: [...exitPlanActions], recommendedAction: "autopilot" });
      let answer: ExitPlanAnswer;
      try {
        answer = await promise;
      } catch (error) {
        if (error instanceof PendingAbandoned && error.reason !== "aborted") return failure("The plan could not be reviewed: the client went away.", "No answer");
        throw error;
      } finally {
        host.emitter.emit("exit_plan_mode.completed", { requestId });
      }
      return outcomeFor(answer, host);
    },
  });
}

function outcomeFor(answer: ExitPlanAnswer, host: ExitPlanHost): ToolOutcome {
  const feedback = answer.feedback ? ` The user added: ${answer.feedback}` : "";
  switch (answer.action) {
    case "autopilot":
      host.setMode("autopilot");
      return success(`The user approved the plan and switched to autopilot. Implement the whole plan now, then call task_complete.${feedback}`);
    case "interactive":
      host.setMode("interactive");
      return success(`The user approved the plan. Implement it now.${feedback}`);
    case "exit_only":
      host.setMode("interactive");
      return { resultType: "rejected", textForModel: `The user left plan mode without asking for the plan to be implemented. Do not start on it.${feedback}`, errorMessage: "Exited plan mode" };
    default:
      return { resultType: "denied", textForModel: `The user wants the plan revised before leaving plan mode.${feedback} Update the plan and call exit_plan_mode again.`, errorMessage: "Plan not approved" };
  }
}
