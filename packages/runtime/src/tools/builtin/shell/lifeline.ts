/**
 * Ties a shell's process group to the runtime's life, so that nothing a command started outlives
 * a runtime killed with SIGKILL (when no cleanup code runs). Node cannot set PR_SET_PDEATHSIG, so:
 *
 * The shell is started through `/bin/sh` as a process-group leader (`detached: true`) with one
 * more stdio pipe on fd 3, whose other end only the runtime holds (Node opens its own descriptors
 * close-on-exec, so no other child inherits it). `sh` forks a watchdog into the group that blocks
 * reading fd 3, closes fd 3, and `exec`s the shell (same pid, so the shell stays the group leader).
 * When the runtime dies the kernel closes its end, the watchdog's read hits EOF, and it kills the
 * whole group (`kill -9 0`), itself included.
 *
 * The watchdog was forked by `sh`, so the shell that replaced `sh` does not know it as a job: it is
 * not in `jobs`, `$!` or what `wait` waits for. It reads from /dev/null and writes nowhere (it
 * holds none of the shell's pipes open), ignores the catchable signals a command may send its group
 * or its parent (`kill 0`, `pkill -P $$`), and keeps the group id reserved while it lives (so
 * killing the group later cannot hit a stranger). The shell sees neither fd 3 nor any trap: both
 * exist only inside the watchdog. Cost: about 1 ms per shell (one `sh` exec and one fork).
 *
 * Processes that leave the group (`setsid`, daemons that start a session) are out of reach, as they
 * are of the runtime's own stop and timeout.
 */

/** The descriptor the watchdog reads; the runtime holds the other end of its pipe. */
export const LIFELINE_FD = 3;

/** The program that starts the watchdog and then runs the shell: `$0` is the shell, `$@` its arguments. */
const LAUNCHER = `{ trap '' HUP INT QUIT TERM PIPE; read -r _ <&${LIFELINE_FD}; kill -9 0; } </dev/null >/dev/null 2>&1 & exec "$0" "$@" ${LIFELINE_FD}<&-`;

/**
 * The command line that starts `shellPath shellArgs…` behind a watchdog; spawn it with
 * `detached: true` and a `"pipe"` at stdio index {@link LIFELINE_FD}, and keep that pipe open for
 * as long as the shell may live.
 *
 * @example
 * const { command, args } = lifelineCommand("bash", ["--noprofile", "--norc"]);
 * spawn(command, args, { detached: true, stdio: ["pipe", "pipe", "pipe", "pipe"] });
 */
export function lifelineCommand(shellPath: string, shellArgs: string[]): { command: string; args: string[] } {
  return { command: "/bin/sh", args: ["-c", LAUNCHER, shellPath, ...shellArgs] };
}
