import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import { globFilter } from "./glob-pattern.js";
import { walkFiles, type WalkedFile } from "./walk.js";

/** One grep search, in ripgrep's terms. */
export interface GrepQuery {
  pattern: string;
  mode: "content" | "files_with_matches" | "count";
  caseInsensitive: boolean;
  /** Patterns may span lines and `.` matches newlines (`rg -U --multiline-dotall`). */
  multiline: boolean;
  lineNumbers: boolean;
  before: number;
  after: number;
  globs: string[];
  /** A ripgrep file type (`ts`, `py`, …). */
  type?: string;
}

/** Where to search: a folder or one file, and how its files are named in the output. */
export interface GrepTarget {
  path: string;
  isFile: boolean;
  /** "." (paths print as `./a/b`) or the absolute path (paths print as `/abs/a/b`). */
  display: string;
}

/** The output lines, or an error text in ripgrep's words. */
export type GrepOutput = { lines: string[] } | { error: string };

/** File types the Node search knows (a subset of `rg --type-list`). */
export const FILE_TYPES: Record<string, string[]> = {
  c: ["*.c", "*.h"],
  cpp: ["*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h"],
  cs: ["*.cs"],
  css: ["*.css", "*.scss", "*.sass", "*.less"],
  go: ["*.go"],
  html: ["*.html", "*.htm"],
  java: ["*.java"],
  js: ["*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"],
  json: ["*.json", "*.jsonl"],
  kotlin: ["*.kt", "*.kts"],
  markdown: ["*.md", "*.markdown", "*.mdx"],
  md: ["*.md", "*.markdown", "*.mdx"],
  php: ["*.php"],
  py: ["*.py", "*.pyi"],
  ruby: ["*.rb", "*.gemspec", "Gemfile", "Rakefile"],
  rust: ["*.rs"],
  sh: ["*.sh", "*.bash", "*.zsh", ".bashrc", ".zshrc"],
  sql: ["*.sql"],
  swift: ["*.swift"],
  toml: ["*.toml"],
  ts: ["*.ts", "*.tsx", "*.mts", "*.cts"],
  txt: ["*.txt"],
  xml: ["*.xml"],
  yaml: ["*.yaml", "*.yml"],
};

const MAX_FILE_BYTES = 10 * 1024 * 1024;

/**
 * ripgrep's search in plain Node, for machines without `rg`: same output shapes
 * (`path:line:text`, `path-line-text` context lines, `--` between groups, `path:count`).
 *
 * @example
 * await nodeGrep({ pattern: "TODO", mode: "content", lineNumbers: true, ... }, { path: cwd, isFile: false, display: "." }, signal);
 */
export async function nodeGrep(query: GrepQuery, target: GrepTarget, signal: AbortSignal): Promise<GrepOutput> {
  const regex = compile(query);
  if ("error" in regex) return regex;
  if (query.type !== undefined && !FILE_TYPES[query.type]) return { error: `rg: unrecognized file type: ${query.type}` };
  const typeFilter = query.type !== undefined ? globFilter(FILE_TYPES[query.type]!) : () => true;
  const globs = globFilter(query.globs);
  const files: AsyncIterable<WalkedFile> | WalkedFile[] = target.isFile
    ? [{ path: target.path, relative: basename(target.path) }]
    : walkFiles(target.path, { signal });
  const lines: string[] = [];
  const withContext = query.mode === "content" && (query.before > 0 || query.after > 0);
  for await (const file of files) {
    if (signal.aborted) break;
    if (!target.isFile && (!typeFilter(file.relative) || !globs(file.relative))) continue;
    const text = await readText(file.path);
    if (text === undefined) continue;
    const fileLines = text.split("\n");
    if (fileLines.at(-1) === "") fileLines.pop();
    const matched = matchingLines(text, fileLines, regex.value, query.multiline);
    if (matched.length === 0) continue;
    const name = target.isFile ? target.display : `${target.display}/${file.relative}`;
    if (query.mode === "files_with_matches") {
      lines.push(name);
      continue;
    }
    if (query.mode === "count") {
      lines.push(`${name}:${matched.length}`);
      continue;
    }
    if (withContext && lines.length > 0) lines.push("--");
    lines.push(...contentLines(name, fileLines, matched, query));
  }
  return { lines };
}

function compile(query: GrepQuery): { value: RegExp } | { error: string } {
  let pattern = query.pattern;
  let caseInsensitive = query.caseInsensitive;
  // Rust's inline flag group at the start, e.g. "(?i)todo".
  const inline = /^\(\?([imsx]+)\)/.exec(pattern);
  if (inline) {
    pattern = pattern.slice(inline[0].length);
    if (inline[1]!.includes("i")) caseInsensitive = true;
  }
  const flags = `${caseInsensitive ? "i" : ""}${query.multiline ? "gms" : ""}`;
  try {
    return { value: new RegExp(pattern, flags) };
  } catch (error) {
    return { error: `regex parse error: ${(error as Error).message}` };
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    if ((await stat(path)).size > MAX_FILE_BYTES) return undefined;
    const buffer = await readFile(path);
    // Like ripgrep, a NUL byte marks a binary file, which is not searched.
    if (buffer.subarray(0, 8192).includes(0)) return undefined;
    return buffer.toString("utf8");
  } catch {
    return undefined;
  }
}

/** Indexes of the lines with a match (for multiline patterns: every line a match touches). */
function matchingLines(text: string, lines: string[], regex: RegExp, multiline: boolean): number[] {
  if (!multiline) return lines.flatMap((line, index) => (regex.test(line) ? [index] : []));
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const lineOf = (position: number) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const matched = new Set<number>();
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match; match = regex.exec(text)) {
    const first = lineOf(match.index);
    const last = lineOf(Math.max(match.index, match.index + match[0].length - 1));
    for (let line = first; line <= last && line < lines.length; line++) matched.add(line);
    if (match[0].length === 0) regex.lastIndex++;
  }
  return [...matched].sort((left, right) => left - right);
}

function contentLines(name: string, lines: string[], matched: number[], query: GrepQuery): string[] {
  const matchedSet = new Set(matched);
  const shown: number[] = [];
  for (const index of matched) {
    for (let line = Math.max(0, index - query.before); line <= Math.min(lines.length - 1, index + query.after); line++) {
      if (shown.at(-1) === undefined || shown.at(-1)! < line) shown.push(line);
    }
  }
  const output: string[] = [];
  shown.forEach((line, position) => {
    const withContext = query.before > 0 || query.after > 0;
    if (withContext && position > 0 && line !== shown[position - 1]! + 1) output.push("--");
    const separator = matchedSet.has(line) ? ":" : "-";
    const number = query.lineNumbers ? `${line + 1}${separator}` : "";
    output.push(`${name}${separator}${number}${lines[line]}`);
  });
  return output;
}
