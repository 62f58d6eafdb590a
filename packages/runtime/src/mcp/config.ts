import type { McpServerConfig } from "@tandem/protocol";

/** A remote (HTTP or SSE) server config. */
export type McpRemoteConfig = Extract<McpServerConfig, { url: string }>;
/** A local (stdio) server config. */
export type McpLocalConfig = Exclude<McpServerConfig, McpRemoteConfig>;

/** The tool call timeout when neither the config nor the manager names one. */
export const defaultCallTimeoutMs = 60_000;
/** How long connecting and listing tools may take when the manager is not told otherwise. */
export const defaultConnectTimeoutMs = 30_000;

/**
 * Whether a config names a remote server (`type: "http" | "sse"`).
 *
 * @example
 * isRemoteConfig({ type: "http", url: "http://127.0.0.1:3000/mcp", tools: ["*"] }); // true
 */
export function isRemoteConfig(config: McpServerConfig): config is McpRemoteConfig {
  return config.type === "http" || config.type === "sse";
}

/**
 * Whether the config's `tools` allow-list lets the model see `toolName`. `"*"` allows every tool;
 * entries may be the bare name or the prefixed `{server}-{tool}`. A missing list allows all.
 *
 * @example
 * toolAllowed({ command: "x", args: [], tools: ["echo"] }, "files", "echo"); // true
 */
export function toolAllowed(config: McpServerConfig, serverName: string, toolName: string): boolean {
  const allowList: readonly string[] | undefined = config.tools;
  if (!allowList) return true;
  return allowList.some((entry) => entry === "*" || entry === toolName || entry === qualifiedToolName(serverName, toolName));
}

/**
 * The name the model sees for an MCP tool: `{server}-{tool}`.
 *
 * @example
 * qualifiedToolName("github", "list_issues"); // "github-list_issues"
 */
export function qualifiedToolName(serverName: string, toolName: string): string {
  return `${serverName}-${toolName}`;
}

/** The per-call timeout of a server, in milliseconds. */
export function callTimeoutMs(config: McpServerConfig, fallback: number): number {
  const timeout = config.timeout;
  return typeof timeout === "number" && timeout > 0 ? timeout : fallback;
}
