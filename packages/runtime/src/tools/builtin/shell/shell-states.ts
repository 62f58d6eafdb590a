import type { ShellPermissionRequest } from "./command-parse.js";

/** A clock that only moves forward, in milliseconds (`performance.now()`). */
export type MonotonicClock = () => number;

/**
 * When each named shell (`bash` with a `shellId`) last ran a command line that may have changed
 * its state (`CommandLineAnalysis.changesShellState`: a function definition, or a command that is
 * not read-only and runs in the shell itself: `cd`, `export`, `trap`, `shopt`, an assignment, …;
 * external programs such as `rm` or `npm` run in processes of their own and do not count).
 *
 * Such a line may have changed what later command texts mean in that shell: `PATH`, functions
 * (`ls() { rm -rf ~; }`), aliases, traps (`trap '…' DEBUG` runs before every command), `enable`,
 * `shopt`/`set` options (`extdebug`, `expand_aliases`), integer attributes. The analysis of a
 * command line cannot see that state, so after such a change:
 * - approvals "for the session" remembered before it do not cover requests in that shell (the
 *   application is asked again; approvals given since then cover as usual), and
 * - no command in that shell is read-only: any first word may now resolve to a function or an
 *   alias, and a trap may run before any command, assignments and `[[ … ]]` included. (Words that
 *   cannot be redefined are few and a trap covers them too, so no exception is made.)
 *
 * Once changed, a shell stays changed: every command line it runs marks it again, since any word
 * there may now be a function that changes it further (so an approval given in it covers nothing
 * after its next command; fresh shells and unchanged named shells keep carrying approvals).
 * Conservative on purpose: a command is counted when it is approved, whether or not it then
 * succeeds, and a shell keeps its mark when it is stopped and a new one takes its id.
 *
 * @example
 * const states = new NamedShellStates();
 * states.markChanged("build");
 * states.changedAt("build"); // the clock's reading at the mark
 */
export class NamedShellStates {
  private readonly changes = new Map<string, number>();

  constructor(private readonly clock: MonotonicClock = () => performance.now()) {}

  /** Notes that `shellId` is about to run a command line that may change its state. */
  markChanged(shellId: string): void {
    this.changes.set(shellId, this.clock());
  }

  /** When `shellId` last ran a command line that may have changed its state, or undefined if it never did. */
  changedAt(shellId: string): number | undefined {
    return this.changes.get(shellId);
  }
}

/** The warning of a request in a shell whose state may have changed. */
export const CHANGED_SHELL_WARNING =
  "This shell's state (functions, aliases, PATH, traps, options, working directory) may have been changed by an earlier command; " +
  "any command here may run something other than what its text says.";

/**
 * `request` as it must be asked in a shell whose state may have changed: no command is read-only,
 * and the warning says why.
 *
 * @example
 * inChangedShell({ kind: "shell", commands: [{ identifier: "ls", readOnly: true }], … });
 * // { kind: "shell", commands: [{ identifier: "ls", readOnly: false }], warning: "This shell's state …", … }
 */
export function inChangedShell(request: ShellPermissionRequest): ShellPermissionRequest {
  const warning = request.warning !== undefined ? `${request.warning} ${CHANGED_SHELL_WARNING}` : CHANGED_SHELL_WARNING;
  return { ...request, commands: request.commands.map((command) => ({ ...command, readOnly: false })), warning };
}
