import type { ToolPermissionRequest } from "../../types.js";
import { resolveToolPath } from "../paths.js";
import type { ShellCommandParser } from "./bash-parser.js";
import { analyzeCommandLine, type CommandLineAnalysis } from "./command-analysis.js";

const URL_PATTERN = /\b(?:https?|ftp|wss?):\/\/[^\s'"<>`]+/g;

/** The URLs named anywhere in the command line. */
export function findUrls(source: string): string[] {
  return [...new Set(source.match(URL_PATTERN) ?? [])];
}

/**
 * The `shell` permission request for a command line: every command it will run (see
 * {@link analyzeCommandLine}), the paths and URLs it names (paths resolved against the working
 * directory; ones that escape it through `..` or a symlink as their real path) and whether it
 * redirects output into a file. When the bash parser cannot be loaded, the whole line is one
 * command that is not read-only.
 *
 * @example
 * await shellPermissionRequest("cat ../secret > copy.txt", "Copy the secret", "/work/repo", parser);
 * // { kind: "shell", fullCommandText: "cat ../secret > copy.txt", intention: "Copy the secret",
 * //   commands: [{ identifier: "cat ../secret > copy.txt", readOnly: false }],
 * //   possiblePaths: ["/work/secret", "/work/repo/copy.txt"], possibleUrls: [],
 * //   hasWriteFileRedirection: true, canOfferSessionApproval: false }
 */
export async function shellPermissionRequest(
  command: string,
  description: string,
  workingDirectory: string,
  parser: ShellCommandParser,
): Promise<ToolPermissionRequest> {
  const syntax = await parser.syntax();
  const analysis: CommandLineAnalysis = syntax
    ? analyzeCommandLine(command, syntax)
    : // Nothing is known without the parser; any `>` might write a file.
      { commands: [{ identifier: command.trim(), readOnly: false }], pathCandidates: [], writesFile: command.includes(">") };
  const possiblePaths: string[] = [];
  for (const candidate of analysis.pathCandidates) {
    const resolved = await resolveToolPath(candidate, workingDirectory);
    if (!possiblePaths.includes(resolved)) possiblePaths.push(resolved);
  }
  return {
    kind: "shell",
    fullCommandText: command,
    intention: description,
    commands: analysis.commands,
    possiblePaths,
    possibleUrls: findUrls(command).map((url) => ({ url })),
    hasWriteFileRedirection: analysis.writesFile,
    canOfferSessionApproval: false,
  };
}
