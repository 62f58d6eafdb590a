/**
 * The OS sandbox of a session's processes (the official 1.0.x `SandboxConfig` and
 * `session.sandbox.*`): what `session.create` / `session.resume` ask for in `sandbox`, what the
 * runtime really enforces, and the one switch to turn it off for a session (only with `allowBypass`).
 */
import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";


/** What the runtime enforces for a session right now. */
export const SandboxEnforcementStatus = z.lazy(() => z.looseObject({
  /** The session asked for a sandbox (its config, else the runtime's default). */
  enabled: z.boolean(),
  /** Commands really run in an OS sandbox now. */
  enforced: z.boolean(),
  /** `"bubblewrap"` on Linux; null when nothing is enforced. */
  mechanism: z.string().nullable(),
  platform: z.string(),
  /** Why nothing is enforced although it is enabled (then commands are refused), or why it is off. */
  reason: z.string().optional(),
  allowBypass: z.boolean(),
  disabledForSession: z.boolean(),
  network: z.looseObject({ allowOutbound: z.boolean(), allowLocalNetwork: z.boolean(), allowedHosts: z.array(z.string()), blockedHosts: z.array(z.string()) }),
}));
export type SandboxEnforcementStatus = z.infer<typeof SandboxEnforcementStatus>;

/** `session.sandbox.getEnforcementStatus`: whether the session's processes run sandboxed, and why not. */
export const SessionSandboxGetEnforcementStatus = defineRequest(
  "session.sandbox.getEnforcementStatus",
  () => z.looseObject({ sessionId: SessionId }),
  () => SandboxEnforcementStatus,
);
/** `session.sandbox.disableForSession`: later commands of the session run unsandboxed; refused unless `allowBypass`. */
export const SessionSandboxDisableForSession = defineRequest(
  "session.sandbox.disableForSession",
  () => z.looseObject({ sessionId: SessionId }),
  () => z.looseObject({ success: z.boolean() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const sandboxRequests = [SessionSandboxGetEnforcementStatus, SessionSandboxDisableForSession] as const;
