import type { Node } from "web-tree-sitter";

/**
 * Where bash evaluates a value as code although no command is written: arithmetic evaluation and
 * variable names given as values.
 *
 * Arithmetic (`$((…))`, `$[…]`, `((…))`, `for ((…))`, the operands of `[[ a -eq b ]]`, `let`,
 * assignments to `declare -i` variables, array subscripts, `${x:offset:length}`) evaluates every
 * variable it names, recursively, as an expression, and an expression may hold an array
 * subscript with a command substitution: after `x='a[$(rm -rf ~)]'`, `echo $((x))` runs
 * `rm -rf ~`. Names given as values (`printf -v`, `read`, `unset`, `test -v`, `${!x}`,
 * `declare -n`) are evaluated the same way when they carry a subscript. So any such evaluation
 * of something other than a literal number may run any command; the request lists it with
 * {@link arbitraryCodeIdentifier} as a command that is not read-only.
 */

/** The `commands[]` identifier that stands for code an evaluation of `text` may run. */
export function arbitraryCodeIdentifier(text: string): string {
  return `arbitrary code via evaluation of: ${text}`;
}

const ARITHMETIC_TEST_OPERATORS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

/** Node types an expression of literal numbers is made of. */
const LITERAL_EXPRESSION_TYPES = new Set(["number", "binary_expression", "unary_expression", "parenthesized_expression", "ternary_expression"]);

/** Builtins that take variable names as arguments and evaluate their subscripts. */
const NAME_TAKING_BUILTINS = new Set(["read", "mapfile", "readarray", "unset", "getopts", "wait", "test", "[", "printf"]);

/**
 * The text of the evaluation `node` performs that may run code, when it is one: an arithmetic
 * expression of anything but literal numbers, a non-literal subscript, an indirect expansion of
 * an unknown name. `integerVariables` says an integer attribute (`declare -i`) is given somewhere
 * in the script, so assignments of unknown values may be arithmetic too.
 *
 * @example
 * evaluationHazard(parse("echo $((x))").arithmeticNode, false); // "$((x))"
 * evaluationHazard(parse("echo $((1+2))").arithmeticNode, false); // undefined
 */
export function evaluationHazard(node: Node, integerVariables: boolean): string | undefined {
  switch (node.type) {
    case "arithmetic_expansion":
      return namedChildren(node).every(isLiteralExpression) ? undefined : node.text;
    case "c_style_for_statement": {
      const header = namedChildren(node).filter((child) => child.type !== "do_group" && child.type !== "compound_statement");
      return header.every(isLiteralExpression) ? undefined : node.text.slice(0, node.text.indexOf("))") + 2);
    }
    case "binary_expression": {
      // `[[ $x -eq 1 ]]`: both operands are arithmetic expressions (`[ … ]` only takes integers).
      const operator = namedChildren(node).find((child) => child.type === "test_operator");
      if (!operator || !ARITHMETIC_TEST_OPERATORS.has(operator.text) || enclosingTest(node) === "[") return undefined;
      const operands = namedChildren(node).filter((child) => child.id !== operator.id);
      return operands.every((operand) => isLiteralNumber(operand.text)) ? undefined : node.text;
    }
    case "unary_expression": {
      // `[[ -v a[$i] ]]`, `[[ -v $name ]]`: the name's subscript is evaluated.
      const [operator, operand] = namedChildren(node);
      if (operator?.type !== "test_operator" || operator.text !== "-v" || !operand) return undefined;
      return isPlainName(operand) ? undefined : node.text;
    }
    case "subscript": {
      const index = namedChildren(node)[1];
      return !index || isLiteralNumber(index.text) || index.text === "@" || index.text === "*" ? undefined : node.text;
    }
    case "expansion":
      return expansionHazard(node);
    case "command_substitution":
      // In here-document bodies the grammar reads `$((x))` as `$( (x) )`.
      if (!node.text.startsWith("$((") || !node.text.endsWith("))")) return undefined;
      return /^\$\(\([\s\d+\-*/%<>=!&|^~?:()]*\)\)$/.test(node.text) ? undefined : node.text;
    case "variable_assignment": {
      const value = node.childForFieldName("value");
      if (!integerVariables || !value || isLiteralNumber(value.text)) return undefined;
      return node.text;
    }
    case "array":
      // `a=([$i]=x)`: the subscripts of an indexed array are arithmetic.
      return namedChildren(node).some((element) => element.text.startsWith("[") && !/^\[\s*\d+\s*\]=/.test(element.text)) ? node.text : undefined;
    default:
      return undefined;
  }
}

/**
 * The text of a declaration (`declare -i n=$v`, `declare -n ref=$v`, `unset a[$i]`) whose names
 * or values are evaluated, when they may run code.
 */
export function declarationHazard(node: Node): string | undefined {
  const children = namedChildren(node);
  const options = children.filter((child) => child.type === "word" && child.text.startsWith("-")).map((child) => child.text);
  const integer = options.some((option) => /^-[a-zA-Z]*i/.test(option));
  const reference = options.some((option) => /^-[a-zA-Z]*n/.test(option));
  for (const child of children) {
    if (child.type === "variable_assignment") {
      const value = child.childForFieldName("value");
      if (value && (integer || reference) && !isLiteralNumber(value.text) && !(reference && /^[A-Za-z_]\w*$/.test(value.text))) return node.text;
      continue;
    }
    if (child.type === "word" && child.text.startsWith("-")) continue;
    // `unset a[$i]`, `unset "$name"`, `export "$name"`: a name not known, or with a subscript.
    if (!isSafeName(child.text) && !(child.type === "word" && /^[\w.:-]+$/.test(child.text))) return node.text;
  }
  return undefined;
}

/**
 * The text of a simple command whose arguments are variable names bash evaluates (`printf -v`,
 * `read`, `unset`, `test -v`, `let`), when one of them may run code. `values` are the words as
 * the shell passes them (undefined when not known before the command runs).
 */
export function commandHazard(text: string, values: ReadonlyArray<string | undefined>): string | undefined {
  const [program, ...args] = values;
  if (program === undefined) return undefined;
  if (program === "let") return args.every((arg) => arg !== undefined && isLiteralNumber(arg)) ? undefined : text;
  if (!NAME_TAKING_BUILTINS.has(program)) return undefined;
  const names = namesTakenBy(program, args);
  return names.every((name) => name !== undefined && isSafeName(name)) ? undefined : text;
}

/** Options of `read`, `mapfile` and `wait` whose value is not a name (`read -d '' line`). */
const VALUE_OPTIONS: Readonly<Record<string, string>> = { read: "dinNptu", mapfile: "dnOsuC", readarray: "dnOsuC", wait: "" };

// Which arguments are names: the operands of read/unset/…, the value of `printf -v`, `test -v`'s operand.
function namesTakenBy(program: string, args: ReadonlyArray<string | undefined>): Array<string | undefined> {
  if (program === "printf") return args[0] === "-v" ? [args[1]] : args[0] === undefined ? [undefined] : [];
  if (program === "getopts") return [args[1]];
  if (program === "test" || program === "[") return args.flatMap((arg, index) => (arg === "-v" ? [args[index + 1]] : []));
  const withValue = VALUE_OPTIONS[program] ?? "";
  const names: Array<string | undefined> = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === undefined || !arg.startsWith("-")) {
      names.push(arg);
      continue;
    }
    // `-d ''`: the value is the next word unless attached; `-a NAME` and `-p NAME` (wait) name a variable.
    const last = arg.at(-1) ?? "";
    if (arg.length === 2 && withValue.includes(last)) index++;
  }
  return names;
}

/** `${!name}`: the value of `name` is a name, evaluated; `${x:off:len}`: offsets are arithmetic. */
function expansionHazard(node: Node): string | undefined {
  const children = node.children.filter((child): child is Node => child !== null);
  const operators = children.filter((child) => !child.isNamed).map((child) => child.text);
  if (operators[1] === "!") {
    const target = namedChildren(node)[0];
    // `${!prefix*}` and `${!a[@]}` list names and keys; they evaluate nothing.
    const listsNames = operators.includes("*") || operators.includes("@") || target?.type === "subscript";
    return listsNames ? undefined : node.text;
  }
  const colon = children.findIndex((child) => !child.isNamed && child.text === ":");
  if (colon === -1) return undefined;
  const offsets = children.slice(colon + 1).filter((child) => child.isNamed);
  return offsets.every((offset) => isLiteralNumber(offset.text)) ? undefined : node.text;
}

// `[[` or `[`: the brackets of the test a test expression is part of.
function enclosingTest(node: Node): string | undefined {
  for (let current = node.parent; current; current = current.parent) {
    if (current.type === "test_command") return current.child(0)?.text;
  }
  return undefined;
}

function isLiteralExpression(node: Node): boolean {
  if (isAlwaysNumber(node.text)) return true;
  if (!LITERAL_EXPRESSION_TYPES.has(node.type)) return false;
  if (node.type === "number") return isLiteralNumber(node.text);
  return namedChildren(node).every(isLiteralExpression);
}

function isLiteralNumber(text: string): boolean {
  return /^\s*[-+]?\d+\s*$/.test(text) || isAlwaysNumber(text);
}

// `$?`, `$#`, `$$`, `$!` and a length `${#name}` are numbers whatever the shell holds.
function isAlwaysNumber(text: string): boolean {
  return /^\s*"?(\$[#?$!]|\$\{[#?$!]\}|\$\{#[A-Za-z_]\w*\})"?\s*$/.test(text);
}

function isPlainName(node: Node): boolean {
  return (node.type === "word" || node.type === "variable_name") && isSafeName(node.text);
}

// A name without a subscript, or with a literal one.
function isSafeName(name: string): boolean {
  return /^[A-Za-z_]\w*(\[\s*(\d+|@|\*)\s*\])?$/.test(name);
}

function namedChildren(node: Node): Node[] {
  return node.namedChildren.filter((child): child is Node => child !== null);
}
