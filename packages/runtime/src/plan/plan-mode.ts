import { randomUUID } from "node:crypto";
import type { PermissionRequest, PermissionResult } from "@tandem/protocol";
import { z } from "zod";
import { defineBuiltinTool } from "../tools/builtin/define.js";
import { failure, success, type Tool, type ToolContext, type ToolOutcome } from "../tools/types.js";
import { PendingAbandoned } from "../ports/pending.js";
import type { SessionScopePort } from "../ports/session-scope.js";
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

/**
 * The actions offered when the agent asks to leave plan mode (the official 1.0.x names): continue
 * interactively, in autopilot, in autopilot with parallel sub-agents, or leave without implementing.
 */
export const exitPlanActions = ["interactive", "autopilot", "autopilot_fleet", "exit_only"] as const;
type ExitPlanAction = (typeof exitPlanActions)[number];

/** The action recommended to the client. */
const recommendedAction: ExitPlanAction = "autopilot";

/** What the exit_plan_mode tool reads and changes in its session's scope: who reviews the plan, and the mode. */
export type ExitPlanHost = Pick<SessionScopePort, "sessionId" | "emitter" | "pending" | "clients" | "setMode">;

/**
 * A client's answer, in either form: the official 1.0.x one (`{approved, selectedAction?,
 * feedback?}`, from `exitPlanMode.request` or `session.ui.handlePendingExitPlanMode`) or Tandem's
 * earlier one (`{action, feedback?}`, from `session.exitPlanMode.handlePendingRequest`).
 */
export interface ExitPlanAnswer {
  approved?: unknown;
  selectedAction?: unknown;
  action?: unknown;
  feedback?: unknown;
}

/** An answer read: approved with an action, or not approved (revise the plan). */
interface ExitPlanDecision {
  approved: boolean;
  action: ExitPlanAction;
  feedback?: string;
}

/**
 * The `exit_plan_mode` tool (offered only in plan mode): saves the plan and asks the user. A client
 * that registered `onExitPlanModeRequest` (1.0.x `requestExitPlanMode`) is asked with the
 * `exitPlanMode.request` callback; otherwise the `exit_plan_mode.requested` event waits for
 * `session.ui.handlePendingExitPlanMode`. Either way `exit_plan_mode.requested` / `.completed`
 * frame the question. Approved: `interactive` / `autopilot` / `autopilot_fleet` switch the mode
 * and implement; `exit_only` stops. Not approved (with feedback): stay in plan mode and revise.
 */
export function createExitPlanModeTool(host: ExitPlanHost, workspace: SessionWorkspace): Tool {
  return defineBuiltinTool({
    name: "exit_plan_mode",
    description:
      "Present your finished plan to the user and ask to leave plan mode. Give a short summary and the plan in markdown; the user approves it (and you implement it) or asks for changes.",
    schema: z.object({
      summary: z.string().describe("A few sentences summarising the plan"),
      plan: z.string().optional().describe("The full plan in markdown (saved as the session's plan file)"),
    }),
    async execute({ summary, plan }, context: ToolContext): Promise<ToolOutcome> {
      if (plan?.trim()) await workspace.updatePlan(plan);
      const planContent = (await workspace.readPlan()).content ?? "";
      if (host.emitter.sinkCount === 0) return failure("No client is connected to review the plan; stay in plan mode.", "No client");
      const question = { summary, planContent, actions: [...exitPlanActions], recommendedAction };
      const handler = host.clients.clientFor({ kind: "exitPlanMode" });
      let requestId: string;
      let answered: Promise<ExitPlanAnswer>;
      if (handler) {
        requestId = randomUUID();
        answered = handler.sendRequest<ExitPlanAnswer>("exitPlanMode.request", { sessionId: host.sessionId, ...question }, context.signal);
      } else {
        ({ requestId, promise: answered } = host.pending.open<ExitPlanAnswer>("exitPlanMode", context.signal));
      }
      host.emitter.emit("exit_plan_mode.requested", { requestId, ...question });
      let decision: ExitPlanDecision | undefined;
      try {
        decision = readExitPlanAnswer(await answered);
      } catch (error) {
        if (context.signal.aborted) throw error;
        if (error instanceof PendingAbandoned || handler) return failure("The plan could not be reviewed: the client went away or failed to answer.", "No answer");
        throw error;
      } finally {
        host.emitter.emit("exit_plan_mode.completed", { requestId, ...(decision ? { approved: decision.approved, selectedAction: decision.action, ...(decision.feedback ? { feedback: decision.feedback } : {}) } : {}) });
      }
      return outcomeFor(decision, host);
    },
  });
}

/** Reads either answer form; anything unreadable counts as "not approved". */
export function readExitPlanAnswer(answer: ExitPlanAnswer | undefined): ExitPlanDecision {
  const feedback = typeof answer?.feedback === "string" && answer.feedback !== "" ? answer.feedback : undefined;
  const named = [answer?.selectedAction, answer?.action].find((value): value is ExitPlanAction => exitPlanActions.includes(value as ExitPlanAction));
  const approved = typeof answer?.approved === "boolean" ? answer.approved : named !== undefined;
  return { approved, action: named ?? recommendedAction, ...(feedback ? { feedback } : {}) };
}

function outcomeFor(decision: ExitPlanDecision, host: ExitPlanHost): ToolOutcome {
  const feedback = decision.feedback ? ` The user added: ${decision.feedback}` : "";
  if (!decision.approved) {
    return { resultType: "denied", textForModel: `The user wants the plan revised before leaving plan mode.${feedback} Update the plan and call exit_plan_mode again.`, errorMessage: "Plan not approved" };
  }
  switch (decision.action) {
    case "autopilot":
      host.setMode("autopilot");
      return success(`The user approved the plan and switched to autopilot. Implement the whole plan now, then call task_complete.${feedback}`);
    case "autopilot_fleet":
      host.setMode("autopilot");
      return success(
        `The user approved the plan and switched to autopilot with parallel sub-agents. Split the independent parts of the plan across sub-agents (the task tool), implement the whole plan, then call task_complete.${feedback}`,
      );
    case "interactive":
      host.setMode("interactive");
      return success(`The user approved the plan. Implement it now.${feedback}`);
    case "exit_only":
      host.setMode("interactive");
      return { resultType: "rejected", textForModel: `The user left plan mode without asking for the plan to be implemented. Do not start on it.${feedback}`, errorMessage: "Exited plan mode" };
  }
}
