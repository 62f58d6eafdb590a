import { CopilotClient } from "./client.js";
import type { PermissionHandler } from "./permissions.js";
import type { CopilotSession } from "./session.js";
import type { ResumeSessionConfig } from "./types.js";

/** What an extension brings when it joins: the resume config, with the permission handler optional. */
export type JoinSessionConfig = Omit<ResumeSessionConfig, "onPermissionRequest"> & {
  /** Defaults to "no answer" (`no-result`): the application's own handler decides. */
  onPermissionRequest?: PermissionHandler;
};

/** The default for extensions: leave every permission decision to the application. */
const leaveToApplication: PermissionHandler = () => ({ kind: "no-result" });

/**
 * Joins the runtime's foreground session from an extension: a process the runtime started from
 * `.github/extensions/<name>/extension.mjs` (or `<home>/extensions/<name>/extension.mjs`), with
 * `SESSION_ID` set and JSON-RPC on its stdin/stdout. The tools, hooks, slash commands and handlers
 * in `config` are added to the session for as long as the extension runs; its settings are not (the session keeps
 * the application's).
 *
 * @example
 * import { joinSession } from "@tandem/sdk/extension";
 * const session = await joinSession({ tools: [myTool] });
 */
export async function joinSession(config: JoinSessionConfig = {}): Promise<CopilotSession> {
  const sessionId = process.env.SESSION_ID;
  if (!sessionId) throw new Error("joinSession() is intended for extensions running as child processes of the runtime (SESSION_ID is not set).");
  const client = new CopilotClient({ isChildProcess: true });
  // The runtime closing our stdin means it went away (or stopped us): an extension has nothing left to do.
  process.stdin.once("end", () => process.exit(0));
  return client.resumeSession(sessionId, {
    ...config,
    onPermissionRequest: config.onPermissionRequest ?? leaveToApplication,
    disableResume: config.disableResume ?? true,
  });
}
