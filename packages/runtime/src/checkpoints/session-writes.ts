import { join } from "node:path";

/** The shell tools whose calls can create files. */
const shellTools: ReadonlySet<string> = new Set(["bash", "write_bash"]);

/**
 * The untracked files a session made, which its checkpoints may capture: the paths its file tools
 * (`create`, `edit`) wrote, and the untracked files that appeared while one of its shell tool calls
 * (`bash`, `write_bash`) ran — the untracked files are listed when a round of tool calls starts and
 * again when each shell call ends, and what is new in between counts as the session's. A file that
 * appears at any other time (the user's own, while the model thinks) is not the session's.
 * Once a checkpoint captured a file, the private index tracks it from then on.
 *
 * @example
 * writes.toolWrote("/repo/notes.txt");
 * await writes.observe(listUntracked, false); // a round of tool calls starts
 * await writes.observe(listUntracked, true);  // a shell call ended: new files are the session's
 * writes.owns("notes.txt", "/repo"); // true
 */
export class SessionWrites {
  /** Untracked files that appeared during shell calls, relative to the repository root. */
  private readonly owned = new Set<string>();
  /** Absolute paths the file tools wrote. */
  private readonly toolPaths = new Set<string>();
  private lastSeen: ReadonlySet<string> = new Set();
  /** Shell calls running now, by tool call id. */
  private readonly runningShellCalls = new Set<string>();

  /** A file tool wrote `path` (absolute). */
  toolWrote(path: string): void {
    this.toolPaths.add(path);
  }

  /** A tool call started; true when it is a shell call. */
  shellCallStarted(toolCallId: string, toolName: string): boolean {
    if (!shellTools.has(toolName)) return false;
    this.runningShellCalls.add(toolCallId);
    return true;
  }

  /** A tool call ended; true when it was a shell call. */
  shellCallEnded(toolCallId: string): boolean {
    return this.runningShellCalls.delete(toolCallId);
  }

  /**
   * Lists the untracked files now; with `attribute`, the ones that appeared since the last listing
   * are the session's.
   */
  async observe(listUntracked: () => Promise<readonly string[]>, attribute: boolean): Promise<void> {
    const now = new Set(await listUntracked());
    if (attribute) for (const path of now) if (!this.lastSeen.has(path)) this.owned.add(path);
    this.lastSeen = now;
  }

  /** Whether the session made this untracked file (`path` relative to the repository `root`). */
  owns(path: string, root: string): boolean {
    return this.owned.has(path) || this.toolPaths.has(join(root, path));
  }
}
