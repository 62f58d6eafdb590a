import { z } from "zod";
import type { Tool, ToolContext, ToolOutcome } from "../types.js";
import { askPermission, defineBuiltinTool } from "./define.js";
import { pathKind, resolveToolPath } from "./paths.js";
import { nodeGrep, type GrepOutput, type GrepQuery, type GrepTarget } from "./search/node-grep.js";
import type { Ripgrep } from "./search/ripgrep.js";

/** Output longer than this is cut (the model is told to narrow the search). */
const MAX_OUTPUT_CHARS = 30_000;

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
 * `grep`: searches file contents with ripgrep semantics (`rg` when it is on PATH, a Node search
 * otherwise), after a `read` permission naming the searched file or folder.
 *
 * @example
 * const grep = grepTool(new Ripgrep());
 */
export function grepTool(ripgrep: Ripgrep): Tool {
  return defineBuiltinTool({
    name: "grep",
    description:
      "Searches file contents for a regular expression (ripgrep). Respects .gitignore and skips hidden and binary files. " +
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
      const output = (await ripgrep.available())
        ? await ripgrepSearch(ripgrep, query, target, context)
        : await nodeGrep(query, target, context.signal);
      if ("error" in output) return { resultType: "failure", textForModel: `Error: ${output.error}`, errorMessage: output.error };
      const lines = args.head_limit !== undefined ? output.lines.slice(0, args.head_limit) : output.lines;
      if (lines.length === 0) return { resultType: "success", textForModel: "No matches found." };
      return { resultType: "success", textForModel: capLines(lines, MAX_OUTPUT_CHARS) };
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
  if (result.exitCode === 2 && lines.length === 0) return { error: result.stderr.trim() || "rg failed" };
  return { lines };
}

/** Joins lines, stopping before `maxChars` with a note of how many were left out. */
export function capLines(lines: string[], maxChars: number): string {
  let size = 0;
  for (let index = 0; index < lines.length; index++) {
    size += lines[index]!.length + 1;
    if (size > maxChars) {
      const rest = lines.length - index;
      return `${lines.slice(0, index).join("\n")}\n[… ${rest} more lines not shown. Narrow the search (path, glob, type) or use head_limit.]`;
    }
  }
  return lines.join("\n");
}
