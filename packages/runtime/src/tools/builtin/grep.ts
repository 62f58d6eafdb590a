import { z } from "zod";
import type { Tool, ToolContext, ToolOutcome } from "../types.js";
import { importOnce } from "../../import-once.js";
import { askPermission, defineBuiltinTool } from "./define.js";
import { pathKind, resolveToolPath } from "./paths.js";
import type { GrepOutput, GrepQuery, GrepTarget, NodeGrepOptions, SkippedFile } from "./search/node-grep.js";
import type { Ripgrep } from "./search/ripgrep.js";

/** The Node search thread (used when ripgrep is missing) and its timeout, loaded with the first search. */
const loadNodeGrepThread = importOnce(() => import("./search/node-grep-thread.js"));

/** Output longer than this is cut (the model is told to narrow the search). */
const MAX_OUTPUT_CHARS = 30_000;
/** Skipped files named in a result; the rest are counted. */
const MAX_SKIPPED_NAMED = 10;

const grepSchema = z.object({
  pattern: z.string().describe("Regular expression to search for (ripgrep syntax)."),
  path: z.string().optional().describe("File or directory to search (default: the working directory)."),
  output_mode: z
    .enum(["content", "files_with_matches", "count"])
    .optional()
    .describe('"files_with_matches" (default) lists matching files; "content" shows matching lines; "count" gives matches per file.'),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.{ts,tsx}".'),
  type: z.string().optional().describe('Only search files of this type, e.g. "ts", "py", "rust" (ripgrep file types).'),
  "-i": z.boolean().optional().describe("Case-insensitive search."),
  "-A": z.number().int().min(0).optional().describe('Lines of context after each match (output_mode "content").'),
  "-B": z.number().int().min(0).optional().describe('Lines of context before each match (output_mode "content").'),
  "-C": z.number().int().min(0).optional().describe('Lines of context before and after each match (output_mode "content").'),
  "-n": z.boolean().optional().describe('Show line numbers (output_mode "content").'),
  head_limit: z.number().int().positive().optional().describe("Return only the first N lines or entries."),
  multiline: z.boolean().optional().describe("Let patterns span lines; `.` then also matches newlines."),
});

/**
 * `grep`: searches file contents with ripgrep semantics (`rg` when it is on PATH, a Node search on
 * a worker thread otherwise), after a `read` permission naming the searched file or folder.
 *
 * Files it could not search (unreadable, too large for a multiline search) are named after the
 * results, so "No matches found." never hides a file that was left out. Binary files found by
 * walking a folder are skipped without a word, as ripgrep does and the description says; a binary
 * file named as `path` is searched (`binary file matches …`).
 *
 * @example
 * const grep = grepTool(new Ripgrep());
 */
export function grepTool(ripgrep: Ripgrep, options: Omit<NodeGrepOptions, "maxOutputChars"> = {}): Tool {
  return defineBuiltinTool({
    name: "grep",
    description:
      "Searches file contents for a regular expression (ripgrep). Respects .gitignore and skips hidden and binary files " +
      "(name a binary file as path to search it); files it could not search are named after the results. " +
      "Lists matching files by default; output_mode \"content\" shows the lines (with -n, -A/-B/-C), \"count\" the counts. " +
      "Filter files with glob or type. Use it instead of grep or rg in bash.",
    schema: grepSchema,
    async execute(args, context) {
      const target = await searchTarget(args.path, context);
      if ("outcome" in target) return target.outcome;
      const intention = `Search in ${target.isFile ? "file" : "directory"}: ${target.path}`;
      const denied = await askPermission(context, { kind: "read", intention, path: target.path });
      if (denied) return denied;

      const query: GrepQuery = {
        pattern: args.pattern,
        mode: args.output_mode ?? "files_with_matches",
        caseInsensitive: args["-i"] === true,
        multiline: args.multiline === true,
        lineNumbers: args["-n"] === true,
        before: args["-B"] ?? args["-C"] ?? 0,
        after: args["-A"] ?? args["-C"] ?? 0,
        globs: args.glob ? [args.glob] : [],
        ...(args.type !== undefined ? { type: args.type } : {}),
      };
      const { nodeGrepOnThread, SearchTimeout } = await loadNodeGrepThread();
      let output: GrepOutput;
      try {
        output = (await ripgrep.available())
          ? await ripgrepSearch(ripgrep, query, target, context)
          : await nodeGrepOnThread(query, target, context.signal, { ...options, maxOutputChars: 2 * MAX_OUTPUT_CHARS });
      } catch (error) {
        if (!(error instanceof SearchTimeout)) throw error;
        return { resultType: "failure", textForModel: `Error: ${error.message}`, errorMessage: "Search timed out" };
      }
      if ("error" in output) return { resultType: "failure", textForModel: `Error: ${output.error}`, errorMessage: output.error };
      const found = output.lines.length + (output.omittedLines ?? 0);
      const shown = Math.min(found, args.head_limit ?? found);
      const lines = output.lines.slice(0, shown);
      const notes = searchNotes(output.skipped ?? [], output.walkLimit);
      const text = found === 0 ? "No matches found." : capLines(lines, MAX_OUTPUT_CHARS, shown - lines.length);
      return { resultType: "success", textForModel: [text, ...notes].join("\n") };
    },
  });
}

/**
 * The folder or file a search tool works in: the given path (resolved) or the working directory,
 * or the outcome to return when it does not exist.
 */
export async function searchTarget(path: string | undefined, context: ToolContext): Promise<GrepTarget | { outcome: ToolOutcome }> {
  const resolved = path === undefined ? context.workingDirectory : await resolveToolPath(path, context.workingDirectory);
  const kind = await pathKind(resolved);
  if (kind === "missing") {
    const text = `Error: rg: ${resolved}: IO error for operation on ${resolved}: No such file or directory (os error 2)`;
    return { outcome: { resultType: "failure", textForModel: text, errorMessage: "Path does not exist" } };
  }
  return { path: resolved, isFile: kind === "file", display: path === undefined ? "." : resolved };
}

async function ripgrepSearch(ripgrep: Ripgrep, query: GrepQuery, target: GrepTarget, context: ToolContext): Promise<GrepOutput> {
  // Same files as the Node search: .gitignore applies outside git repositories too, node_modules never.
  const args = ["--no-config", "--no-require-git", "--glob", "!node_modules", "--color", "never", "--sort", "path", "--no-heading", "--with-filename"];
  if (query.mode === "files_with_matches") args.push("--files-with-matches");
  else if (query.mode === "count") args.push("--count");
  else {
    args.push(query.lineNumbers ? "--line-number" : "--no-line-number");
    if (query.before > 0) args.push("--before-context", String(query.before));
    if (query.after > 0) args.push("--after-context", String(query.after));
  }
  if (query.caseInsensitive) args.push("--ignore-case");
  if (query.multiline) args.push("--multiline", "--multiline-dotall");
  for (const glob of query.globs) args.push("--glob", glob);
  if (query.type !== undefined) args.push("--type", query.type);
  args.push("--regexp", query.pattern, "--", target.display);
  const result = await ripgrep.run(args, { cwd: context.workingDirectory, signal: context.signal });
  const lines = result.stdout.split("\n").filter((line) => line !== "");
  const skipped = ripgrepSkipped(result.stderr);
  if (result.exitCode === 2 && lines.length === 0 && skipped.length === 0) return { error: result.stderr.trim() || "rg failed" };
  return { lines, skipped };
}

/** The files rg complained about on stderr (`rg: ./x: Permission denied (os error 13)`), which it did not search. */
function ripgrepSkipped(stderr: string): SkippedFile[] {
  return stderr
    .split("\n")
    .map((line) => /^rg: (.+?): (.+)$/.exec(line.trim()))
    .filter((match) => match !== null)
    .map((match) => ({ name: match[1]!, reason: "unreadable" as const, detail: match[2]! }));
}

/**
 * Joins lines, stopping before `maxChars` with a note of how many were left out (`notKept` more
 * lines exist after the given ones).
 */
export function capLines(lines: string[], maxChars: number, notKept = 0): string {
  const note = (rest: number) => `[… ${rest} more lines not shown. Narrow the search (path, glob, type) or use head_limit.]`;
  let size = 0;
  for (let index = 0; index < lines.length; index++) {
    size += lines[index]!.length + 1;
    if (size > maxChars) return `${lines.slice(0, index).join("\n")}\n${note(lines.length - index + notKept)}`;
  }
  return notKept > 0 ? `${lines.join("\n")}\n${note(notKept)}` : lines.join("\n");
}

/**
 * The lines saying which files were not searched and why, and where walking the folder stopped.
 *
 * @example
 * searchNotes([{ name: "./big.log", reason: "too-large", detail: "larger than 64 MB, the limit of a multiline search" }]);
 * // ["[1 file was not searched: ./big.log (too large: larger than 64 MB, the limit of a multiline search)]"]
 */
export function searchNotes(skipped: SkippedFile[], walkLimit?: number): string[] {
  const notes: string[] = [];
  if (skipped.length > 0) {
    const named = skipped.slice(0, MAX_SKIPPED_NAMED).map((file) => `${file.name} (${file.reason.replace("-", " ")}: ${file.detail})`);
    if (skipped.length > MAX_SKIPPED_NAMED) named.push(`and ${skipped.length - MAX_SKIPPED_NAMED} more`);
    const count = skipped.length === 1 ? "1 file was" : `${skipped.length} files were`;
    notes.push(`[${count} not searched: ${named.join("; ")}]`);
  }
  if (walkLimit !== undefined) notes.push(`[Stopped after ${walkLimit} files; files past them were not searched. Narrow the path, glob or type.]`);
  return notes;
}
