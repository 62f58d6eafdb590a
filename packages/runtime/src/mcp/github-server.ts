import type { GitHubMcpToolConfig, McpServerConfig } from "@tandem/protocol";

/** The name the GitHub MCP server is listed under (and disabled by, in `disabledMcpServers`). */
export const gitHubMcpServerName = "github-mcp-server";

/** Where a session in Copilot API mode reaches the Copilot API, and the GitHub token it uses there. */
export interface CopilotApiAccess {
  /** The Copilot API's base URL (`COPILOT_API_URL`, or the public one). */
  baseUrl: string;
  /** The GitHub token the session's model calls use. */
  token: string;
}

/**
 * The GitHub MCP server of a session in Copilot API mode: a streamable HTTP server at the Copilot
 * API's `/mcp` endpoint, sent the session's GitHub token as `Authorization: Bearer`, and the
 * session's {@link GitHubMcpToolConfig} as headers: `X-MCP-Toolsets` (`all`, or `default` plus the
 * additional toolsets), `X-MCP-Tools` (additional tools) and `X-MCP-Insiders`. Nothing is sent
 * before the server first connects (the session's first turn, or `session.mcp.list`).
 *
 * @example
 * gitHubMcpServerConfig({ baseUrl: "https://api.githubcopilot.com", token }, { enableAllTools: true });
 * // { type: "http", url: "https://api.githubcopilot.com/mcp", headers: { Authorization: "Bearer …", "X-MCP-Toolsets": "all" }, tools: ["*"] }
 */
export function gitHubMcpServerConfig(access: CopilotApiAccess, toolConfig: GitHubMcpToolConfig = {}): McpServerConfig {
  const headers: Record<string, string> = { Authorization: `Bearer ${access.token}` };
  const toolsets = toolsetsHeader(toolConfig);
  if (toolsets) headers["X-MCP-Toolsets"] = toolsets;
  if (toolConfig.additionalTools?.length) headers["X-MCP-Tools"] = toolConfig.additionalTools.join(",");
  if (toolConfig.enableInsidersMode) headers["X-MCP-Insiders"] = "true";
  return { type: "http", url: endpointUrl(access.baseUrl), headers, tools: ["*"] };
}

/** `all`, or the server's default toolsets plus the additional ones; undefined leaves the server's default. */
function toolsetsHeader(toolConfig: GitHubMcpToolConfig): string | undefined {
  if (toolConfig.enableAllTools) return "all";
  if (!toolConfig.additionalToolsets?.length) return undefined;
  return ["default", ...toolConfig.additionalToolsets].join(",");
}

/** `<base>/mcp`, keeping a path the base URL has (`https://host/api` → `https://host/api/mcp`). */
function endpointUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/mcp`;
  url.search = "";
  return url.toString();
}

/**
 * The name under which an application's own server stands in for the runtime's GitHub MCP server
 * (besides {@link gitHubMcpServerName} itself, which replaces it as any configured name does).
 */
export const applicationGitHubServerName = "github";

/**
 * The MCP servers the runtime adds to a session: the GitHub MCP server when the session talks to the
 * Copilot API with a GitHub token (`access`), none for a session with its own `provider` or a runtime
 * whose default provider is another one. Tandem is provider-neutral: no other provider gets it.
 * None either when the application configured its own `github` server: that one is the session's
 * GitHub server, and two would offer the model the same tools twice.
 *
 * @example
 * builtinMcpServers(config, copilotApiAccess(environment)); // {} or { "github-mcp-server": {...} }
 */
export function builtinMcpServers(
  config: { provider?: unknown; githubMcpToolConfig?: GitHubMcpToolConfig; mcpServers?: Record<string, unknown> },
  access: CopilotApiAccess | undefined,
): Record<string, McpServerConfig> {
  if (config.provider || !access) return {};
  if (config.mcpServers && Object.hasOwn(config.mcpServers, applicationGitHubServerName)) return {};
  return { [gitHubMcpServerName]: gitHubMcpServerConfig(access, config.githubMcpToolConfig) };
}
