import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { SessionContext } from "@tandem/protocol";
import { invalidParams } from "../errors.js";
import type { SessionScope } from "./scope.js";

/** What moving a session needs of its scope: its folder (changed in place) and its events. */
export type WorkingDirectoryHost = Pick<SessionScope, "workingDirectory" | "emitter">;

/**
 * `session.metadata.setWorkingDirectory` (and `session.options.update`'s `workingDirectory`): moves
 * the session to `target`, an absolute path to an existing folder. Nothing changes when the check
 * fails (-32602). Tools, hooks, the sandbox and the git context follow the new folder from their next use on; the
 * git context tracker announces the new place (`session.context_changed`) at the end of the next
 * turn. `moved` is told the new folder (the session's sandbox makes it the writable one); `persist`
 * writes `workspace.yaml`, so a resume opens the session in its new folder.
 *
 * @example
 * await moveWorkingDirectory(session.scope, "/repo/packages/app", () => sessions.writeWorkspaceNow(session), (folder) => session.toolset.followWorkingDirectory(folder));
 */
export async function moveWorkingDirectory(host: WorkingDirectoryHost, target: string, persist: () => Promise<void>, moved?: (folder: string) => void): Promise<string> {
  if (!isAbsolute(target)) throw invalidParams(`The working directory must be an absolute path: ${JSON.stringify(target)}`, { workingDirectory: target });
  const folder = resolve(target);
  const info = await stat(folder).catch(() => undefined);
  if (!info) throw invalidParams(`The working directory does not exist: ${folder}`, { workingDirectory: target });
  if (!info.isDirectory()) throw invalidParams(`The working directory is not a folder: ${folder}`, { workingDirectory: target });
  host.workingDirectory = folder;
  moved?.(folder);
  await persist();
  return folder;
}

/**
 * `session.metadata.recordContextChange`: a place the host detected (after a `git checkout` of its
 * own, say), recorded as `session.context_changed`. The session's working directory is
 * authoritative: a report for another folder is ignored (false) and emits nothing.
 *
 * @example
 * recordContextChange(session.scope, { cwd: session.workingDirectory, branch: "main" }); // true
 */
export function recordContextChange(host: WorkingDirectoryHost, context: SessionContext & Record<string, unknown>): boolean {
  if (resolve(context.cwd) !== resolve(host.workingDirectory)) return false;
  host.emitter.emit("session.context_changed", { ...context, cwd: host.workingDirectory });
  return true;
}
