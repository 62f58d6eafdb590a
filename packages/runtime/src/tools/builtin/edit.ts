import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { errorMessage } from "../../errors.js";
import type { Tool } from "../types.js";
import { askPermission, defineBuiltinTool } from "./define.js";
import { importOnce } from "../../import-once.js";
import { resolveToolPath } from "./paths.js";

/** The diff code, loaded with the first call that shows a diff (a session that never does, does not parse it). */
const loadDiff = importOnce(() => import("./diff.js"));

/** The arguments of `edit`, built once for every session's tool. */
const editArguments = z.object({
  path: z.string().describe("Path of the file to edit (absolute, or relative to the working directory)."),
  old_str: z.string().optional().describe("The exact text to replace; it must occur exactly once."),
  new_str: z.string().optional().describe("The replacement text."),
});

/**
 * `edit`: replaces the one occurrence of `old_str` in a file with `new_str`, after a `write`
 * permission carrying the diff and the new contents.
 *
 * @example
 * const edit = editTool();
 */
export function editTool(): Tool {
  return defineBuiltinTool({
    name: "edit",
    description:
      "Edits a file by replacing old_str, which must occur exactly once in the file (include enough surrounding lines to make " +
      "it unique, with exact whitespace), by new_str. View the file first. An empty or missing new_str deletes old_str.",
    schema: editArguments,
    async execute(args, context) {
      if (args.old_str === undefined) {
        return { resultType: "failure", textForModel: "Invalid inputs: old_str is required", errorMessage: "old_str is required" };
      }
      const oldStr = args.old_str;
      const newStr = args.new_str ?? "";
      const path = await resolveToolPath(args.path, context.workingDirectory);
      let original: string;
      try {
        original = await readFile(path, "utf8");
      } catch (error) {
        const echoed = JSON.stringify({ path: args.path, old_str: args.old_str, new_str: args.new_str, command: "edit" });
        return {
          resultType: "failure",
          textForModel: `Failed to execute with arguments: ${echoed} due to error: Error: ${errorMessage(error)}`,
          errorMessage: errorMessage(error),
        };
      }
      const first = oldStr === "" ? -1 : original.indexOf(oldStr);
      if (first === -1) {
        return {
          resultType: "failure",
          textForModel: `No match found: old_str not found in ${path}; no changes made; you might want to try again with correct old_str`,
          errorMessage: "No match found",
        };
      }
      if (original.indexOf(oldStr, first + 1) !== -1) {
        return {
          resultType: "failure",
          textForModel: `Multiple matches found for old_str in ${path}; no changes made; you might want to try again and be more specific with old_str`,
          errorMessage: "Multiple matches found",
        };
      }
      const updated = original.slice(0, first) + newStr + original.slice(first + oldStr.length);
      const { displayDiff, unifiedDiff } = await loadDiff();
      const shown = await displayDiff(original, updated, path);
      const denied = await askPermission(context, { kind: "write", intention: "Edit file", fileName: path, diff: shown, newFileContents: updated });
      if (denied) return denied;
      if (oldStr === newStr) {
        return { resultType: "failure", textForModel: "No changes made: old_str and new_str are the same", errorMessage: "No changes made" };
      }
      // The file may have changed while permission was asked; apply the edit only to what was shown.
      if ((await readFile(path, "utf8")) !== original) {
        return {
          resultType: "failure",
          textForModel: `File ${path} changed while waiting for permission; no changes made. View it again and retry the edit.`,
          errorMessage: "File changed",
        };
      }
      await writeFile(path, updated);
      // The session's code-change totals count the git-style diff.
      const diff = await unifiedDiff(original, updated, path);
      return { resultType: "success", textForModel: `File ${path} updated with changes.`, detailedContent: shown, fileChange: { path, diff, before: original } };
    },
  });
}
