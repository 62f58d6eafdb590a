/**
 * The OS sandbox of a session's processes (the official 1.0.x `SandboxConfig` and
 * `session.sandbox.*`): what `session.create` / `session.resume` ask for in `sandbox`, what the
 * runtime really enforces, and the one switch to turn it off for a session (only with `allowBypass`).
 */
import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

/** Which parts of the file system sandboxed processes may touch (absolute paths; `~` is the user's home). */
export const SandboxFilesystemPolicy = z.looseObject({
  /** Writable (the session's working directory is writable unless `addCurrentWorkingDirectory: false`). */
  readwritePaths: z.array(z.string()).optional(),
  /** Readable, not writable (the whole system is read-only anyway; this makes a path under a writable one read-only). */
  readonlyPaths: z.array(z.string()).optional(),
  /** Invisible: an empty directory (or an empty file) is mounted over each. */
  deniedPaths: z.array(z.string()).optional(),
  clearPolicyOnExit: z.boolean().optional(),
});
export type SandboxFilesystemPolicy = z.infer<typeof SandboxFilesystemPolicy>;

/** What sandboxed processes may reach on the network. */
export const SandboxNetworkPolicy = z.looseObject({
  /** Any outbound traffic at all (default false: the sandbox has only its own loopback). */
  allowOutbound: z.boolean().optional(),
  /** Loopback and private addresses of the host (default false). */
  allowLocalNetwork: z.boolean().optional(),
  /** Host names reachable through the runtime's HTTP(S) proxy (`HTTPS_PROXY` inside the sandbox); `*.example.com` matches subdomains. */
  allowedHosts: z.array(z.string()).optional(),
  /** Host names the proxy refuses even when `allowedHosts` or `allowOutbound` would let them through. */
  blockedHosts: z.array(z.string()).optional(),
  proxy: z.looseObject({ url: z.string(), username: z.string().optional(), password: z.string().optional() }).optional(),
});
export type SandboxNetworkPolicy = z.infer<typeof SandboxNetworkPolicy>;

/** A session's sandbox (`sandbox` of `session.create` / `session.resume`, or the runtime's `--sandbox` default). */
export const SandboxConfig = z.looseObject({
  enabled: z.boolean(),
  userPolicy: z.looseObject({ filesystem: SandboxFilesystemPolicy.optional(), network: SandboxNetworkPolicy.optional() }).optional(),
  /** Make the session's working directory writable (default true). */
  addCurrentWorkingDirectory: z.boolean().optional(),
  /** Run the session's stdio MCP servers in the sandbox too (default true). */
  sandboxMcpServers: z.boolean().optional(),
  /** Let the model ask to run one command unsandboxed (the app must approve it), and allow `session.sandbox.disableForSession`. */
  allowBypass: z.boolean().optional(),
});
export type SandboxConfig = z.infer<typeof SandboxConfig>;

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
