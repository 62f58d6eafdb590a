import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { invalidParams } from "../errors.js";
import { Git } from "./git.js";
import { refNamespace } from "./ref-names.js";

/** A session's own worktree (`worktreeIsolation: true`), as recorded in `<session dir>/worktree.json`. */
export interface WorktreeInfo {
  /** The worktree folder (inside the session folder). */
  path: string;
  /** Its branch, `tandem/<session namespace>` (the session id for ids of letters, digits and `-`; see `refNamespace`). */
  branch: string;
  /** The branch the user had checked out when the session was created (absent when HEAD was detached). */
  baseBranch?: string;
  /** The commit the worktree branched from. */
  baseCommit: string;
  /** The user's repository root. */
  repositoryRoot: string;
}

const infoFile = "worktree.json";

/**
 * Creates the session's worktree: `git worktree add -b tandem/<sessionId> <sessionDir>/worktree HEAD`
 * in the repository that holds `sourceDirectory`. The user's own working tree, index, branches and
 * stash are untouched; uncommitted changes there stay there. Returns the folder the session works
 * in (the same sub-folder of the worktree as `sourceDirectory` is of the repository).
 */
export async function createSessionWorktree(sourceDirectory: string, sessionId: string, sessionDir: string): Promise<string> {
  const git = new Git(sourceDirectory);
  const repositoryRoot = await git.line(["rev-parse", "--show-toplevel"]).catch(() => {
    throw invalidParams(`worktreeIsolation needs a git repository, and ${sourceDirectory} is not in one.`, { workingDirectory: sourceDirectory });
  });
  const baseCommit = await git.line(["rev-parse", "--verify", "HEAD"]).catch(() => {
    throw invalidParams(`worktreeIsolation needs a repository with at least one commit (${repositoryRoot} has none).`, { workingDirectory: sourceDirectory });
  });
  const baseBranch = await git.line(["symbolic-ref", "--short", "-q", "HEAD"]).catch(() => "");
  const branch = `tandem/${refNamespace(sessionId)}`;
  const path = join(sessionDir, "worktree");
  await mkdir(sessionDir, { recursive: true });
  await new Git(repositoryRoot).run(["worktree", "add", "--quiet", "-b", branch, path, baseCommit]);
  const info: WorktreeInfo = { path, branch, ...(baseBranch ? { baseBranch } : {}), baseCommit, repositoryRoot };
  await writeFile(join(sessionDir, infoFile), `${JSON.stringify(info, null, 2)}\n`);
  return join(path, relative(repositoryRoot, sourceDirectory));
}

/** The session's worktree, if it was created with `worktreeIsolation`. */
export async function readWorktreeInfo(sessionDir: string): Promise<WorktreeInfo | undefined> {
  const text = await readFile(join(sessionDir, infoFile), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as WorktreeInfo;
  } catch {
    return undefined;
  }
}
