/**
 * The parts of `@modelcontextprotocol/sdk` the MCP client uses, loaded on first need so sessions
 * without MCP servers never pay for the SDK (and the bundled runtime starts as fast as before).
 */
export interface McpSdk {
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  StdioClientTransport: typeof import("@modelcontextprotocol/sdk/client/stdio.js").StdioClientTransport;
  StreamableHTTPClientTransport: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport;
  SSEClientTransport: typeof import("@modelcontextprotocol/sdk/client/sse.js").SSEClientTransport;
  McpError: typeof import("@modelcontextprotocol/sdk/types.js").McpError;
  ErrorCode: typeof import("@modelcontextprotocol/sdk/types.js").ErrorCode;
  ElicitRequestSchema: typeof import("@modelcontextprotocol/sdk/types.js").ElicitRequestSchema;
  ToolListChangedNotificationSchema: typeof import("@modelcontextprotocol/sdk/types.js").ToolListChangedNotificationSchema;
  ProgressNotificationSchema: typeof import("@modelcontextprotocol/sdk/types.js").ProgressNotificationSchema;
}

/**
 * Loads the MCP SDK modules (Node caches them after the first call).
 *
 * @example
 * const sdk = await loadMcpSdk();
 * const client = new sdk.Client({ name: "tandem", version: "0.1.0" });
 */
export async function loadMcpSdk(): Promise<McpSdk> {
  const [client, stdio, streamableHttp, sse, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    SSEClientTransport: sse.SSEClientTransport,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    ElicitRequestSchema: types.ElicitRequestSchema,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    ProgressNotificationSchema: types.ProgressNotificationSchema,
  };
}
