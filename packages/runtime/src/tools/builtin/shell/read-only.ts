import { GIT_SUBCOMMAND_OPTIONS, isUnsafeOption, PROGRAM_OPTIONS } from "./program-options.js";

/**
 * One word of a command as the shell will see it: `value` is its text with quotes and escapes
 * removed, or undefined when it holds an expansion (`$x`, `$(…)`, …) and so cannot be known
 * before it runs. `pattern` marks unquoted glob or brace patterns (`*.ts`, `{a,b}`), which may
 * become any number of words, option-looking ones included.
 */
export interface ShellWord {
  value: string | undefined;
  pattern: boolean;
}

const READ_ONLY_COMMANDS = new Set([
  "cat", "ls", "pwd", "echo", "printf", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "which", "type", "file",
  "stat", "du", "df", "tree", "date", "whoami", "uname", "env", "printenv", "true", "false", "test", "[", "diff", "cmp",
  "less", "more", "sort", "uniq", "cut", "tr", "basename", "dirname", "realpath", "readlink", "id", "hostname", "nl", "jq", ":",
]);
const READ_ONLY_GIT = new Set(["status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog", "grep"]);

/**
 * A conservative guess at whether a command with these words (program first, assignments and
 * redirections already taken off) only reads: a known read-only program, called without options
 * that write or run something else (see {@link PROGRAM_OPTIONS}; long options match by any
 * prefix, as getopt_long matches them). A program with such options is read-only only when every
 * argument is known: an expansion or a glob could become one of them. `sed` is never read-only
 * (its `w` and `e` commands write files and run programs); neither is a program whose name is
 * not a plain word.
 *
 * @example
 * isReadOnlyCommand([{ value: "git", pattern: false }, { value: "status", pattern: false }]); // true
 */
export function isReadOnlyCommand(words: readonly ShellWord[]): boolean {
  const [program, ...rest] = words;
  if (program === undefined) return true;
  const name = program.pattern ? undefined : program.value;
  if (name === undefined || !(READ_ONLY_COMMANDS.has(name) || name === "git" || name === "find")) return false;
  // `printf -v NAME` assigns a shell variable (`PATH` included); only a first word can be that option.
  if (name === "printf") return rest[0] === undefined || (rest[0].value !== undefined && !rest[0].pattern && !rest[0].value.startsWith("-v"));
  const options = PROGRAM_OPTIONS[name];
  const hasUnsafeRules = options !== undefined || EXTRA_RULES[name] !== undefined || name === "git" || name === "find";
  if (hasUnsafeRules && rest.some((word) => word.value === undefined || word.pattern)) return false;
  const args = rest.map((word) => word.value ?? "");
  if (options && args.some((arg) => isUnsafeOption(arg, options))) return false;
  const extra = EXTRA_RULES[name];
  if (extra && !extra(args)) return false;
  if (name === "git") return isReadOnlyGit(args);
  if (name === "find") return !args.some((arg) => FIND_ACTIONS.has(arg));
  if (name === "uniq") return !rest.some((word) => word.value === undefined || word.pattern) && args.filter((arg) => !arg.startsWith("-")).length < 2;
  return true;
}

/** `find` actions that delete, write files or run programs (find's options are never abbreviated). */
const FIND_ACTIONS = new Set(["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"]);

/** Rules beyond options: arguments that make an otherwise read-only program write or run something. */
const EXTRA_RULES: Readonly<Record<string, (args: string[]) => boolean>> = {
  // `env` alone prints the environment; with options or a command it is judged as a wrapper.
  env: (args) => !args.some((arg) => arg.startsWith("-")),
  // An operand sets the host name.
  hostname: (args) => args.every((arg) => arg.startsWith("-")),
  // `+cmd` runs less commands at start (`!cmd` runs a shell command, `s` saves to a file): only a
  // line number, `G`/`F`/`g` and a search are known to be harmless.
  less: (args) => args.every((arg) => !arg.startsWith("+") || /^\+(\d+|[GFg]|\/[^\r\n]*)$/.test(arg)),
  more: (args) => args.every((arg) => !arg.startsWith("+") || /^\+(\d+|\/[^\r\n]*)$/.test(arg)),
};

// Options before the subcommand (`-c`, `-C`, `--exec-path`, `--config-env`, …) change what git
// runs or where; only `--no-pager` is known to be harmless.
function isReadOnlyGit(args: string[]): boolean {
  const subcommandIndex = args.findIndex((arg) => arg !== "--no-pager");
  const subcommand = args[subcommandIndex];
  if (subcommand === undefined || !READ_ONLY_GIT.has(subcommand)) return false;
  const options = GIT_SUBCOMMAND_OPTIONS[subcommand];
  return !options || !args.slice(subcommandIndex + 1).some((arg) => isUnsafeOption(arg, options));
}

const SAFE_ENVIRONMENT_NAMES = /^(LC_[A-Z]+|LANG|LANGUAGE|TZ|NO_COLOR|COLUMNS|LINES)$/;

/**
 * Whether assigning this variable cannot change what a read-only program does. Variables that
 * are all lower case are the shell's own by convention; of the upper-case ones (which may
 * already be exported: `PATH`, `PAGER`, `GIT_*`, `LD_PRELOAD`, `HOME`, …) only locale, time zone
 * and terminal size are known to be harmless.
 */
export function isHarmlessAssignment(name: string): boolean {
  return SAFE_ENVIRONMENT_NAMES.test(name) || /^[a-z_][a-z0-9_]*$/.test(name);
}
