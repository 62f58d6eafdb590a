import { basename, isAbsolute, relative } from "node:path";
import { z } from "zod";
import type { Tool, ToolContext } from "../types.js";
import { importOnce } from "../../import-once.js";
import { askPermission, defineBuiltinTool } from "./define.js";
import { capLines, searchTarget } from "./grep.js";
import type { GrepTarget } from "./search/node-grep.js";
import type { Ripgrep } from "./search/ripgrep.js";

/** The glob matcher, loaded with the first `glob` call. */
const loadGlobPattern = importOnce(() => import("./search/glob-pattern.js"));
/** The Node file walk (used when ripgrep is missing), loaded with the first walk. */
const loadWalk = importOnce(() => import("./search/walk.js"));

const MAX_RESULTS = 1000;
const MAX_OUTPUT_CHARS = 30_000;

/** The arguments of `glob`, built once for every session's tool. */
const globArguments = z.object({
  pattern: z.string().describe("The glob pattern to match files against."),
  path: z.string().optional().describe("Directory to search in (default: the working directory)."),
});

/**
 * `glob`: finds files by name pattern (ripgrep's glob rules: a pattern without `/` matches file
 * names at any depth), sorted by path, after a `read` permission.
 *
 * @example
 * const glob = globTool(new Ripgrep());
 */
export function globTool(ripgrep: Ripgrep): Tool {
  return defineBuiltinTool({
    name: "glob",
    description:
      'Finds files whose path matches a glob pattern, e.g. "**/*.ts", "src/**/*.{js,jsx}" or "package.json" (a pattern without "/" ' +
      "matches file names at any depth). Respects .gitignore and skips hidden files unless the pattern names them. " +
      "Results are sorted by path.",
    schema: globArguments,
    async execute(args, context) {
      const target = await searchTarget(args.path, context);
      if ("outcome" in target) return target.outcome;
      const denied = await askPermission(context, { kind: "read", intention: `Search for files matching pattern in: ${target.path}`, path: target.path });
      if (denied) return denied;

      let pattern = args.pattern;
      if (isAbsolute(pattern)) pattern = relative(target.path, pattern);
      const includeHidden = pattern.split("/").some((segment) => segment.startsWith(".") && segment !== "." && segment !== "..");
      const matches = await (await loadGlobPattern()).globFilter([pattern]);
      const listed = await listFiles(ripgrep, target, includeHidden, context);
      const files = listed.files.filter(matches);
      const stopped = listed.walkLimit === undefined ? [] : [`[Stopped after listing ${listed.walkLimit} files; files past them were not matched. Use a more specific path.]`];
      if (files.length === 0) return { resultType: "success", textForModel: ["No files matched the pattern.", ...stopped].join("\n") };
      const named = files.slice(0, MAX_RESULTS).map((file) => (target.isFile ? target.display : `${target.display}/${file}`));
      if (files.length > MAX_RESULTS) named.push(`[… ${files.length - MAX_RESULTS} more files not shown. Use a more specific pattern or path.]`);
      return { resultType: "success", textForModel: [capLines(named, MAX_OUTPUT_CHARS), ...stopped].join("\n") };
    },
  });
}

/** Files below the target, relative to it and `/`-separated, in path order, and where the walk stopped if it did. */
async function listFiles(ripgrep: Ripgrep, target: GrepTarget, includeHidden: boolean, context: ToolContext): Promise<{ files: string[]; walkLimit?: number }> {
  if (target.isFile) return { files: [basename(target.path)] };
  if (await ripgrep.available()) {
    const args = ["--no-config", "--no-require-git", "--files", "--sort", "path", "--glob", "!node_modules"];
    if (includeHidden) args.push("--hidden", "--glob", "!.git");
    args.push("--", target.display);
    const result = await ripgrep.run(args, { cwd: context.workingDirectory, signal: context.signal });
    const prefix = `${target.display}/`;
    const files = result.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => (line.startsWith(prefix) ? line.slice(prefix.length) : line));
    return { files };
  }
  const files: string[] = [];
  let walkLimit: number | undefined;
  const { walkFiles } = await loadWalk();
  for await (const file of walkFiles(target.path, { includeHidden, signal: context.signal, onLimit: (limit) => (walkLimit = limit) })) files.push(file.relative);
  return walkLimit === undefined ? { files } : { files, walkLimit };
}
