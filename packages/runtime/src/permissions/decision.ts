import { PermissionDecision, type PermissionResult } from "@tandem/protocol";

/** The decision that stands when an answer cannot be used: nobody said yes. */
export const couldNotAsk: PermissionResult = { kind: "denied-no-approval-rule-and-could-not-request-from-user" };

/** What a client's answer to a permission request means to the runtime. */
export type ReadDecision =
  | { valid: true; result: PermissionResult }
  | { valid: false; result: PermissionResult; reason: string };

/**
 * Reads a client's answer to a permission request, in either SDK generation's words, as the
 * runtime's own {@link PermissionResult}. Approvals of any scope approve this request; `reject`
 * is an interactive denial (with its feedback); `user-not-available` and `cancelled` mean nobody
 * could be asked, and so does `no-result` where no other client can be asked (protocol v2; over
 * v3 it leaves the request pending, see {@link abstains}). What an `approve-for-session` decision
 * remembers is `SessionApprovals`' business. An answer that is not a decision at all is read as a denial, with the reason,
 * so a request is never left waiting on an answer the runtime cannot use.
 *
 * @example
 * readDecision({ kind: "approve-once" });           // { valid: true, result: { kind: "approved" } }
 * readDecision({ kind: "maybe" }).valid;             // false; result is a denial
 */
export function readDecision(answer: unknown): ReadDecision {
  const parsed = PermissionDecision.safeParse(answer);
  if (!parsed.success) {
    const kind = answer && typeof answer === "object" ? (answer as { kind?: unknown }).kind : undefined;
    const reason = kind === undefined ? "the answer has no decision kind" : `${JSON.stringify(kind)} is not a permission decision`;
    return { valid: false, result: couldNotAsk, reason };
  }
  const decision = parsed.data;
  switch (decision.kind) {
    case "approve-once":
    case "approve-for-session":
    case "approved-for-session":
    case "approve-for-location":
    case "approved-for-location":
    case "approve-permanently":
      return { valid: true, result: { kind: "approved" } };
    case "reject":
      return { valid: true, result: decision.feedback ? { kind: "denied-interactively-by-user", feedback: decision.feedback } : { kind: "denied-interactively-by-user" } };
    case "user-not-available":
    case "cancelled":
    case "no-result":
      return { valid: true, result: couldNotAsk };
    case "denied-by-permission-request-hook":
      return { valid: true, result: { kind: "denied-by-rules", rules: [{ kind: "hook", argument: decision.message ?? null }] } };
    default:
      return { valid: true, result: decision };
  }
}

/** Whether an answer is `no-result`: the client leaves the request to another client. */
export function abstains(answer: unknown): boolean {
  return Boolean(answer && typeof answer === "object" && (answer as { kind?: unknown }).kind === "no-result");
}
