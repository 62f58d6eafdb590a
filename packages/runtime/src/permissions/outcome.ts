import type { PermissionResult } from "@tandem/protocol";
import type { ToolOutcome } from "../tools/types.js";

/**
 * What the model is told when a permission is not granted. A plain interactive denial ends the
 * turn (`rejected`); everything else lets the model carry on (`denied`).
 */
export function deniedOutcome(result: Exclude<PermissionResult, { kind: "approved" }>): ToolOutcome {
  switch (result.kind) {
    case "denied-interactively-by-user":
      if (result.feedback) {
        return { resultType: "denied", textForModel: `The user rejected this tool call. User feedback: ${result.feedback}`, errorMessage: "Denied by user" };
      }
      return { resultType: "rejected", textForModel: "The user rejected this tool call.", errorMessage: "The user rejected this tool call." };
    case "denied-by-rules": {
      if ((result.rules ?? []).some((rule) => (rule as { kind?: unknown })?.kind === "plan_mode")) {
        return {
          resultType: "denied",
          textForModel: "The session is in plan mode: you may read and investigate, but not change files or run commands. Write your plan and present it with exit_plan_mode.",
          errorMessage: "Not allowed in plan mode",
        };
      }
      const rules = (result.rules ?? []).map(formatRule).join(", ");
      return {
        resultType: "denied",
        textForModel: `Permission to run this tool was denied due the following rules: ${rules || "(none given)"}`,
        errorMessage: "Denied by rules",
      };
    }
    case "denied-by-content-exclusion-policy":
      return {
        resultType: "denied",
        textForModel: `Access denied: "${result.path}" is excluded by organization content policy. Do not attempt to access this file.`,
        errorMessage: "Denied by content exclusion policy",
      };
    case "denied-no-approval-rule-and-could-not-request-from-user":
      return {
        resultType: "denied",
        textForModel: "Permission denied and could not request permission from user",
        errorMessage: "Permission denied",
      };
  }
}

function formatRule(rule: unknown): string {
  if (rule && typeof rule === "object") {
    const { kind, argument } = rule as { kind?: unknown; argument?: unknown };
    if (typeof kind === "string") return `\`${kind}${argument === undefined || argument === null ? "" : `(${String(argument)})`}\``;
  }
  return `\`${JSON.stringify(rule)}\``;
}
