import type { ElicitationResult, PermissionRequest } from "@tandem/protocol";

/** The form that asks the user whether code from the working folder may run. */
export interface ConsentForm {
  message: string;
  requestedSchema: { type: "object"; properties: Record<string, unknown>; required: string[] };
}

/**
 * The consent question as a form (`elicitation.requested`): what wants to run and from where, and
 * one required choice, `action`: `approve` or `deny`.
 *
 * @example
 * const form = consentForm({ kind: "extension-management", operation: "start", extensionName: "deploy", path: "/repo/.github/extensions/deploy/extension.mjs" });
 */
export function consentForm(request: PermissionRequest): ConsentForm {
  const fields = request as { extensionName?: unknown; path?: unknown; workingDirectory?: unknown };
  const what = typeof fields.extensionName === "string" ? `The extension "${fields.extensionName}"` : "Code from the working folder";
  const where = typeof fields.path === "string" ? ` (${fields.path})` : "";
  const folder = typeof fields.workingDirectory === "string" ? ` It comes from the folder ${fields.workingDirectory}, not from you.` : "";
  return {
    message: `${what}${where} wants to start and run as you.${folder} Allow it for this session?`,
    requestedSchema: {
      type: "object",
      properties: { action: { type: "string", title: "Allow it to run?", enum: ["approve", "deny"] } },
      required: ["action"],
    },
  };
}

/** Whether the user's answer to {@link consentForm} approves: accepted with `action: "approve"`. */
export function approvedByForm(answer: ElicitationResult): boolean {
  return answer.action === "accept" && answer.content?.action === "approve";
}
