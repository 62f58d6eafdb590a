import type { ElicitationResult, SessionEventData } from "@tandem/protocol";

/** The agent presents its plan and asks to leave plan mode (`exit_plan_mode.requested`). */
export type ExitPlanModeRequest = Omit<SessionEventData<"exit_plan_mode.requested">, "requestId">;

/** What the user may choose when approving a plan (the official 1.0.x actions). */
export type ExitPlanModeAction = "interactive" | "autopilot" | "autopilot_fleet" | "exit_only";

/**
 * The answer to an exit-plan-mode request, as the official SDK 1.0.x words it: `approved` with the
 * `selectedAction` (`interactive`, `autopilot`, `autopilot_fleet` implement the plan in that mode;
 * `exit_only` leaves plan mode without implementing), or not approved to keep planning (say why in
 * `feedback`). The earlier `{ action }` form is still understood.
 */
export type ExitPlanModeResponse =
  | { approved: boolean; selectedAction?: ExitPlanModeAction | (string & {}); feedback?: string }
  | { action: ExitPlanModeAction | (string & {}); feedback?: string };

/**
 * Answers the runtime's `exitPlanMode.request` (the official 1.0.x callback).
 *
 * @example
 * const onExitPlanModeRequest: ExitPlanModeHandler = (request) => ({ approved: true, selectedAction: request.recommendedAction });
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
