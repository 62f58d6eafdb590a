import { join } from "node:path";
import { probeSync } from "../fs-probe.js";
import type { SessionTurnIds } from "./git-checkpoints.js";
import { Git, GitError } from "./git.js";
import { readWorktreeInfo } from "./worktree.js";

/** The session whose git state is to go. */
export interface SessionGitState {
  sessionId: string;
  /** The session's local folder (its private checkpoint index, `worktree.json`). */
  sessionDir: string;
  /** The folder the session worked in, when known. */
  workingDirectory: string | undefined;
  /** The session's turns (see {@link GitCheckpoints.open}). */
  turnIds: SessionTurnIds;
}

/** What {@link removeSessionGitState} removed, and what it could not. */
export interface RemovedGitState {
  checkpointRefs: number;
  worktree?: string;
  branch?: string;
  /** Steps that failed (the rest still ran). */
  failures: string[];
}

/**
 * Removes what a session left in the user's repository: its checkpoint refs
 * (`refs/tandem/checkpoints/<namespace>/*`, and those an earlier version wrote under its former
 * name when their turns are the session's), and for a `worktreeIsolation` session its worktree
 * (the folder and git's entry for it) and its `tandem/…` branch. A session that never took a
 * checkpoint nor made a worktree costs no git process. Call it before the session folder goes:
 * the worktree's record and the checkpoint index live there.
 *
 * @example
 * const removed = await removeSessionGitState({ sessionId, sessionDir, workingDirectory, turnIds });
 * if (removed.failures.length > 0) logger.warn(removed.failures.join("; "));
 */
export async function removeSessionGitState(target: SessionGitState): Promise<RemovedGitState> {
  const indexFile = join(target.sessionDir, "checkpoint.index");
  const worktree = await readWorktreeInfo(target.sessionDir);
  const removed: RemovedGitState = { checkpointRefs: 0, failures: [] };
  const tookCheckpoints = probeSync(indexFile) !== undefined || probeSync(`${indexFile}.preexisting`) !== undefined;
  if (!tookCheckpoints && !worktree) return removed;

  const repository = worktree?.repositoryRoot ?? target.workingDirectory;
  if (tookCheckpoints && repository && probeSync(repository) !== undefined) {
    try {
      const { GitCheckpoints } = await import("./git-checkpoints.js");
      const checkpoints = await GitCheckpoints.open(repository, target.sessionId, indexFile, { turnIds: target.turnIds });
      removed.checkpointRefs = (await checkpoints?.removeAll()) ?? 0;
    } catch (error) {
      removed.failures.push(`checkpoint refs: ${describe(error)}`);
    }
  }
  if (!worktree) return removed;

  const git = new Git(worktree.repositoryRoot);
  try {
    await git.run(["worktree", "remove", "--force", "--force", worktree.path]);
    removed.worktree = worktree.path;
  } catch (error) {
    // Already gone from disk: drop git's stale entry for it.
    if (probeSync(worktree.path) !== undefined) removed.failures.push(`worktree ${worktree.path}: ${describe(error)}`);
    else await git.run(["worktree", "prune"]).then(() => (removed.worktree = worktree.path), (pruneError: unknown) => removed.failures.push(`worktree prune: ${describe(pruneError)}`));
  }
  if (!worktree.branch.startsWith("tandem/")) return removed;
  try {
    await git.run(["branch", "-D", worktree.branch]);
    removed.branch = worktree.branch;
  } catch (error) {
    removed.failures.push(`branch ${worktree.branch}: ${describe(error)}`);
  }
  return removed;
}

function describe(error: unknown): string {
  return error instanceof GitError ? error.message : String(error);
}
