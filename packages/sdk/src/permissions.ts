import type { PermissionRequest as WirePermissionRequest, PermissionResult } from "@tandem/protocol";
import type { z } from "zod";

/**
 * What the agent asks permission for, discriminated on `kind`
 * (`shell`, `write`, `read`, `url`, `mcp`, `memory`, `custom-tool`).
 *
 * @example
 * const handler: PermissionHandler = (request) =>
 *   request.kind === "shell" && request.fullCommandText.startsWith("rm ") ? { kind: "denied-interactively-by-user" } : { kind: "approved" };
 */
export type PermissionRequest = WirePermissionRequest;

/**
 * A permission decision. `{ kind: "no-result" }` means "this client does not answer": another client
 * connected to the same session may decide instead (protocol v3 only).
 *
 * @example
 * const result: PermissionRequestResult = { kind: "denied-interactively-by-user", feedback: "use the staging database" };
 */
export type PermissionRequestResult = z.input<typeof PermissionResult> | { kind: "no-result" };

/**
 * Decides a permission request. Required when creating or resuming a session. A handler that throws
 * is answered with `denied-no-approval-rule-and-could-not-request-from-user`.
 *
 * @example
 * const onPermissionRequest: PermissionHandler = async (request, { sessionId }) => {
 *   console.log(sessionId, request.kind);
 *   return { kind: "approved" };
 * };
 */
export type PermissionHandler = (
  request: PermissionRequest,
  invocation: { sessionId: string },
) => Promise<PermissionRequestResult> | PermissionRequestResult;

/**
 * A {@link PermissionHandler} that approves everything.
 *
 * @example
 * const session = await client.createSession({ onPermissionRequest: approveAll });
 */
export const approveAll: PermissionHandler = () => ({ kind: "approved" });

/** The error a v2 `permission.request` gets when the handler answers `no-result` (v2 cannot defer). */
export const NO_RESULT_PERMISSION_V2_ERROR = "Permission handlers cannot return 'no-result' when connected to a protocol v2 server.";

/** The decision sent when a permission handler throws. */
export const DENIED_COULD_NOT_REQUEST = { kind: "denied-no-approval-rule-and-could-not-request-from-user" } as const;

/**
 * A question the agent asks the user (the `ask_user` tool).
 *
 * @example
 * const request: UserInputRequest = { question: "Which branch?", choices: ["main", "dev"], allowFreeform: false };
 */
export interface UserInputRequest {
  question: string;
  /** Offered answers, for multiple choice questions. */
  choices?: string[];
  /** Whether a free-text answer is accepted besides the choices (default true). */
  allowFreeform?: boolean;
}

/**
 * The user's answer to a {@link UserInputRequest}.
 *
 * @example
 * const response: UserInputResponse = { answer: "main", wasFreeform: false };
 */
export interface UserInputResponse {
  answer: string;
  /** True when the answer was typed rather than picked from the choices. */
  wasFreeform: boolean;
}

/**
 * Answers the agent's questions. Giving one enables the `ask_user` tool for the session.
 *
 * @example
 * const onUserInputRequest: UserInputHandler = async ({ question, choices }) => ({ answer: choices?.[0] ?? "yes", wasFreeform: !choices });
 */
export type UserInputHandler = (
  request: UserInputRequest,
  invocation: { sessionId: string },
) => Promise<UserInputResponse> | UserInputResponse;
