import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { SessionContext } from "@tandem/protocol";
import { invalidParams } from "../errors.js";
import type { EventEmitterPort } from "./emitter.js";

/** What moving a session needs: its folder (changed in place), its events, and a way to persist it. */
export interface WorkingDirectoryHost {
  workingDirectory: string;
  readonly emitter: EventEmitterPort;
  /** Told after the move (the session's sandbox follows it). */
  workingDirectoryMoved?(folder: string): void;
}

/**
 * `session.metadata.setWorkingDirectory` (and `session.options.update`'s `workingDirectory`): moves
 * the session to `target`, an absolute path to an existing folder. Nothing changes when the check
 * fails (-32602). Tools, hooks, the sandbox and the git context follow the new folder from their next use on; the
 * git context tracker announces the new place (`session.context_changed`) at the end of the next
 * turn. `persist` writes `workspace.yaml`, so a resume opens the session in its new folder.
 *
 * @example
 * await moveWorkingDirectory(session, "/repo/packages/app", () => sessions.writeWorkspaceNow(session));
 */
export async function moveWorkingDirectory(host: WorkingDirectoryHost, target: string, persist: () => Promise<void>): Promise<string> {
  if (!isAbsolute(target)) throw invalidParams(`The working directory must be an absolute path: ${JSON.stringify(target)}`, { workingDirectory: target });
  const folder = resolve(target);
  const info = await stat(folder).catch(() => undefined);
  if (!info) throw invalidParams(`The working directory does not exist: ${folder}`, { workingDirectory: target });
  if (!info.isDirectory()) throw invalidParams(`The working directory is not a folder: ${folder}`, { workingDirectory: target });
  host.workingDirectory = folder;
  host.workingDirectoryMoved?.(folder);
  await persist();
  return folder;
}

/**
 * `session.metadata.recordContextChange`: a place the host detected (after a `git checkout` of its
 * own, say), recorded as `session.context_changed`. The session's working directory is
 * authoritative: a report for another folder is ignored (false) and emits nothing.
 *
 * @example
 * recordContextChange(session, { cwd: session.workingDirectory, branch: "main" }); // true
 */
export function recordContextChange(host: WorkingDirectoryHost, context: SessionContext & Record<string, unknown>): boolean {
  if (resolve(context.cwd) !== resolve(host.workingDirectory)) return false;
  host.emitter.emit("session.context_changed", { ...context, cwd: host.workingDirectory });
  return true;
}
