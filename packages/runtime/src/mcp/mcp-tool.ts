import type { Progress, Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import { deniedOutcome } from "../permissions/outcome.js";
import type { Tool, ToolContext, ToolOutcome } from "../tools/types.js";
import { qualifiedToolName } from "./config.js";
import { McpCallError } from "./errors.js";
import { mcpResultToOutcome } from "./results.js";
import type { McpServerConnection } from "./server-connection.js";

/**
 * Wraps one MCP server tool as a runtime tool named `{server}-{tool}`, with the server's input
 * schema unchanged. Executing it asks the `mcp` permission (read-only when the server annotates the
 * tool `readOnlyHint: true`), calls the server with the call's abort signal and the server's
 * timeout, turns progress notifications into `tool.execution_progress` events, and maps the result.
 *
 * @example
 * const tool = createMcpTool(connection, { name: "echo", inputSchema: { type: "object" } });
 * tool.name; // "files-echo"
 */
export function createMcpTool(connection: McpServerConnection, serverTool: SdkTool): Tool {
  const serverName = connection.name;
  const name = qualifiedToolName(serverName, serverTool.name);
  const readOnly = serverTool.annotations?.readOnlyHint === true;
  return {
    name,
    description: serverTool.description ?? "",
    parameters: serverTool.inputSchema,
    startData: { mcpServerName: serverName, mcpToolName: serverTool.name },
    async execute(args: unknown, context: ToolContext): Promise<ToolOutcome> {
      const permission = await context.requestPermission({ kind: "mcp", serverName, toolName: name, toolTitle: serverTool.name, args, readOnly });
      if (permission.kind !== "approved") return deniedOutcome(permission);
      try {
        const result = await connection.callTool(serverTool.name, argumentsObject(args), {
          toolCallId: context.toolCallId,
          signal: context.signal,
          onprogress: (progress) => context.emitter.emit("tool.execution_progress", { toolCallId: context.toolCallId, progressMessage: progressMessage(progress) }),
        });
        return mcpResultToOutcome(result, serverTool.name);
      } catch (error) {
        if (context.signal.aborted || !(error instanceof McpCallError)) throw error;
        return callFailure(error, serverName, serverTool.name);
      }
    },
  };
}

/** What a progress notification says: its message, else `progress/total` or `progress`. */
export function progressMessage(progress: Progress): string {
  if (progress.message) return progress.message;
  if (progress.total !== undefined) return `${progress.progress}/${progress.total}`;
  return String(progress.progress);
}

function argumentsObject(args: unknown): Record<string, unknown> {
  if (args && typeof args === "object" && !Array.isArray(args)) return args as Record<string, unknown>;
  return {};
}

function callFailure(error: McpCallError, serverName: string, toolName: string): ToolOutcome {
  switch (error.kind) {
    case "timeout":
      return { resultType: "failure", textForModel: error.message, errorMessage: "MCP tool call timed out" };
    case "unavailable":
    case "disconnected":
      return { resultType: "failure", textForModel: error.message, errorMessage: error.message };
    case "error":
      return {
        resultType: "failure",
        textForModel: `The MCP tool "${toolName}" on server "${serverName}" failed: ${error.message}`,
        errorMessage: error.message,
      };
  }
}
