/** Reading the words of a bash syntax tree as the shell will pass them to a program. */
import { homedir } from "../../../node-os.js";
import type { Node } from "web-tree-sitter";
import type { ShellWord } from "./read-only.js";

/** A word as the shell will pass it: quotes and escapes removed; `$HOME` known, other expansions not. */
export function shellWord(node: Node): ShellWord {
  return { value: wordValue(node), pattern: isPattern(node) };
}

/** The text of a word with quotes and escapes removed, or undefined when it holds an expansion other than `$HOME`. */
export function wordValue(node: Node): string | undefined {
  switch (node.type) {
    case "word":
    case "command_name":
      if (node.type === "command_name") {
        const [only] = namedChildren(node);
        return only ? wordValue(only) : undefined;
      }
      return node.text.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
    case "number":
      return node.namedChildCount === 0 ? node.text : undefined;
    case "raw_string":
      return node.text.slice(1, -1);
    case "string": {
      let value = "";
      for (const child of namedChildren(node)) {
        const part = child.type === "string_content" ? child.text.replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1") : wordValue(child);
        if (part === undefined) return undefined;
        value += part;
      }
      return value;
    }
    case "concatenation": {
      let value = "";
      for (const child of namedChildren(node)) {
        const part = wordValue(child);
        if (part === undefined) return undefined;
        value += part;
      }
      return value;
    }
    case "simple_expansion":
    case "expansion":
      return /^\$\{?HOME\}?$/.test(node.text) ? homedir() : undefined;
    default:
      return undefined;
  }
}

// Unquoted `*`, `?`, `[…]` and `{a,b}` may expand to other words (option-looking ones included).
function isPattern(node: Node): boolean {
  if (node.type === "word") return /(^|[^\\])[*?[]|\{[^}]*(,|\.\.)[^}]*\}/.test(node.text);
  if (node.type === "concatenation" || node.type === "command_name") return namedChildren(node).some(isPattern) || /\{[^}]*,[^}]*\}/.test(node.text);
  return node.type === "extglob_pattern" || node.type === "brace_expression";
}

/** The words joined by spaces, as `eval` joins them; undefined when one is not known. */
export function joinedValues(words: ShellWord[]): string | undefined {
  const values = words.map((word) => word.value);
  return values.every((value): value is string => value !== undefined) && !words.some((word) => word.pattern) ? values.join(" ") : undefined;
}

/** Whether a word looks like a file path (`./a`, `src/x.ts`, `a.txt`), not a URL or an option. */
export function looksLikePath(word: string): boolean {
  if (word === "" || word.startsWith("-") || /^[a-z][a-z0-9+.-]*:\/\//i.test(word)) return false;
  if (word === "." || word === ".." || word === "~") return true;
  if (word.startsWith("./") || word.startsWith("../") || word.startsWith("~/") || word.startsWith("/")) return true;
  if (word.includes("/") && !/\s/.test(word)) return true;
  return /^[\w@%+,-][\w@%+,.-]*\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(word);
}

function namedChildren(node: Node): Node[] {
  return node.namedChildren.filter((child): child is Node => child !== null);
}
