import type { SessionContext } from "@tandem/protocol";
import { readGitContext } from "./git-context.js";

interface Folder {
  /** The read under way. */
  running: Promise<SessionContext> | undefined;
  /** The read that starts when the running one ends, shared by everyone who asked meanwhile. */
  waiting: Promise<SessionContext> | undefined;
}

/**
 * Reads git contexts for every session of a runtime, sharing reads between sessions of the same
 * folder. A caller always gets a read that began after it asked, so no change made before the call
 * is missed; callers that ask while a read of the folder is under way share the one read that
 * follows it. With 100 sessions of one folder going idle together, that is a few reads instead of
 * 100 (each a `stat` per folder level).
 *
 * @example
 * const reader = new GitContextReader();
 * const context = await reader.read("/work/repo/src");
 */
export class GitContextReader {
  private readonly folders = new Map<string, Folder>();

  /** @param readContext one read of a folder's context (the file reads of {@link readGitContext}) */
  constructor(private readonly readContext: (cwd: string) => Promise<SessionContext> = readGitContext) {}

  /** The context of `cwd`, from a read that starts now or at the end of the one under way. */
  read(cwd: string): Promise<SessionContext> {
    let folder = this.folders.get(cwd);
    if (!folder) {
      folder = { running: undefined, waiting: undefined };
      this.folders.set(cwd, folder);
    }
    if (!folder.running) return this.start(cwd, folder);
    const current = folder;
    // The read under way may have looked before the caller's change: the caller gets the next one.
    current.waiting ??= current.running!.then(
      () => this.startWaiting(cwd, current),
      () => this.startWaiting(cwd, current),
    );
    return current.waiting;
  }

  private startWaiting(cwd: string, folder: Folder): Promise<SessionContext> {
    folder.waiting = undefined;
    return this.start(cwd, folder);
  }

  private start(cwd: string, folder: Folder): Promise<SessionContext> {
    const running = this.readContext(cwd);
    folder.running = running;
    const settled = (): void => {
      if (folder.running === running) folder.running = undefined;
      if (!folder.running && !folder.waiting && this.folders.get(cwd) === folder) this.folders.delete(cwd);
    };
    running.then(settled, settled);
    return running;
  }
}
