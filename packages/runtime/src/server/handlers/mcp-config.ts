import { McpConfigAdd, McpConfigDisable, McpConfigEnable, McpConfigList, McpConfigReload, McpConfigRemove, McpConfigUpdate } from "@tandem/protocol/methods/mcp";
import type { McpUserConfig } from "../../mcp/user-config.js";
import type { MethodTable } from "../method-table.js";

/** `mcp.config.*` (server-scoped): the user's MCP configuration file, listed and edited. */
export function registerMcpConfigMethods(table: MethodTable, config: McpUserConfig): void {
  table.on(McpConfigList, async () => ({ servers: await config.list() }));
  table.on(McpConfigAdd, async ({ name, config: server }) => {
    await config.add(name, server);
    return {};
  });
  table.on(McpConfigUpdate, async ({ name, config: server }) => {
    await config.update(name, server);
    return {};
  });
  table.on(McpConfigRemove, async ({ name }) => {
    await config.remove(name);
    return {};
  });
  table.on(McpConfigEnable, async ({ names }) => {
    await config.setEnabled(names, true);
    return {};
  });
  table.on(McpConfigDisable, async ({ names }) => {
    await config.setEnabled(names, false);
    return {};
  });
  table.on(McpConfigReload, async () => {
    await config.reload();
    return {};
  });
}
