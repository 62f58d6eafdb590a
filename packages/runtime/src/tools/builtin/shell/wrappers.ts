import type { ShellWord } from "./read-only.js";

/**
 * What a command does with other commands given in its words:
 * - `wrapper`: runs the command that starts at word `inner` (`timeout 5 rm x`: 2); `inner` is
 *   undefined when there is none (`env`, `command -v ls`). `transparent` wrappers add nothing of
 *   their own, so they are read-only when the wrapped command is.
 * - `shell`: `bash -c SCRIPT`, `sh -c SCRIPT`: `script` is the index of the script word, or
 *   undefined when there is none (a script file or standard input: unknown).
 * - `eval`: runs its arguments joined by spaces.
 * - `find`: runs each `-exec`/`-ok` command, given as word ranges `[start, end)`.
 * - `source`: runs a file (`source x`, `. x`): unknown.
 */
export type CommandRole =
  | { kind: "wrapper"; inner: number | undefined; transparent: boolean }
  | { kind: "shell"; script: number | undefined }
  | { kind: "eval" }
  | { kind: "find"; commands: Array<[number, number]> }
  | { kind: "source" };

const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh"]);
const TRANSPARENT_WRAPPERS = new Set(["timeout", "nice", "env", "command", "time"]);
const OTHER_WRAPPERS = new Set(["sudo", "nohup", "exec", "xargs", "stdbuf", "builtin", "coproc"]);

/** Options of each wrapper that take the next word as their value. */
const OPTIONS_WITH_VALUE: Record<string, Set<string>> = {
  timeout: new Set(["-s", "--signal", "-k", "--kill-after"]),
  nice: new Set(["-n", "--adjustment"]),
  env: new Set(["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]),
  sudo: new Set(["-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout"]),
  exec: new Set(["-a"]),
  xargs: new Set(["-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
};

/**
 * The role of a command whose program is `words[0]`, or undefined for an ordinary program.
 *
 * @example
 * commandRole(words("timeout 5 rm x")); // { kind: "wrapper", inner: 2, transparent: true }
 */
export function commandRole(words: readonly ShellWord[]): CommandRole | undefined {
  const program = words[0]?.value;
  if (program === undefined || words[0]?.pattern) return undefined;
  if (SHELLS.has(program)) return { kind: "shell", script: shellScriptIndex(words) };
  if (program === "eval") return { kind: "eval" };
  if (program === "source" || program === ".") return { kind: "source" };
  if (program === "find") return { kind: "find", commands: findCommands(words) };
  if (TRANSPARENT_WRAPPERS.has(program) || OTHER_WRAPPERS.has(program)) {
    return { kind: "wrapper", inner: wrappedCommandIndex(program, words), transparent: TRANSPARENT_WRAPPERS.has(program) };
  }
  return undefined;
}

// `bash -c SCRIPT`, `bash -ec SCRIPT`, `bash -c -e SCRIPT`: the first word after the options.
function shellScriptIndex(words: readonly ShellWord[]): number | undefined {
  let hasCommandOption = false;
  for (let index = 1; index < words.length; index++) {
    const value = words[index]!.value;
    if (value === undefined) return hasCommandOption ? index : undefined;
    if (value === "--") return hasCommandOption ? index + 1 < words.length ? index + 1 : undefined : undefined;
    if (/^-[a-zA-Z]+$/.test(value) || /^\+[a-zA-Z]+$/.test(value)) {
      if (value.startsWith("-") && value.includes("c")) hasCommandOption = true;
      if (/[oO]/.test(value)) index++; // `-o pipefail`: the option's value
      continue;
    }
    return hasCommandOption ? index : undefined;
  }
  return undefined;
}

function wrappedCommandIndex(program: string, words: readonly ShellWord[]): number | undefined {
  const withValue = OPTIONS_WITH_VALUE[program] ?? new Set<string>();
  let index = 1;
  while (index < words.length) {
    const value = words[index]!.value;
    if (value === undefined) return index;
    if (value === "--") return index + 1 < words.length ? index + 1 : undefined;
    if (program === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) {
      index++;
      continue;
    }
    if (!value.startsWith("-") || value === "-") break;
    // `command -v`/`-V` only describe the command; `nice -5` is an adjustment.
    if (program === "command" && /^-[a-zA-Z]*[vV]/.test(value)) return undefined;
    index += withValue.has(value) ? 2 : 1;
  }
  if (program === "timeout") index++; // the duration
  return index < words.length ? index : undefined;
}

function findCommands(words: readonly ShellWord[]): Array<[number, number]> {
  const commands: Array<[number, number]> = [];
  for (let index = 1; index < words.length; index++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(words[index]!.value ?? "")) continue;
    const start = index + 1;
    let end = start;
    while (end < words.length && words[end]!.value !== ";" && words[end]!.value !== "+") end++;
    if (end > start) commands.push([start, end]);
    index = end;
  }
  return commands;
}
