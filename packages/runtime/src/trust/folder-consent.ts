import type { PermissionRequest, PermissionResult } from "@tandem/protocol";
import type { TrustedFolders } from "./trusted-folders.js";

/** How running something from the working folder was allowed. */
export type ConsentGrant =
  /** The runtime was started with `--allow-all` / `--yolo`. */
  | "allow-all"
  /** The folder is listed (or lies inside one listed) in `trustedFolders`. */
  | "trusted-folder"
  /** The session approves every request (`session.permissions.setApproveAll`). */
  | "approve-all"
  /** The application approved the permission request. */
  | "approved"
  /** The user chose "approve" on the form that asked (a client answering elicitations). */
  | "user-confirmed";

/** The answer for one thing the folder wants to run. */
export type ConsentDecision = { allowed: true; grant: ConsentGrant } | { allowed: false; result: Exclude<PermissionResult, { kind: "approved" }> };

/** The session's side of a question: its standing approvals and its permission path. */
export interface ConsentSession {
  /** Whether the session approves `request` without asking (approve-all). */
  approvesWithoutAsking(request: PermissionRequest): boolean;
  /** Asks the application through the session's permission path (v2 `permission.request`, v3 `permission.requested`). */
  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionResult>;
  /**
   * Asks the user directly, with a form (`elicitation.requested`), when a connected client answers
   * forms: true for "approve", false for anything else; undefined when no client answers forms
   * (the permission path is asked instead).
   */
  confirm?(request: PermissionRequest, signal: AbortSignal): Promise<boolean | undefined>;
}

import type { FolderTrust } from "../ports/folder-trust.js";

export type { FolderTrust };

/** Trusts no folder: what a session sees when the runtime was given no {@link FolderTrust}. */
export const untrusting: FolderTrust = {
  trusts: async () => false,
  howToTrust: (folder) => `list ${JSON.stringify(folder)} in "trustedFolders" of the runtime's config.json, or start the runtime with --allow-all (--yolo)`,
};

/** What {@link FolderConsent} is built from. */
export interface FolderConsentOptions {
  /** `--allow-all` / `--yolo`: every folder is trusted. */
  trustAll: boolean;
  trustedFolders: TrustedFolders;
}

/**
 * Decides whether code found in a session's working folder may run. Files in the working folder
 * are data: a cloned repository must not run anything by being opened. A folder's code runs only
 * with the user's opt-in (`--allow-all`, `--yolo`, the folder in `trustedFolders`), the session's
 * approve-all, the user's "approve" on a form when a connected client answers forms (elicitation),
 * or else the application's approval of a permission request. Denied, unanswered, nobody to ask, a
 * failing handler, a client gone: it does not run.
 *
 * @example
 * const decision = await consent.decide(workingDirectory, { kind: "extension-management", operation: "start", extensionName: "deploy" }, session, signal);
 * if (!decision.allowed) report(howToAllow(workingDirectory, trustedFolders.configPath));
 */
export class FolderConsent implements FolderTrust {
  constructor(private readonly options: FolderConsentOptions) {}

  async decide(workingDirectory: string, request: PermissionRequest, session: ConsentSession, signal: AbortSignal): Promise<ConsentDecision> {
    if (this.options.trustAll) return { allowed: true, grant: "allow-all" };
    if (await this.options.trustedFolders.covers(workingDirectory)) return { allowed: true, grant: "trusted-folder" };
    if (session.approvesWithoutAsking(request)) return { allowed: true, grant: "approve-all" };
    const confirmed = await session.confirm?.(request, signal);
    if (confirmed === true) return { allowed: true, grant: "user-confirmed" };
    if (confirmed === false) return { allowed: false, result: { kind: "denied-interactively-by-user" } };
    const result = await session.ask(request, signal);
    if (result.kind === "approved") return { allowed: true, grant: "approved" };
    return { allowed: false, result };
  }

  async trusts(folder: string): Promise<boolean> {
    return this.options.trustAll || (await this.options.trustedFolders.covers(folder));
  }

  howToTrust(folder: string): string {
    return `add ${JSON.stringify(folder)} (or a folder above it) to "trustedFolders" in ${this.options.trustedFolders.configPath}, or start the runtime with --allow-all (--yolo)`;
  }

  /** The ways to allow a folder's code, for the message that says it was held back. */
  howToAllow(workingDirectory: string): string {
    return `To allow it, approve the question (a form, or else a permission request) when the session opens, ${this.howToTrust(workingDirectory)}.`;
  }
}

/** Why a folder's code was held back, in words. */
export function heldBackReason(result: Exclude<PermissionResult, { kind: "approved" }>): string {
  switch (result.kind) {
    case "denied-interactively-by-user":
      return "the user denied it";
    case "denied-no-approval-rule-and-could-not-request-from-user":
      return "nobody approved it (no permission handler answered)";
    default:
      return `the request was denied (${result.kind})`;
  }
}
