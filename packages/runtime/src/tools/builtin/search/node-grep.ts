import { basename } from "node:path";
import { searchFile, type SkipReason } from "./file-search.js";
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

/** A file the search could not search, and why. */
export interface SkippedFile {
  /** As it would be printed (`./a/b` or absolute). */
  name: string;
  reason: Exclude<SkipReason, "binary">;
  detail: string;
}

/**
 * The output lines (and how many more were found but not kept), the files that could not be
 * searched, and the file count at which walking the folder stopped, if it did; or an error text
 * in ripgrep's words.
 */
export type GrepOutput = { lines: string[]; omittedLines?: number; skipped?: SkippedFile[]; walkLimit?: number } | { error: string };

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

/** Limits of the Node search. */
export interface NodeGrepOptions {
  /** Largest file a multiline search reads whole (default 64 MB); larger ones are skipped and reported. */
  maxMultilineBytes?: number;
  /** Longest line held in memory (default 64 M characters); a file with a longer one is skipped and reported. */
  maxLineChars?: number;
  /** Output lines past this many characters are counted in `omittedLines` instead of kept (default: keep all). */
  maxOutputChars?: number;
}

const DEFAULT_MAX_MULTILINE_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_LINE_CHARS = 64 * 1024 * 1024;

/**
 * ripgrep's search in plain Node, for machines without `rg`: same output shapes
 * (`path:line:text`, `path-line-text` context lines, `--` between groups, `path:count`). Files
 * are streamed, so large ones are searched whole; the files it could not search are listed in
 * `skipped`. Binary files found by walking a folder are skipped silently, as ripgrep does; a
 * named one is searched.
 *
 * @example
 * await nodeGrep({ pattern: "TODO", mode: "content", lineNumbers: true, ... }, { path: cwd, isFile: false, display: "." }, signal);
 */
export async function nodeGrep(query: GrepQuery, target: GrepTarget, signal: AbortSignal, options: NodeGrepOptions = {}): Promise<GrepOutput> {
  const regex = compile(query);
  if ("error" in regex) return regex;
  if (query.type !== undefined && !FILE_TYPES[query.type]) return { error: `rg: unrecognized file type: ${query.type}` };
  const typeFilter = query.type !== undefined ? await globFilter(FILE_TYPES[query.type]!) : () => true;
  const globs = await globFilter(query.globs);
  let walkLimit: number | undefined;
  const files: AsyncIterable<WalkedFile> | WalkedFile[] = target.isFile
    ? [{ path: target.path, relative: basename(target.path) }]
    : walkFiles(target.path, { signal, onLimit: (limit) => (walkLimit = limit) });
  const output = new BoundedLines(options.maxOutputChars ?? Number.POSITIVE_INFINITY);
  const skipped: SkippedFile[] = [];
  for await (const file of files) {
    if (signal.aborted) break;
    if (!target.isFile && (!typeFilter(file.relative) || !globs(file.relative))) continue;
    const name = target.isFile ? target.display : `${target.display}/${file.relative}`;
    const result = await searchFile(file.path, name, {
      regex: regex.value,
      mode: query.mode,
      multiline: query.multiline,
      lineNumbers: query.lineNumbers,
      before: query.before,
      after: query.after,
      explicit: target.isFile,
      maxMultilineBytes: options.maxMultilineBytes ?? DEFAULT_MAX_MULTILINE_BYTES,
      maxLineChars: options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS,
      signal,
      sink: output,
    });
    if (result.kind === "skipped") {
      // Binary files met on a walk go unmentioned, as with ripgrep (the tool's description says so).
      if (result.reason !== "binary") skipped.push({ name, reason: result.reason, detail: result.detail });
      continue;
    }
    if (result.matchingLines === 0) continue;
    if (query.mode === "files_with_matches") output.emit(name);
    else if (query.mode === "count") output.emit(`${name}:${result.matchingLines}`);
  }
  return { lines: output.lines, omittedLines: output.omitted, skipped, ...(walkLimit !== undefined ? { walkLimit } : {}) };
}

/** Output lines kept up to a size; the rest only counted. */
class BoundedLines {
  readonly lines: string[] = [];
  omitted = 0;
  private chars = 0;

  constructor(private readonly maxChars: number) {}

  get count(): number {
    return this.lines.length + this.omitted;
  }

  emit(line: string): void {
    if (this.chars > this.maxChars) {
      this.omitted++;
      return;
    }
    this.chars += line.length + 1;
    this.lines.push(line);
  }
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
