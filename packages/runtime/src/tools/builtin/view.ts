import { readdir, readFile, stat } from "node:fs/promises";
import { extname } from "node:path";
import { z } from "zod";
import type { Tool, ToolOutcome } from "../types.js";
import { importOnce } from "../../import-once.js";
import { askPermission, defineBuiltinTool } from "./define.js";
import { pathKind, resolveToolPath } from "./paths.js";

/** The diff code, loaded with the first call that shows a diff (a session that never does, does not parse it). */
const loadDiff = importOnce(() => import("./diff.js"));

/** Limits of `view`. */
export interface ViewOptions {
  /** Files larger than this need `view_range` or `forceReadLargeFiles` (default 256 KB). */
  maxBytes?: number;
  /** Files with more lines than this need `view_range` or `forceReadLargeFiles` (default 2,000). */
  maxLines?: number;
  /** Images larger than this are refused (default 5 MB). */
  maxImageBytes?: number;
}

const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

const viewSchema = z.object({
  path: z.string().describe("Path of the file or directory (absolute, or relative to the working directory)."),
  view_range: z
    .array(z.number().int())
    .length(2)
    .optional()
    .describe("[start, end] line numbers to show, 1-based and inclusive; end -1 means to the end of the file."),
  forceReadLargeFiles: z.boolean().optional().describe("Show a large file in full instead of asking for a view_range."),
});

/**
 * `view`: a file as numbered lines (`N. text`), a line range of it, a directory listing, or an
 * image for the model — after a `read` permission, asked even inside the working directory.
 *
 * @example
 * const view = viewTool();
 */
export function viewTool(options: ViewOptions = {}): Tool {
  const maxBytes = options.maxBytes ?? 256 * 1024;
  const maxLines = options.maxLines ?? 2000;
  const maxImageBytes = options.maxImageBytes ?? 5 * 1024 * 1024;
  return defineBuiltinTool({
    name: "view",
    description: [
      "Shows a file with numbered lines (`N. text`), or the entries of a directory (top level, sorted).",
      "Use view_range [start, end] for part of a file (end -1 = to the end); large files require it.",
      "PNG, JPEG, GIF and WebP images are shown as images.",
    ].join(" "),
    schema: viewSchema,
    async execute(args, context) {
      const path = await resolveToolPath(args.path, context.workingDirectory);
      const kind = await pathKind(path);
      if (kind === "missing") {
        // As the reference runtimes: reading a path is asked before anyone learns it does not exist.
        const denied = await askPermission(context, { kind: "read", intention: `Read file: ${path}`, path });
        if (denied) return denied;
        return { resultType: "failure", textForModel: `Path ${path} does not exist. Please provide a valid path.`, errorMessage: "Path does not exist" };
      }
      if (kind === "directory") {
        const denied = await askPermission(context, { kind: "read", intention: `List directory: ${path}`, path });
        if (denied) return denied;
        const entries = (await readdir(path)).sort();
        return { resultType: "success", textForModel: entries.join("\n") };
      }
      if (kind !== "file") {
        return { resultType: "failure", textForModel: `Path ${path} is not a regular file or directory.`, errorMessage: "Not a file" };
      }
      const denied = await askPermission(context, { kind: "read", intention: `Read file: ${path}`, path });
      if (denied) return denied;

      const size = (await stat(path)).size;
      const imageType = IMAGE_TYPES[extname(path).toLowerCase()];
      if (imageType) return viewImage(path, imageType, size, maxImageBytes);

      const range = args.view_range as [number, number] | undefined;
      if (!range && !args.forceReadLargeFiles && size > maxBytes) return tooLarge(path, `${size} bytes`);
      const buffer = await readFile(path);
      if (buffer.subarray(0, 8192).includes(0)) {
        return { resultType: "failure", textForModel: `File ${path} is binary and cannot be shown as text.`, errorMessage: "Binary file" };
      }
      const text = buffer.toString("utf8");
      if (text === "") return { resultType: "success", textForModel: "" };
      const lines = text.split("\n");
      if (!range && !args.forceReadLargeFiles && lines.length > maxLines) return tooLarge(path, `${lines.length} lines`);
      if (!range) return { resultType: "success", textForModel: numbered(lines, 1), detailedContent: (await loadDiff()).viewedFileDiff(text, path) };

      const [start, end] = range;
      if (start < 1 || (end !== -1 && end < start)) {
        return {
          resultType: "failure",
          textForModel: `Invalid view_range [${start}, ${end}]: lines are numbered from 1, and the end must be -1 or at least the start.`,
          errorMessage: "Invalid view_range",
        };
      }
      const last = end === -1 ? lines.length : Math.min(end, lines.length);
      return { resultType: "success", textForModel: numbered(lines.slice(start - 1, last), start) };
    },
  });
}

function numbered(lines: string[], first: number): string {
  return lines.map((line, index) => `${first + index}. ${line}`).join("\n");
}

function tooLarge(path: string, size: string): ToolOutcome {
  return {
    resultType: "failure",
    textForModel:
      `File ${path} is too large to view at once (${size}). Use view_range to view part of it (e.g. [1, 500]), ` +
      "grep to find the lines you need, or forceReadLargeFiles: true to read it all.",
    errorMessage: "File too large",
  };
}

async function viewImage(path: string, mimeType: string, size: number, maxImageBytes: number): Promise<ToolOutcome> {
  if (size > maxImageBytes) {
    return { resultType: "failure", textForModel: `Image ${path} is too large to view (${size} bytes; the limit is ${maxImageBytes}).`, errorMessage: "Image too large" };
  }
  const data = (await readFile(path)).toString("base64");
  return {
    resultType: "success",
    textForModel: "Viewed image file successfully.",
    binaryResults: [{ type: "image", mimeType, data, caption: `Image file at path ${path}` }],
  };
}
