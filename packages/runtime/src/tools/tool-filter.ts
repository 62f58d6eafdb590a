/** Where a tool comes from, for source-qualified filter patterns (`builtin:*`, `custom:x`, `mcp:y`). */
export type ToolSource = "builtin" | "custom" | "mcp";

/** What a filter looks at. */
export interface FilterableTool {
  readonly name: string;
  /** MCP tools: the server's own name for the tool (`echo` for `files-echo`). */
  readonly startData?: Readonly<Record<string, unknown>>;
}

/**
 * `availableTools` / `excludedTools`: a tool is offered when it matches `availableTools` (or that
 * is unset) and does not match `excludedTools` (which always wins). Patterns: a bare name (any
 * source), `*`, or the SDK 1.0.x `ToolSet` forms `builtin:<name>`, `custom:<name>`, `mcp:<name>`,
 * each also with `*`. An MCP tool matches `mcp:` patterns by its qualified name (`server-tool`) or
 * its own name (`tool`).
 *
 * @example
 * const filter = new ToolFilter(["builtin:*", "custom:deploy"], ["bash"]);
 * filter.allows({ name: "view" }, "builtin"); // true
 */
export class ToolFilter {
  private readonly available: readonly string[] | undefined;
  private readonly excluded: readonly string[];

  constructor(availableTools: readonly string[] | undefined, excludedTools: readonly string[] | undefined) {
    this.available = availableTools;
    this.excluded = excludedTools ?? [];
  }

  /** Whether the session offers this tool. */
  allows(tool: FilterableTool, source: ToolSource): boolean {
    if (this.excluded.some((pattern) => matches(pattern, tool, source))) return false;
    return !this.available || this.available.some((pattern) => matches(pattern, tool, source));
  }
}

function matches(pattern: string, tool: FilterableTool, source: ToolSource): boolean {
  const colon = pattern.indexOf(":");
  if (colon < 0) return pattern === "*" || pattern === tool.name;
  if (pattern.slice(0, colon) !== source) return false;
  const name = pattern.slice(colon + 1);
  if (name === "*" || name === tool.name) return true;
  return source === "mcp" && name === tool.startData?.mcpToolName;
}

/** The source of a session tool: MCP tools carry their server's name; `builtinNames` tells the rest apart. */
export function toolSource(tool: FilterableTool, builtinNames: ReadonlySet<string>): ToolSource {
  if (typeof tool.startData?.mcpServerName === "string") return "mcp";
  return builtinNames.has(tool.name) ? "builtin" : "custom";
}
