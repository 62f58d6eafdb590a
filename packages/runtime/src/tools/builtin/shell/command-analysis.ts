import type { Node } from "web-tree-sitter";
import type { BashSyntaxParser } from "./bash-parser.js";
import { arbitraryCodeIdentifier, commandHazard, declarationHazard, evaluationHazard } from "./evaluation-hazards.js";
import { isHarmlessAssignment, isReadOnlyCommand, type ShellWord } from "./read-only.js";
import { joinedValues, looksLikePath, shellWord, wordValue } from "./shell-words.js";
import { commandRole } from "./wrappers.js";

/** One command a command line will run, as the `shell` permission request shows it. */
export type ShellCommandEntry = {
  /** Its source text. */
  identifier: string;
  /** Whether it only reads (a conservative guess: false whenever in doubt). */
  readOnly: boolean;
};

/** Everything a `shell` permission request needs to know about a command line. */
export interface CommandLineAnalysis {
  /** Every command that will run, outer ones before the ones they contain; no identifier twice. */
  commands: ShellCommandEntry[];
  /** Words that look like file paths, and file redirection targets, as written (`$HOME` expanded). */
  pathCandidates: string[];
  /** Whether any command, anywhere, redirects output into a file (`/dev/null` aside). */
  writesFile: boolean;
  /** Evaluations of values not known before the line runs, which may run any command (see {@link evaluationHazard}). */
  hazards: string[];
  /**
   * Whether the line may change the state of the shell it runs in (functions, aliases, variables
   * such as `PATH`, traps, options, the working directory): it defines a function, or a command
   * that is not read-only is anything but an external program or a builtin that only prints.
   * Conservative: a builtin counts even inside a subshell or `bash -c`.
   */
  changesShellState: boolean;
}

/** How deep `bash -c '…'` and `eval '…'` strings are parsed; deeper ones are not read-only. */
const MAX_NESTING = 4;

const FILE_WRITE_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);

/** A command found in the tree, before the verdicts of what it contains are known. */
interface Draft {
  identifier: string;
  /**
   * The program of a simple command, when known; `""` for other entries (assignments,
   * declarations, arbitrary-code markers, unparsed text), which all may change the shell.
   */
  program?: string;
  /** Read-only as far as the command itself goes. */
  own: boolean;
  /** Commands inside it (substitutions, wrapped commands, scripts) that must be read-only too. */
  inner: Draft[];
  /** The function it calls, when its name is a function defined in its scope. */
  calls?: FunctionKey;
  /** The function whose body it is in. */
  inFunction?: FunctionKey;
}

/** The functions of one shell (a `bash -c` script is another shell, an `eval` string is not). */
interface Scope {
  functions: Set<string>;
  /** Some variable is given the integer attribute (`declare -i`): assignments may be arithmetic. */
  integerVariables: boolean;
  /** Values assigned literally in the script (`x='a[$(cmd)]'`), by variable name. */
  literals: Map<string, string[]>;
}
type FunctionKey = { scope: Scope; name: string };

interface Context {
  scope: Scope;
  depth: number;
  /** The command whose words are being walked; commands found inside become its inner ones. */
  owner: Draft | undefined;
  inFunction: FunctionKey | undefined;
  /** An enclosing compound command writes its output to a file. */
  writes: boolean;
}

/**
 * Finds every command a bash command line will run, with a read-only verdict for each, from
 * its syntax tree: top-level commands, those in `$(…)`, backticks, `<(…)`/`>(…)`, unquoted
 * here-documents, assignments and redirection targets, subshells, groups, loops and
 * conditionals, function bodies (a call to a function is read-only when its body is), wrapped
 * commands (`timeout 5 cmd`, `xargs cmd`, `find -exec cmd ;`) and literal `bash -c` / `eval`
 * scripts, parsed in turn. A command whose name or script is not known before it runs, and any
 * part the parser cannot read, is listed as not read-only.
 *
 * @example
 * analyzeCommandLine("echo $(rm -f X)", syntax).commands;
 * // [{ identifier: "echo $(rm -f X)", readOnly: false }, { identifier: "rm -f X", readOnly: false }]
 */
export function analyzeCommandLine(source: string, syntax: BashSyntaxParser): CommandLineAnalysis {
  return new CommandLineWalker(syntax).analyze(source);
}

class CommandLineWalker {
  private readonly drafts: Draft[] = [];
  private readonly pathCandidates: string[] = [];
  private writesFile = false;
  private readonly hazards: string[] = [];
  private definesFunction = false;

  constructor(private readonly syntax: BashSyntaxParser) {}

  analyze(source: string): CommandLineAnalysis {
    this.parseScript(source, { scope: newScope(), depth: 0, owner: undefined, inFunction: undefined, writes: false });
    const verdicts = settle(this.drafts);
    const commands = entriesOf(this.drafts, verdicts);
    const changesShellState = this.definesFunction || this.drafts.some((draft) => !verdicts.get(draft) && mayChangeShell(draft));
    return { commands, pathCandidates: this.pathCandidates, writesFile: this.writesFile, hazards: this.hazards, changesShellState };
  }

  /** Walks one script: the command line itself, or a literal `bash -c` / `eval` string. */
  private parseScript(source: string, context: Context): void {
    const tree = this.syntax.parse(source);
    try {
      const root = tree.rootNode;
      if (root.hasError) this.add(source.trim(), false, context);
      for (const definition of root.descendantsOfType("function_definition")) {
        const name = definition?.childForFieldName("name")?.text;
        if (name !== undefined) context.scope.functions.add(name);
      }
      if (root.descendantsOfType("declaration_command").some((node) => node !== null && givesIntegerAttribute(node))) context.scope.integerVariables = true;
      for (const assignment of root.descendantsOfType("variable_assignment")) noteLiteral(assignment, context.scope);
      this.visit(root, context);
    } finally {
      tree.delete();
    }
  }

  private add(identifier: string, own: boolean, context: Context): Draft {
    const draft: Draft = { identifier, own, inner: [], ...(context.inFunction ? { inFunction: context.inFunction } : {}) };
    this.drafts.push(draft);
    context.owner?.inner.push(draft);
    return draft;
  }

  /**
   * Lists what an evaluation may run (see {@link evaluationHazard}) as a command inside the
   * current one, and the commands in the substitutions of `evaluated`, the values it will
   * evaluate that the script spells out (`x='a[$(cmd)]'; echo $((x))` runs `cmd`).
   */
  private addHazard(hazard: string | undefined, context: Context, evaluated: readonly string[] = []): void {
    if (hazard === undefined) return;
    this.hazards.push(hazard);
    const marker = this.add(arbitraryCodeIdentifier(hazard), false, context);
    if (context.depth >= MAX_NESTING) return;
    for (const expression of evaluated) {
      if (!/\$\(|`/.test(expression)) continue;
      const tree = this.syntax.parse(`(( ${expression} ))`);
      try {
        const inner: Context = { ...context, owner: marker, depth: context.depth + 1, writes: false };
        for (const substitution of tree.rootNode.descendantsOfType("command_substitution")) {
          if (substitution) this.visit(substitution, inner);
        }
      } finally {
        tree.delete();
      }
    }
  }

  /** The literal values of the variables `node` names (`$x`, `${x}`, a bare `x` in arithmetic). */
  private literalsNamedIn(node: Node, scope: Scope): string[] {
    const names = new Set(node.descendantsOfType(["variable_name", "word"]).map((name) => name?.text ?? ""));
    return [...names].flatMap((name) => scope.literals.get(name) ?? []);
  }

  private visit(node: Node, context: Context): void {
    // Assignments are judged where their statement or command is, so the hazard lands inside it.
    if (node.type !== "variable_assignment") this.addHazard(evaluationHazard(node, context.scope.integerVariables), context, this.literalsNamedIn(node, context.scope));
    switch (node.type) {
      case "comment":
      case "heredoc_start":
      case "heredoc_end":
        return;
      case "command":
        return this.visitCommand(node, node.text, [], context);
      case "redirected_statement":
        return this.visitRedirected(node, context);
      case "function_definition": {
        this.definesFunction = true;
        const nameNode = node.childForFieldName("name");
        const inFunction = { scope: context.scope, name: nameNode?.text ?? "" };
        for (const child of namedChildren(node)) {
          if (child.id !== nameNode?.id) this.visit(child, { ...context, owner: undefined, inFunction });
        }
        return;
      }
      case "variable_assignment":
      case "variable_assignments":
      case "declaration_command":
      case "unset_command":
      case "test_command": {
        const draft = this.add(node.text, statementIsReadOnly(node) && !context.writes, context);
        const inner = { ...context, owner: draft };
        const declared = node.type === "declaration_command" || node.type === "unset_command" ? declarationHazard(node) : undefined;
        this.addHazard(declared, inner);
        for (const child of node.type === "variable_assignment" ? [node] : namedChildren(node)) {
          if (child.type !== "variable_assignment") {
            this.visit(child, inner);
            continue;
          }
          // An assignment inside `export A=…` or `a=1 b=2` is part of this entry, not one of its own.
          if (declared === undefined) this.addHazard(evaluationHazard(child, context.scope.integerVariables), inner);
          for (const part of namedChildren(child)) this.visit(part, inner);
        }
        return;
      }
      case "command_substitution":
      case "process_substitution":
        // Their output goes to the command around them, not to its redirections.
        for (const child of namedChildren(node)) this.visit(child, { ...context, writes: false });
        return;
      case "file_redirect":
      case "heredoc_redirect":
      case "herestring_redirect":
        this.noteRedirect(node);
        break;
    }
    for (const child of namedChildren(node)) this.visit(child, context);
  }

  /** `cmd > file`, `{ …; } < in`, `while …; done > out`: the redirections apply to the body. */
  private visitRedirected(node: Node, context: Context): void {
    const body = node.childForFieldName("body");
    const redirects = namedChildren(node).filter((child) => child.id !== body?.id);
    if (body) this.visitRedirectedBody(body, redirects, node, context);
    else for (const redirect of redirects) this.visit(redirect, context);
  }

  /**
   * The grammar hangs `a && b > out` and `a | b > out` on the whole list or pipeline, where
   * bash gives the redirections to its last command (`b > out`) alone.
   */
  private visitRedirectedBody(body: Node, redirects: Node[], statement: Node, context: Context): void {
    if (body.type === "list" || body.type === "pipeline") {
      const parts = namedChildren(body);
      const last = parts.pop();
      for (const part of parts) this.visit(part, context);
      if (last) this.visitRedirectedBody(last, redirects, statement, context);
      return;
    }
    const writes = context.writes || redirects.some(writesToFile);
    const source = statement.tree.rootNode.text;
    if (body.type === "command") return this.visitCommand(body, source.slice(body.startIndex, statement.endIndex), redirects, { ...context, writes });
    this.visit(body, { ...context, writes });
    for (const redirect of redirects) this.visit(redirect, context);
  }

  /**
   * One simple command: an entry named `identifier`, the commands in its words
   * as its inner ones, and, for wrappers, shells and `eval`, the commands they run.
   */
  private visitCommand(node: Node, identifier: string, outerRedirects: Node[], context: Context): void {
    const children = namedChildren(node);
    const redirects = [...outerRedirects, ...children.filter(isRedirect)];
    const writes = context.writes || redirects.some(writesToFile);
    const wordNodes = [node.childForFieldName("name"), ...node.childrenForFieldName("argument")].filter((child): child is Node => child !== null);
    const draft = this.add(identifier, !writes, context);
    const inner: Context = { ...context, owner: draft, writes };
    this.notePaths(wordNodes);
    // Its own children (assignments, words, redirections, the `( … )` of `time ( … )`), then the redirections around it.
    for (const child of [...children, ...outerRedirects]) {
      if (child.type !== "variable_assignment") {
        this.visit(child, inner);
        continue;
      }
      if (!isHarmlessAssignment(child.childForFieldName("name")?.text ?? "")) draft.own = false;
      this.addHazard(evaluationHazard(child, context.scope.integerVariables), inner);
      for (const value of namedChildren(child)) this.visit(value, inner);
    }
    const values = wordNodes.map((word) => shellWord(word).value);
    this.addHazard(commandHazard(identifier, values), inner, values.filter((value): value is string => value !== undefined));
    this.judge(draft, wordNodes, node.tree.rootNode.text, inner);
  }

  /** Sets the verdict of a command from its words, adding what wrappers, shells and `eval` run. */
  private judge(draft: Draft, wordNodes: Node[], source: string, context: Context): void {
    const words = wordNodes.map(shellWord);
    const program = words[0]?.value;
    if (program === undefined || words[0]?.pattern) {
      draft.own = draft.own && words.length === 0;
      return;
    }
    draft.program = program === "printf" && words[1]?.value !== undefined && !words[1].value.startsWith("-v") ? "echo" : program;
    if (context.scope.functions.has(program)) {
      draft.calls = { scope: context.scope, name: program };
      return;
    }
    const role = commandRole(words);
    switch (role?.kind) {
      case undefined:
        draft.own &&= isReadOnlyCommand(words);
        return;
      case "source":
        draft.own = false;
        return;
      case "wrapper": {
        if (role.inner === undefined) {
          // `command -v git` only describes; `env` alone prints the environment.
          draft.own &&= program === "command" || isReadOnlyCommand(words);
          return;
        }
        if (!role.transparent || !harmlessWrapperWords(words.slice(0, role.inner))) draft.own = false;
        return this.addWrapped(wordNodes.slice(role.inner), source, context);
      }
      case "find":
        draft.own &&= isReadOnlyCommand(words);
        for (const [start, end] of role.commands) this.addWrapped(wordNodes.slice(start, end), source, context);
        return;
      case "shell":
      case "eval": {
        const script = role.kind === "eval" ? joinedValues(words.slice(1)) : role.script === undefined ? undefined : words[role.script]?.value;
        const shellOptionsKnown = role.kind === "eval" || words.slice(1, role.script).every((word) => /^-[ceuxv]+$/.test(word.value ?? ""));
        if (script === undefined || !shellOptionsKnown || context.depth >= MAX_NESTING) {
          draft.own = false;
          return;
        }
        const scope = role.kind === "eval" ? context.scope : newScope();
        return this.parseScript(script, { scope, depth: context.depth + 1, owner: draft, inFunction: context.inFunction, writes: context.writes });
      }
    }
  }

  /** A command given as words of another (`timeout 5 rm x`: `rm x`), judged in turn. */
  private addWrapped(wordNodes: Node[], source: string, context: Context): void {
    const first = wordNodes[0];
    const last = wordNodes.at(-1);
    if (!first || !last || !context.owner) return;
    const draft = this.add(source.slice(first.startIndex, last.endIndex), !context.writes, context);
    this.judge(draft, wordNodes, source, { ...context, owner: draft });
  }

  private noteRedirect(node: Node): void {
    if (isFileWrite(node)) this.writesFile = true;
    if (node.type !== "file_redirect") return;
    const destination = node.childForFieldName("destination");
    if (!destination || isDescriptorDuplication(node)) return;
    const value = shellWord(destination).value;
    if (value !== undefined && value !== "/dev/null") this.pathCandidates.push(value);
  }

  private notePaths(wordNodes: Node[]): void {
    wordNodes.forEach((node, index) => {
      const word = shellWord(node).value;
      if (word === undefined) return;
      const value = word.startsWith("-") && word.includes("=") ? word.slice(word.indexOf("=") + 1) : word;
      if (index === 0 && !value.includes("/")) return;
      if (looksLikePath(value)) this.pathCandidates.push(value);
    });
  }
}

/** The verdicts: a command is read-only when it, everything inside it and any function it calls are. */
function settle(drafts: Draft[]): Map<Draft, boolean> {
  const verdict = new Map(drafts.map((draft) => [draft, draft.own]));
  const functionReadOnly = (key: FunctionKey) =>
    drafts.every((draft) => !draft.inFunction || draft.inFunction.scope !== key.scope || draft.inFunction.name !== key.name || verdict.get(draft));
  // Verdicts only ever turn false, so this ends; recursion between functions needs the repeats.
  for (let changed = true; changed; ) {
    changed = false;
    for (const draft of drafts) {
      if (!verdict.get(draft)) continue;
      const readOnly = draft.inner.every((inner) => verdict.get(inner)) && (!draft.calls || functionReadOnly(draft.calls));
      if (!readOnly) {
        verdict.set(draft, false);
        changed = true;
      }
    }
  }
  return verdict;
}

/** One entry per identifier, read-only only when every command with that text is. */
function entriesOf(drafts: Draft[], verdict: Map<Draft, boolean>): ShellCommandEntry[] {
  const entries = new Map<string, ShellCommandEntry>();
  for (const draft of drafts) {
    const readOnly = verdict.get(draft) ?? false;
    const seen = entries.get(draft.identifier);
    if (seen) seen.readOnly &&= readOnly;
    else entries.set(draft.identifier, { identifier: draft.identifier, readOnly });
  }
  return [...entries.values()];
}

// `timeout 5`, `nice -n 5`, `env -i LANG=C`: options that change nothing but timing, priority or
// harmless variables. `env -S …` (a command line of its own) and `env PATH=…` are not harmless.
function harmlessWrapperWords(words: ShellWord[]): boolean {
  if (words.some((word) => word.value === undefined || word.pattern)) return false;
  if (words[0]?.value !== "env") return true;
  return words.slice(1).every((word, index, rest) => {
    const value = word.value ?? "";
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(value);
    if (assignment) return isHarmlessAssignment(assignment[1]!);
    return ["-i", "--ignore-environment", "-u", "--unset", "-"].includes(value) || value.startsWith("--unset=") || ["-u", "--unset"].includes(rest[index - 1]?.value ?? "");
  });
}

function statementIsReadOnly(node: Node): boolean {
  switch (node.type) {
    case "variable_assignment":
      return isHarmlessAssignment(node.childForFieldName("name")?.text ?? "");
    case "variable_assignments":
      return namedChildren(node).every(statementIsReadOnly);
    case "test_command":
      return true;
    case "declaration_command": {
      // `local x=1`, `declare x`: harmless; `export`, `readonly`, and options (`-x`, `-f`) are not.
      const keyword = node.child(0)?.text ?? "";
      const rest = namedChildren(node);
      return (
        ["local", "declare", "typeset"].includes(keyword) &&
        rest.every((child) => (child.type === "variable_assignment" ? statementIsReadOnly(child) : child.type === "variable_name" && isHarmlessAssignment(child.text)))
      );
    }
    default:
      return false;
  }
}

function namedChildren(node: Node): Node[] {
  return node.namedChildren.filter((child): child is Node => child !== null);
}

function isRedirect(node: Node): boolean {
  return node.type === "file_redirect" || node.type === "heredoc_redirect" || node.type === "herestring_redirect";
}

function redirectOperator(node: Node): string {
  return node.children.find((child) => child !== null && !child.isNamed)?.text ?? "";
}

// `2>&1`, `>&2`, `<&-`: a file descriptor, not a file.
function isDescriptorDuplication(node: Node): boolean {
  const operator = redirectOperator(node);
  const destination = node.childForFieldName("destination");
  return (operator === ">&" || operator === "<&") && (destination?.type === "number" || /^-$|^\d+-?$/.test(destination?.text ?? ""));
}

/** Builtins that only print or test (`printf` without `-v` is recorded as `echo`). */
const PRINTING_BUILTINS = new Set(["echo", "test", "[", "true", "false", ":", "pwd", "type", "help", "times", "jobs", "kill", "caller", "compgen", "dirs"]);

/** The other builtins and keywords: they run in the shell itself and may change its state. */
const STATEFUL_BUILTINS = new Set([
  ".", "alias", "bg", "bind", "break", "builtin", "cd", "command", "complete", "compopt", "continue", "coproc", "declare", "disown", "enable",
  "eval", "exec", "exit", "export", "fc", "fg", "getopts", "hash", "history", "let", "local", "logout", "mapfile", "popd", "printf", "pushd",
  "read", "readarray", "readonly", "return", "select", "set", "shift", "shopt", "source", "suspend", "time", "trap", "typeset", "ulimit",
  "umask", "unalias", "unset", "wait",
]);

// An external program runs in a process of its own and cannot change the shell; a function call is
// judged by its body, whose commands are entries of their own.
function mayChangeShell(draft: Draft): boolean {
  if (draft.calls) return false;
  const program = draft.program ?? "";
  if (program === "" || STATEFUL_BUILTINS.has(program)) return true;
  return !PRINTING_BUILTINS.has(program) && !/^[\w.+-][\w.+\/-]*$/.test(program);
}

function newScope(): Scope {
  return { functions: new Set(), integerVariables: false, literals: new Map() };
}

function noteLiteral(assignment: Node | null, scope: Scope): void {
  const name = assignment?.childForFieldName("name");
  const value = assignment?.childForFieldName("value");
  if (name?.type !== "variable_name" || !value) return;
  const literal = wordValue(value);
  if (literal === undefined) return;
  scope.literals.set(name.text, [...(scope.literals.get(name.text) ?? []), literal]);
}

function givesIntegerAttribute(declaration: Node): boolean {
  return namedChildren(declaration).some((child) => child.type === "word" && /^-[a-zA-Z]*i/.test(child.text));
}

/** A redirection into a file, or a here-document whose line goes on with one (`cat <<EOF > f`). */
function writesToFile(node: Node): boolean {
  if (node.type === "heredoc_redirect") return namedChildren(node).some(isFileWrite);
  return isFileWrite(node);
}

function isFileWrite(node: Node): boolean {
  if (node.type !== "file_redirect" || isDescriptorDuplication(node)) return false;
  if (!FILE_WRITE_OPERATORS.has(redirectOperator(node))) return false;
  const destination = node.childForFieldName("destination");
  return !destination || shellWord(destination).value !== "/dev/null";
}
