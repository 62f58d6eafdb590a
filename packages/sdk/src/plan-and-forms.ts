import type { ElicitationResult, SessionEventData } from "@tandem/protocol";

/** The agent presents its plan and asks to leave plan mode (`exit_plan_mode.requested`). */
export type ExitPlanModeRequest = Omit<SessionEventData<"exit_plan_mode.requested">, "requestId">;

/**
 * The answer to an exit-plan-mode request: `autopilot` or `interactive` approve the plan (and
 * switch mode), `exit_only` leaves plan mode without implementing, anything else keeps planning
 * (say why in `feedback`).
 */
export interface ExitPlanModeResponse {
  action: "autopilot" | "interactive" | "exit_only" | (string & {});
  feedback?: string;
}

/**
 * Handles `exit_plan_mode.requested` (Tandem).
 *
 * @example
 * const onExitPlanModeRequest: ExitPlanModeHandler = (request) => ({ action: request.recommendedAction });
 */
export type ExitPlanModeHandler = (
  request: ExitPlanModeRequest,
  invocation: { sessionId: string },
) => Promise<ExitPlanModeResponse> | ExitPlanModeResponse;

/** An MCP server asks the user to fill in a form (`elicitation.requested`). */
export type ElicitationRequest = Omit<SessionEventData<"elicitation.requested">, "requestId">;
export type { ElicitationResult };

/**
 * Handles `elicitation.requested` (Tandem): return `{ action: "accept", content }`, `decline` or
 * `cancel`.
 *
 * @example
 * const onElicitationRequest: ElicitationHandler = () => ({ action: "accept", content: { name: "Ada" } });
 */
export type ElicitationHandler = (
  request: ElicitationRequest,
  invocation: { sessionId: string },
) => Promise<ElicitationResult> | ElicitationResult;
