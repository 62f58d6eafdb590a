import type { SessionScopePort } from "../ports/session-scope.js";
import { PermissionPolicy } from "./policy.js";
import { SessionApprovals } from "./session-approvals.js";

/**
 * A session's standing permission decisions: approve-all and the approvals remembered for the rest
 * of the session, the approve and deny rules with the URL policy and allowed folders
 * (`session.permissions.*`), and the tools a skill's `allowed-tools` approved. A change of
 * approve-all is announced here, as `session.permissions_changed` (persisted, so a resume replays it).
 *
 * @example
 * const permissions = new SessionPermissions(scope);
 * permissions.setApproveAll(true); // emits session.permissions_changed { previousMode: "manual", mode: "allow-all" }
 */
export class SessionPermissions {
  /** Approve-all and the approvals remembered for the rest of the session. */
  readonly approvals: SessionApprovals;
  /** Approve and deny rules, the URL policy and the allowed directories. */
  readonly policy: PermissionPolicy;
  /** Tools a skill's `allowed-tools` approved for the rest of the session. */
  private readonly skillApproved = new Set<string>();

  constructor(private readonly scope: Pick<SessionScopePort, "emitter" | "logger" | "workingDirectory">) {
    this.approvals = new SessionApprovals(scope.logger);
    this.policy = new PermissionPolicy(() => scope.workingDirectory);
  }

  /** Turns approve-all on or off; a change emits `session.permissions_changed`. */
  setApproveAll(enabled: boolean): void {
    const { previousMode, mode } = this.approvals.setApproveAll(enabled);
    if (previousMode !== mode) this.scope.emitter.emit("session.permissions_changed", { previousMode, mode });
  }

  /** Approves these tools without asking from now on (a skill's `allowed-tools`). */
  autoApprove(toolNames: readonly string[]): void {
    for (const name of toolNames) this.skillApproved.add(name);
  }

  /** Whether a skill approved `toolName` for the rest of the session. */
  approvedBySkill(toolName: string): boolean {
    return this.skillApproved.has(toolName);
  }
}
