import { readFile, writeFile } from "node:fs/promises";
import type { Git } from "./git.js";

/**
 * The untracked files that existed before a session took its first checkpoint (`.env`, notes,
 * credentials: not ignored, not in the user's index). Checkpoints never capture them, whoever
 * writes to them later: a checkpoint is a commit in the user's repository, and `git push --mirror`
 * or a copy of `.git` would carry it off. Untracked, non-ignored files that appear after that point
 * (written by the session's tools, its shell commands, or anything else while the session runs) are
 * captured, so a rewind can remove or restore them. Ignored files are never captured.
 *
 * The list is kept in `<index file>.preexisting` (NUL-separated paths relative to the repository
 * root), written once, so a resumed session keeps the line drawn when it started.
 *
 * @example
 * const baseline = (await PreexistingUntracked.load(`${indexFile}.preexisting`)) ?? (await PreexistingUntracked.record(git, `${indexFile}.preexisting`));
 * const fresh = baseline.newSince(await listUntracked(git, indexFile));
 */
export class PreexistingUntracked {
  private constructor(private readonly paths: ReadonlySet<string>) {}

  /** Reads the saved list; undefined when the session has none yet. */
  static async load(file: string): Promise<PreexistingUntracked | undefined> {
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text === undefined) return undefined;
    return new PreexistingUntracked(new Set(text.split("\0").filter((path) => path.length > 0)));
  }

  /** Lists the untracked, non-ignored files against the user's own index now, and saves the list. */
  static async record(git: Git, file: string): Promise<PreexistingUntracked> {
    const listed = await git.run(["ls-files", "-z", "--others", "--exclude-standard"]);
    await writeFile(file, listed);
    return new PreexistingUntracked(new Set(listed.split("\0").filter((path) => path.length > 0)));
  }

  /** The paths of `untracked` that were not there before the session. */
  newSince(untracked: readonly string[]): string[] {
    return untracked.filter((path) => !this.paths.has(path));
  }
}

/** The untracked, non-ignored files relative to `indexFile` (paths relative to the repository root). */
export async function listUntracked(git: Git, indexFile: string): Promise<string[]> {
  const listed = await git.run(["ls-files", "-z", "--others", "--exclude-standard"], { indexFile });
  return listed.split("\0").filter((path) => path.length > 0);
}
