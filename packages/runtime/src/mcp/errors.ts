/** Why an MCP tool call did not produce a result. */
export type McpCallFailureKind =
  /** The server is disabled, failed to (re)start, or the session is gone. */
  | "unavailable"
  /** The server did not answer within the call timeout. */
  | "timeout"
  /** The connection broke during the call (the server crashed or went away). */
  | "disconnected"
  /** The server answered with a JSON-RPC error, or the result was invalid. */
  | "error";

/**
 * An MCP tool call that failed before the server produced a `tools/call` result. Tools turn it
 * into a failure the model can read; `kind` says what went wrong.
 *
 * @example
 * throw new McpCallError("timeout", `The MCP server "files" did not answer within 60000 ms.`);
 */
export class McpCallError extends Error {
  constructor(
    readonly kind: McpCallFailureKind,
    message: string,
  ) {
    super(message);
    this.name = "McpCallError";
  }
}
