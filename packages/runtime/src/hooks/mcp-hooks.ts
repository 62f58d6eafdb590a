import type { McpMetaDecision, McpToolCallHookInput } from "../mcp/types.js";
import type { HookRunner } from "./hook-runner.js";

/**
 * Runs the application's `preMcpToolCall` hook before an MCP `tools/call` and returns its
 * `metaToUse`: an object replaces the request's `_meta`, `null` removes it, anything else (no
 * hook, no answer, a failed hook) keeps it.
 *
 * @example
 * const meta = await preMcpToolCall(session.hooks, session, { toolCallId, serverName: "files", toolName: "read", arguments: {} }, signal);
 */
export async function preMcpToolCall(
  hooks: HookRunner,
  session: { readonly sessionId: string; readonly workingDirectory: string },
  call: McpToolCallHookInput,
  signal: AbortSignal,
): Promise<McpMetaDecision> {
  if (!hooks.active) return undefined;
  const output = await hooks.run(
    "preMcpToolCall",
    {
      sessionId: session.sessionId,
      workingDirectory: session.workingDirectory,
      toolCallId: call.toolCallId,
      serverName: call.serverName,
      toolName: call.toolName,
      arguments: call.arguments,
      ...(call.meta ? { _meta: call.meta } : {}),
    },
    signal,
  );
  if (!output || !("metaToUse" in output)) return undefined;
  const meta = output.metaToUse;
  if (meta === null) return null;
  if (typeof meta === "object" && !Array.isArray(meta)) return meta as Record<string, unknown>;
  return undefined;
}
