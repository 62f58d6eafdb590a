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
 * Options of otherwise read-only programs that write files or run other programs. A program
 * listed here is read-only only when every argument is known: an expansion or a glob could
 * become one of these options.
 */
const UNSAFE_OPTIONS: Record<string, (word: string) => boolean> = {
  find: (word) => ["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"].includes(word),
  sort: (word) => word.startsWith("-o") || word.startsWith("--output") || word.startsWith("--compress-program"),
  rg: (word) => word.startsWith("--pre"),
  tree: (word) => word.startsWith("-o"),
  less: (word) => /^-[a-zA-Z]*[oO]/.test(word) || word.startsWith("--log-file") || word.startsWith("--LOG-FILE"),
  file: (word) => /^-[a-zA-Z]*C/.test(word) || word === "--compile",
  date: (word) => /^-[a-zA-Z]*s/.test(word) || word.startsWith("--set"),
  env: (word) => word.startsWith("-"),
  git: (word) => word.startsWith("--output") || word.startsWith("-O") || word.startsWith("--open-files-in-pager") || word.startsWith("--ext-diff"),
};

/**
 * A conservative guess at whether a command with these words (program first, assignments and
 * redirections already taken off) only reads: a known read-only program, called without options
 * that write or run something else. `sed` is never read-only (its `w` and `e` commands write
 * files and run programs); neither is a program whose name is not a plain word.
 *
 * @example
 * isReadOnlyCommand([{ value: "git", pattern: false }, { value: "status", pattern: false }]); // true
 */
export function isReadOnlyCommand(words: readonly ShellWord[]): boolean {
  const [program, ...rest] = words;
  if (program === undefined) return true;
  const name = program.pattern ? undefined : program.value;
  if (name === undefined || !(READ_ONLY_COMMANDS.has(name) || name === "git" || name === "find")) return false;
  const unsafe = UNSAFE_OPTIONS[name];
  if (unsafe && rest.some((word) => word.value === undefined || word.pattern || unsafe(word.value))) return false;
  const args = rest.map((word) => word.value ?? "");
  if (name === "git") return isReadOnlyGit(args);
  if (name === "uniq") return !rest.some((word) => word.value === undefined || word.pattern) && args.filter((arg) => !arg.startsWith("-")).length < 2;
  if (name === "hostname") return args.every((arg) => arg.startsWith("-")) && !args.some((arg) => /^-[a-zA-Z]*[bF]/.test(arg) || arg === "--file" || arg === "--boot");
  return true;
}

// Options before the subcommand (`-c`, `-C`, `--exec-path`, `--config-env`, …) change what git
// runs or where; only `--no-pager` is known to be harmless.
function isReadOnlyGit(args: string[]): boolean {
  const subcommandIndex = args.findIndex((arg) => arg !== "--no-pager");
  const subcommand = args[subcommandIndex];
  return subcommand !== undefined && READ_ONLY_GIT.has(subcommand);
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
