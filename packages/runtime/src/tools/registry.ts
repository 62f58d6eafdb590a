import type { SessionCreateParams } from "@tandem/protocol";
import { invalidParams } from "../errors.js";
import { ExternalTool } from "./external.js";
import type { Tool } from "./types.js";

/**
 * The tools a session offers the model: the application's custom tools (built-in tools join in
 * the tools issue), filtered by `availableTools` / `excludedTools`.
 */
export function buildSessionTools(config: Pick<SessionCreateParams, "tools" | "availableTools" | "excludedTools">): Tool[] {
  const tools: Tool[] = [];
  const seen = new Set<string>();
  for (const definition of config.tools ?? []) {
    if (seen.has(definition.name)) throw invalidParams(`Tool "${definition.name}" is defined twice.`, { tool: definition.name });
    seen.add(definition.name);
    tools.push(new ExternalTool(definition));
  }
  const available = config.availableTools ? new Set(config.availableTools) : undefined;
  const excluded = new Set(config.excludedTools ?? []);
  return tools.filter((tool) => (!available || available.has(tool.name)) && !excluded.has(tool.name));
}
