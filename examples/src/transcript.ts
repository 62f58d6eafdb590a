/** How the chat sample prints the parts of a conversation: tool calls, their output, a whole history. */
import type { PermissionRequest, SessionEvent } from "@tandem/sdk";
import { TerminalMarkdown } from "./terminal-markdown.js";

const dim = (text: string) => `\x1b[2m${text}\x1b[0m`;
const blue = (text: string) => `\x1b[34m${text}\x1b[0m`;
const bold = (text: string) => `\x1b[1m${text}\x1b[0m`;

/** Lines of a tool's output shown before the rest is folded away. */
export const SHOWN_OUTPUT_LINES = 4;

/** A tool call as one line: its name and arguments. */
export function toolCallLine(toolName: string, args: unknown): string {
  return blue(`[${toolName}] ${JSON.stringify(args ?? {})}`);
}

/**
 * A tool's output, collapsed: its first lines, then "… N more lines" (nothing for empty output).
 *
 * @example
 * collapsedOutput("a\nb\nc\nd\ne\nf"); // "  │ a" … "  │ d", "  … 2 more lines" (dimmed)
 */
export function collapsedOutput(output: string, shown = SHOWN_OUTPUT_LINES): string {
  const lines = output.replace(/\s+$/, "").split("\n");
  if (lines.length === 1 && lines[0] === "") return "";
  const head = lines.slice(0, shown).map((line) => dim(`  │ ${line}`));
  const hidden = lines.length - shown;
  if (hidden > 0) head.push(dim(`  … ${hidden} more line${hidden === 1 ? "" : "s"}`));
  return `${head.join("\n")}\n`;
}

/**
 * What a finished tool call prints: its output collapsed, or why it failed; for a call that says
 * whether it ran in the session's sandbox (bash), a last line saying so.
 */
export function toolResultText(event: Extract<SessionEvent, { type: "tool.execution_complete" }>): string {
  const { sandboxed } = event.data;
  const sandboxLine = sandboxed === undefined ? "" : `${dim(sandboxed ? "  [sandboxed]" : "  [not sandboxed]")}\n`;
  if (!event.data.success) return `${dim(`[${event.data.error?.message ?? "failed"}]`)}\n${sandboxLine}`;
  return collapsedOutput(event.data.result?.content ?? "") + sandboxLine;
}

/**
 * A shell permission request in one line: the command, and where it will run when the session has
 * a sandbox — in it, or (a bypass the model asks for) outside it, with the model's reason.
 *
 * @example
 * shellRequestText({ kind: "shell", fullCommandText: "ls", sandboxed: true, … }); // "run `ls` in the sandbox"
 */
export function shellRequestText(request: Extract<PermissionRequest, { kind: "shell" }>): string {
  const command = `run \`${request.fullCommandText}\``;
  if (request.requestSandboxBypass) {
    return `${command} OUTSIDE the sandbox${request.requestSandboxBypassReason ? ` (${request.requestSandboxBypassReason})` : ""}`;
  }
  return request.sandboxed === true ? `${command} in the sandbox` : command;
}

/**
 * A saved conversation as the chat showed it: the user's messages, the answers (as markdown), the
 * tool calls with their output collapsed. Printed by `--resume` before the first prompt.
 */
export function historyText(history: readonly SessionEvent[]): string {
  let text = "";
  for (const event of history) {
    switch (event.type) {
      case "user.message":
        text += `${bold("You:")} ${event.data.content ?? ""}\n`;
        break;
      case "assistant.message": {
        if (!event.data.content) break;
        const markdown = new TerminalMarkdown();
        text += `${bold("Assistant:")} ${markdown.push(event.data.content)}${markdown.end()}\n`;
        break;
      }
      case "tool.execution_start":
        if (!event.data.parentToolCallId) text += `${toolCallLine(event.data.toolName, event.data.arguments)}\n`;
        break;
      case "tool.execution_complete":
        if (!event.data.parentToolCallId) text += toolResultText(event);
        break;
    }
  }
  return text;
}
