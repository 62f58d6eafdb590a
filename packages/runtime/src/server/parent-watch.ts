/** How often the parent is checked. */
const PARENT_POLL_MS = 1000;

/** What the parent watch needs to know about the process (replaceable in tests). */
export interface ProcessView {
  /** The current parent pid (re-read on each call). */
  parentPid(): number;
  /** Whether a process with this pid exists. */
  isAlive(pid: number): boolean;
}

const thisProcess: ProcessView = {
  parentPid: () => process.ppid,
  isAlive: (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM";
    }
  },
};

/**
 * Whether a TCP runtime should exit when the process that started it dies. Every official SDK
 * (0.2.x and 1.0.x) and ours start the runtime with `--headless`, and in TCP mode give it no stdin
 * pipe whose end would tell it, so `--headless` turns this on; `--exit-with-parent` /
 * `--no-exit-with-parent` decide explicitly. Someone running `tandem --port 3000` from a shell does
 * not pass `--headless`, so the runtime outlives the shell's children as before. (In stdio mode the
 * runtime already exits when its stdin closes.)
 */
export function shouldExitWithParent(args: { stdio: boolean; headless: boolean; exitWithParent?: boolean | undefined }): boolean {
  if (args.stdio) return false;
  return args.exitWithParent ?? args.headless;
}

/**
 * Calls `onParentGone` once the parent process dies: polls (with an unref'd timer, so it never keeps
 * the process alive) whether the parent pid changed (on POSIX an orphan is re-parented to init or a
 * subreaper) or the original parent no longer exists (Windows keeps the old ppid). Does nothing when
 * the parent is already init (pid 1): there is no parent to outlive. Returns a function that stops
 * watching.
 *
 * @example
 * watchParent(() => void shutdown("parent process exited"));
 */
export function watchParent(onParentGone: () => void, view: ProcessView = thisProcess, pollMs = PARENT_POLL_MS): () => void {
  const parent = view.parentPid();
  if (parent <= 1) return () => undefined;
  const timer = setInterval(() => {
    if (view.parentPid() === parent && view.isAlive(parent)) return;
    clearInterval(timer);
    onParentGone();
  }, pollMs);
  timer.unref();
  return () => clearInterval(timer);
}
