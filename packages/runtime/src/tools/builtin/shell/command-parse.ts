import { resolveToolPath } from "../paths.js";
import type { ShellCommandParser } from "./bash-parser.js";
import type { CommandLineAnalysis, ShellCommandEntry } from "./command-analysis.js";

/** A `shell` permission request (the 1.0.x shape), as the bash tool asks it. */
// A type, not an interface: it must fit the protocol's loose (index-signature) object type.
export type ShellPermissionRequest = {
  kind: "shell";
  fullCommandText: string;
  intention: string;
  commands: ShellCommandEntry[];
  possiblePaths: string[];
  possibleUrls: Array<{ url: string }>;
  hasWriteFileRedirection: boolean;
  canOfferSessionApproval: boolean;
  /** Why the command may do more than its text shows. */
  warning?: string;
};

const URL_PATTERN = /\b(?:https?|ftp|wss?):\/\/[^\s'"<>`]+/g;

/** The URLs named anywhere in the command line. */
export function findUrls(source: string): string[] {
  return [...new Set(source.match(URL_PATTERN) ?? [])];
}

function hazardWarning(hazards: string[]): string {
  const shown = [...new Set(hazards)].map((hazard) => JSON.stringify(hazard)).join(", ");
  return `Evaluates values that are not known before it runs (${shown}); a crafted value can run any command, so read the full command text.`;
}

/**
 * The `shell` permission request for a command line: every command it will run (see
 * {@link analyzeCommandLine}), the paths and URLs it names (paths resolved against the working
 * directory; ones that escape it through `..` or a symlink as their real path) and whether it
 * redirects output into a file, with a `warning` when it evaluates values that may run any
 * command. When the bash parser cannot be loaded, the whole line is one
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
): Promise<ShellPermissionRequest> {
  return shellRequestFrom(await analyzeShellCommand(command, parser), command, description, workingDirectory);
}

/**
 * The analysis of a command line ({@link analyzeCommandLine}); without the bash parser, the whole
 * line as one command that is not read-only and may change the shell.
 */
export async function analyzeShellCommand(command: string, parser: ShellCommandParser): Promise<CommandLineAnalysis> {
  const syntax = await parser.syntax();
  // The analysis (~25 KB with its tables of programs and options) loads with the first command, not with the runtime.
  if (syntax) return (await import("./command-analysis.js")).analyzeCommandLine(command, syntax);
  // Nothing is known without the parser; any `>` might write a file.
  return { commands: [{ identifier: command.trim(), readOnly: false }], pathCandidates: [], writesFile: command.includes(">"), hazards: [], changesShellState: true };
}

/** The `shell` permission request for a command line already analysed (see {@link shellPermissionRequest}). */
export async function shellRequestFrom(analysis: CommandLineAnalysis, command: string, description: string, workingDirectory: string): Promise<ShellPermissionRequest> {
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
    ...(analysis.hazards.length > 0 ? { warning: hazardWarning(analysis.hazards) } : {}),
  };
}
