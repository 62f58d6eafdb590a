import { homedir } from "node:os";
import type { ToolPermissionRequest } from "../../types.js";
import { resolveToolPath } from "../paths.js";

/** One simple command of a command line: the text between `&&`, `||`, `;`, `|`, `&` and newlines. */
export interface SimpleCommand {
  /** The command's source text, trimmed. */
  text: string;
  /** Its words, unquoted (redirections excluded). */
  words: string[];
  redirects: Redirect[];
}

/** A redirection such as `> out.txt` or `2>&1`. */
export interface Redirect {
  operator: string;
  target: string;
}

/**
 * Splits a shell command line into simple commands. It understands quotes, escapes, comments,
 * `$(…)` and backticks, and redirections; it does not expand anything.
 *
 * @example
 * splitCommandLine("cd src && grep -n x *.ts > hits.txt").map((command) => command.text);
 * // ["cd src", "grep -n x *.ts > hits.txt"]
 */
export function splitCommandLine(source: string): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let current: SimpleCommand & { start: number } = { text: "", words: [], redirects: [], start: 0 };
  let word: string | undefined;
  let pendingRedirect: string | undefined;
  let index = 0;

  const endWord = () => {
    if (word === undefined) return;
    if (pendingRedirect !== undefined) {
      current.redirects.push({ operator: pendingRedirect, target: word });
      pendingRedirect = undefined;
    } else {
      current.words.push(word);
    }
    word = undefined;
  };
  const endCommand = (end: number, nextStart: number) => {
    endWord();
    const text = source.slice(current.start, end).trim();
    if (text !== "" && (current.words.length > 0 || current.redirects.length > 0)) {
      commands.push({ text, words: current.words, redirects: current.redirects });
    }
    current = { text: "", words: [], redirects: [], start: nextStart };
    pendingRedirect = undefined;
  };

  while (index < source.length) {
    const char = source[index]!;
    const next = source[index + 1];
    if (char === " " || char === "\t") {
      endWord();
      index++;
      continue;
    }
    if (char === "\\") {
      if (next === "\n") {
        index += 2;
        continue;
      }
      word = (word ?? "") + (next ?? "");
      index += 2;
      continue;
    }
    if (char === "#" && word === undefined) {
      while (index < source.length && source[index] !== "\n") index++;
      continue;
    }
    if (char === "'") {
      const close = source.indexOf("'", index + 1);
      const end = close === -1 ? source.length : close;
      word = (word ?? "") + source.slice(index + 1, end);
      index = end + 1;
      continue;
    }
    if (char === '"') {
      const [text, end] = readDoubleQuoted(source, index + 1);
      word = (word ?? "") + text;
      index = end + 1;
      continue;
    }
    if (char === "`" || (char === "$" && next === "(")) {
      const end = char === "`" ? closingBacktick(source, index + 1) : closingParen(source, index + 2);
      word = (word ?? "") + source.slice(index, end + 1);
      index = end + 1;
      continue;
    }
    const operator = controlOperatorAt(source, index);
    if (operator) {
      endCommand(index, index + operator.length);
      index += operator.length;
      continue;
    }
    const redirect = redirectOperatorAt(source, index);
    if (redirect) {
      // `2>` / `1>>`: a number right before the operator is the file descriptor, not a word.
      if (word !== undefined && /^\d+$/.test(word)) word = undefined;
      endWord();
      index += redirect.length;
      if ((redirect === ">&" || redirect === "<&") && /^[\d-]/.test(source.slice(index).trimStart())) {
        const match = /^\s*([\d-]+)/.exec(source.slice(index));
        index += match?.[0].length ?? 0;
        continue;
      }
      pendingRedirect = redirect;
      continue;
    }
    word = (word ?? "") + char;
    index++;
  }
  endCommand(source.length, source.length);
  return commands;
}

function readDoubleQuoted(source: string, start: number): [string, number] {
  let text = "";
  let index = start;
  while (index < source.length && source[index] !== '"') {
    const char = source[index]!;
    if (char === "\\" && index + 1 < source.length && '"\\$`\n'.includes(source[index + 1]!)) {
      if (source[index + 1] !== "\n") text += source[index + 1];
      index += 2;
      continue;
    }
    if (char === "$" && source[index + 1] === "(") {
      const end = closingParen(source, index + 2);
      text += source.slice(index, end + 1);
      index = end + 1;
      continue;
    }
    text += char;
    index++;
  }
  return [text, index];
}

function closingParen(source: string, start: number): number {
  let depth = 1;
  for (let index = start; index < source.length; index++) {
    const char = source[index];
    if (char === "(") depth++;
    if (char === ")" && --depth === 0) return index;
  }
  return source.length - 1;
}

function closingBacktick(source: string, start: number): number {
  for (let index = start; index < source.length; index++) {
    if (source[index] === "\\") index++;
    else if (source[index] === "`") return index;
  }
  return source.length - 1;
}

const CONTROL_OPERATORS = ["&&", "||", "|&", ";;", "|", ";", "\n", "(", ")"];

function controlOperatorAt(source: string, index: number): string | undefined {
  const ampersand = source[index] === "&" && source[index + 1] !== ">" && source[index + 1] !== "&" ? "&" : undefined;
  return CONTROL_OPERATORS.find((operator) => source.startsWith(operator, index)) ?? ampersand;
}

const REDIRECT_OPERATORS = ["&>>", "<<<", "&>", ">>", ">|", ">&", "<&", "<<", "<>", ">", "<"];

function redirectOperatorAt(source: string, index: number): string | undefined {
  return REDIRECT_OPERATORS.find((operator) => source.startsWith(operator, index));
}

/** Whether any command writes a file through `>`, `>>`, `>|`, `&>` or `<>` (`/dev/null` aside). */
export function hasWriteRedirection(commands: SimpleCommand[]): boolean {
  return commands.some((command) => command.redirects.some(isFileWrite));
}

function isFileWrite(redirect: Redirect): boolean {
  return [">", ">>", ">|", "&>", "&>>", "<>"].includes(redirect.operator) && redirect.target !== "/dev/null";
}

const READ_ONLY_COMMANDS = new Set([
  "cat", "ls", "pwd", "echo", "printf", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "which", "type", "file",
  "stat", "du", "df", "tree", "date", "whoami", "uname", "env", "printenv", "true", "false", "test", "[", "diff", "cmp",
  "less", "more", "sort", "uniq", "cut", "tr", "basename", "dirname", "realpath", "readlink", "id", "hostname", "nl", "jq",
]);
const READ_ONLY_GIT = new Set(["status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog", "grep"]);

/** A conservative guess at whether a command only reads: known read-only programs, no file writes. */
export function isReadOnly(command: SimpleCommand): boolean {
  if (command.redirects.some(isFileWrite)) return false;
  let start = 0;
  while (start < command.words.length && isAssignment(command.words[start]!)) start++;
  const [program, ...rest] = command.words.slice(start);
  if (program === undefined) return true;
  if (program === "git") return READ_ONLY_GIT.has(rest.find((word) => !word.startsWith("-")) ?? "");
  if (program === "find") return !rest.some((word) => ["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf", "-fls"].includes(word));
  if (program === "sort") return !rest.some((word) => word === "-o" || word.startsWith("--output"));
  if (program === "sed") return !rest.some((word) => word.startsWith("-i") || word === "--in-place");
  return READ_ONLY_COMMANDS.has(program);
}

function isAssignment(word: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);
}

const URL_PATTERN = /\b(?:https?|ftp|wss?):\/\/[^\s'"<>`]+/g;

/** The URLs named anywhere in the command line. */
export function findUrls(source: string): string[] {
  return [...new Set(source.match(URL_PATTERN) ?? [])];
}

/** Words that look like file paths: redirection targets, words with `/`, `.`/`~` prefixes or a file extension. */
export function pathCandidates(commands: SimpleCommand[]): string[] {
  const candidates: string[] = [];
  for (const command of commands) {
    command.words.forEach((word, index) => {
      const value = word.startsWith("-") && word.includes("=") ? word.slice(word.indexOf("=") + 1) : word;
      if (index === 0 && !value.includes("/")) return;
      if (looksLikePath(value)) candidates.push(value);
    });
    for (const redirect of command.redirects) {
      if (redirect.operator === "<<" || redirect.operator === "<<<") continue;
      if (redirect.target !== "/dev/null") candidates.push(redirect.target);
    }
  }
  return candidates.map(expandVariables).filter((candidate): candidate is string => candidate !== undefined);
}

function looksLikePath(word: string): boolean {
  if (word === "" || word.startsWith("-") || /^[a-z][a-z0-9+.-]*:\/\//i.test(word)) return false;
  if (word === "." || word === ".." || word === "~") return true;
  if (word.startsWith("./") || word.startsWith("../") || word.startsWith("~/") || word.startsWith("/")) return true;
  if (word.includes("/") && !/\s/.test(word)) return true;
  return /^[\w@%+,-][\w@%+,.-]*\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(word);
}

// `$HOME` / `${HOME}` expand; anything else dynamic (other variables, `$(…)`, backticks) is skipped.
function expandVariables(word: string): string | undefined {
  const expanded = word.replace(/\$\{HOME\}|\$HOME\b/g, homedir());
  if (/[$`]/.test(expanded)) return undefined;
  return expanded;
}

/**
 * The `shell` permission request for a command line: its simple commands, the paths and URLs it
 * names (paths resolved against the working directory; ones that escape it through `..` or a
 * symlink as their real path) and whether it redirects output into a file.
 *
 * @example
 * await shellPermissionRequest("cat ../secret > copy.txt", "Copy the secret", "/work/repo");
 * // { kind: "shell", fullCommandText: "cat ../secret > copy.txt", intention: "Copy the secret",
 * //   commands: [{ identifier: "cat ../secret > copy.txt", readOnly: false }],
 * //   possiblePaths: ["/work/secret", "/work/repo/copy.txt"], possibleUrls: [],
 * //   hasWriteFileRedirection: true, canOfferSessionApproval: false }
 */
export async function shellPermissionRequest(command: string, description: string, workingDirectory: string): Promise<ToolPermissionRequest> {
  const commands = splitCommandLine(command);
  const possiblePaths: string[] = [];
  for (const candidate of pathCandidates(commands)) {
    const resolved = await resolveToolPath(candidate, workingDirectory);
    if (!possiblePaths.includes(resolved)) possiblePaths.push(resolved);
  }
  return {
    kind: "shell",
    fullCommandText: command,
    intention: description,
    commands: commands.map((each) => ({ identifier: each.text, readOnly: isReadOnly(each) })),
    possiblePaths,
    possibleUrls: findUrls(command).map((url) => ({ url })),
    hasWriteFileRedirection: hasWriteRedirection(commands),
    canOfferSessionApproval: false,
  };
}
