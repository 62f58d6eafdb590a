import { randomUUID } from "node:crypto";
import { runToolCalls, type ToolRunnerHost } from "../loop/tool-runner.js";

/** What `session.tools.execute` answers (1.0.x `ToolResultExpanded`, the fields Tandem fills). */
export type UserToolResult = {
  textResultForLlm: string;
  resultType: string;
  sessionLog?: string;
  error?: string;
};

/**
 * Runs a tool the user asked for (not the model): `tool.user_requested`, then the tool through the
 * same pipeline as a model's call (hooks, permission, `tool.execution_start` / `_complete`). The
 * result is the caller's; it does not enter the conversation.
 *
 * @example
 * const result = await runUserRequestedTool(session, "bash", { command: "ls" });
 */
export async function runUserRequestedTool(host: ToolRunnerHost, toolName: string, args: unknown, toolCallId = `user_${randomUUID()}`): Promise<UserToolResult> {
  const argumentsObject = args ?? {};
  host.emitter.emit("tool.user_requested", { toolCallId, toolName, arguments: argumentsObject });
  const [result] = await runToolCalls(host, [{ id: toolCallId, name: toolName, rawArguments: JSON.stringify(argumentsObject) }], randomUUID(), new AbortController().signal);
  const outcome = result!.outcome;
  return {
    textResultForLlm: outcome.textForModel,
    resultType: outcome.resultType,
    ...(outcome.detailedContent ? { sessionLog: outcome.detailedContent } : {}),
    ...(outcome.resultType !== "success" ? { error: outcome.errorMessage ?? outcome.textForModel } : {}),
  };
}
