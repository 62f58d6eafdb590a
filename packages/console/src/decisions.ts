import type { PermissionRequest } from "@tandem/sdk";
import type { ConsoleDecision } from "./messages.js";

/** Whether a value from the browser is a {@link ConsoleDecision}. */
export function isConsoleDecision(value: unknown): value is ConsoleDecision {
  return value === "approve-once" || value === "approve-for-session" || value === "reject";
}

/**
 * The scope an `approve-for-session` answer asks the runtime to remember for this request: the
 * shell commands it runs, reads, writes, the URL's domain, the MCP tool or the custom tool.
 *
 * @example
 * approvalScopeFor({ kind: "read", path: "/x", intention: "read" }); // { approval: { kind: "read" } }
 */
export function approvalScopeFor(request: PermissionRequest): { approval?: Record<string, unknown>; domain?: string } {
  switch (request.kind) {
    case "shell":
      return { approval: { kind: "commands", commandIdentifiers: request.commands.map((command) => command.identifier) } };
    case "read":
      return { approval: { kind: "read" } };
    case "write":
      return { approval: { kind: "write" } };
    case "url":
      try {
        return { domain: new URL(request.url).hostname };
      } catch {
        return {};
      }
    case "mcp":
      return { approval: { kind: "mcp", serverName: request.serverName, toolName: request.toolName } };
    case "custom-tool":
      return { approval: { kind: "custom-tool", toolName: request.toolName } };
    default:
      return {};
  }
}
