import { readFileSync } from "node:fs";
import { join } from "node:path";
import { McpServerConfig } from "@tandem/protocol";
import type { Logger } from "../log.js";

/**
 * The MCP servers the session's plugin folders declare (`<plugin>/.mcp.json`, `{ "mcpServers": … }`).
 * The application named these folders (`pluginDirectories`), so their servers count as its own
 * configuration; a server the application configured directly under the same name wins. A missing
 * file declares nothing; an unreadable file or an invalid server is logged and left out.
 *
 * @example
 * const servers = { ...pluginMcpServers(config.pluginDirectories ?? [], logger), ...config.mcpServers };
 */
export function pluginMcpServers(directories: readonly string[], logger: Pick<Logger, "warn">): Record<string, McpServerConfig> {
  const servers: Record<string, McpServerConfig> = {};
  for (const directory of directories) {
    const file = join(directory, ".mcp.json");
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") logger.warn(`plugin MCP servers: ${file} could not be read`, error);
      continue;
    }
    const declared = (parsed as { mcpServers?: unknown } | null)?.mcpServers;
    if (typeof declared !== "object" || declared === null) continue;
    for (const [name, config] of Object.entries(declared)) {
      const valid = McpServerConfig.safeParse(config);
      if (!valid.success) {
        logger.warn(`plugin MCP servers: "${name}" in ${file} is not a valid server config; left out`);
        continue;
      }
      servers[name] ??= valid.data;
    }
  }
  return servers;
}
