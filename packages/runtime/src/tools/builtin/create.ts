import { writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import type { Tool } from "../types.js";
import { askPermission, defineBuiltinTool } from "./define.js";
import { importOnce } from "../../import-once.js";
import { isAbsolutePath, pathKind, resolveToolPath } from "./paths.js";

/** The diff code, loaded with the first call that shows a diff (a session that never does, does not parse it). */
const loadDiff = importOnce(() => import("./diff.js"));

/** The arguments of `create`, built once for every session's tool. */
const createArguments = z.object({
  path: z.string().describe("Absolute path of the new file."),
  file_text: z.string().describe("The complete contents of the new file."),
});

/**
 * `create`: writes a new file at an absolute path whose parent folder exists; it never overwrites.
 * Asks a `write` permission carrying the diff and the new contents first.
 *
 * @example
 * const create = createTool();
 */
export function createTool(): Tool {
  return defineBuiltinTool({
    name: "create",
    description:
      "Creates a new file with the given contents. The path must be absolute and its parent directory must exist. " +
      "It does not overwrite: to change an existing file use edit.",
    schema: createArguments,
    async execute(args, context) {
      if (!isAbsolutePath(args.path)) {
        return {
          resultType: "failure",
          textForModel: `Path "${args.path}" is not absolute. Please provide an absolute path.`,
          errorMessage: "Path is not absolute",
        };
      }
      const path = await resolveToolPath(args.path, context.workingDirectory);
      const existing = await pathKind(path);
      if (existing !== "missing") {
        const what = existing === "directory" ? "a directory" : "a file";
        return {
          resultType: "failure",
          textForModel: `Path ${path} already exists as ${what}. Use \`view\` to check contents then edit it.`,
          errorMessage: "Path already exists",
        };
      }
      const parent = dirname(path);
      if ((await pathKind(parent)) !== "directory") {
        return {
          resultType: "failure",
          textForModel: `Parent directory ${parent} does not exist. You need to create it before creating the file.`,
          errorMessage: "Parent directory does not exist",
        };
      }
      const { displayDiff, unifiedDiff } = await loadDiff();
      const shown = await displayDiff("", args.file_text, path, { created: true, createdCountsFinalEmptyLine: context.fileDiffs?.createdCountsFinalEmptyLine });
      const denied = await askPermission(context, { kind: "write", intention: "Create file", fileName: path, diff: shown, newFileContents: args.file_text });
      if (denied) return denied;
      // "wx": fail rather than overwrite something that appeared while permission was asked.
      await writeFile(path, args.file_text, { flag: "wx" });
      context.emitter.emit("session.info", { infoType: "file_created", message: path });
      // The session's code-change totals count the git-style diff.
      const diff = await unifiedDiff("", args.file_text, path, { created: true });
      return { resultType: "success", textForModel: `Created file ${path} with ${args.file_text.length} characters`, detailedContent: shown, fileChange: { path, diff, before: null } };
    },
  });
}
