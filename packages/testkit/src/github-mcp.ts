/**
 * The Copilot API's GitHub MCP endpoint (`/mcp`), served by the fake model server: a minimal MCP
 * server over streamable HTTP (JSON responses, no server-sent stream) so a runtime in Copilot API
 * mode can connect to it, list its tools and call them.
 */
import type { ServerResponse } from "node:http";

/** The route of the GitHub MCP server on the Copilot API. */
export const GITHUB_MCP_ROUTE = "/mcp";

/** A tool the endpoint lists; a call answers `text` (with `{{args}}` replaced by the call's JSON arguments). */
export interface GitHubMcpToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments (default: an object with no required properties). */
  inputSchema?: Record<string, unknown>;
  text: string;
}

/** One HTTP request the endpoint received. */
export interface GitHubMcpRequest {
  /** HTTP method. */
  method: string;
  /** Request headers (lower-case names; repeated headers joined with ", "). */
  headers: Record<string, string>;
  /** The JSON-RPC method of a POST (`initialize`, `tools/list`, …), if it had one. */
  rpcMethod?: string;
  /** The JSON-RPC params of a POST, if any. */
  params?: unknown;
}

const protocolVersionFallback = "2025-03-26";

/**
 * The GitHub MCP endpoint: records every request (with its `X-MCP-*` headers) and answers
 * `initialize`, `tools/list`, `tools/call` and `ping`; notifications get `202`, GET and DELETE `405`
 * (no server-sent stream, no session to end), an unknown method a JSON-RPC `-32601` error.
 *
 * @example
 * server.githubMcp.tools.push({ name: "get_me", text: "octocat" });
 * // after a turn: server.githubMcp.requests[0].headers["x-mcp-toolsets"]
 */
export class GitHubMcpEndpoint {
  /** Every request received, in arrival order. */
  readonly requests: GitHubMcpRequest[] = [];
  /** The tools listed (none by default, so a model's tool list is unchanged). */
  readonly tools: GitHubMcpToolSpec[] = [];

  /** Answers one request whose body has been read. */
  serve(method: string, headers: Record<string, string>, rawBody: string, response: ServerResponse): void {
    if (method !== "POST") {
      this.requests.push({ method, headers });
      response.writeHead(405, { allow: "POST" });
      response.end();
      return;
    }
    let message: { id?: string | number; method?: string; params?: unknown };
    try {
      message = JSON.parse(rawBody) as typeof message;
    } catch {
      this.requests.push({ method, headers });
      sendRpc(response, 400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "request body is not valid JSON" } });
      return;
    }
    this.requests.push({ method, headers, ...(typeof message.method === "string" ? { rpcMethod: message.method } : {}), ...(message.params !== undefined ? { params: message.params } : {}) });
    if (message.id === undefined) {
      response.writeHead(202);
      response.end();
      return;
    }
    const answer = this.answer(message.method, message.params);
    sendRpc(response, 200, { jsonrpc: "2.0", id: message.id, ...answer });
  }

  private answer(method: string | undefined, params: unknown): { result: unknown } | { error: { code: number; message: string } } {
    const fields = (params ?? {}) as { protocolVersion?: unknown; name?: unknown; arguments?: unknown };
    switch (method) {
      case "initialize":
        return {
          result: {
            protocolVersion: typeof fields.protocolVersion === "string" ? fields.protocolVersion : protocolVersionFallback,
            capabilities: { tools: {} },
            serverInfo: { name: "testkit-github-mcp", version: "1.0.0" },
          },
        };
      case "ping":
        return { result: {} };
      case "tools/list":
        return { result: { tools: this.tools.map((tool) => ({ name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema ?? { type: "object", properties: {} } })) } };
      case "tools/call": {
        const tool = this.tools.find((candidate) => candidate.name === fields.name);
        if (!tool) return { error: { code: -32602, message: `unknown tool: ${String(fields.name)}` } };
        return { result: { content: [{ type: "text", text: tool.text.replaceAll("{{args}}", JSON.stringify(fields.arguments ?? {})) }] } };
      }
      default:
        return { error: { code: -32601, message: `method not found: ${String(method)}` } };
    }
  }
}

function sendRpc(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

