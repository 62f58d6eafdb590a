import type { Logger } from "../log.js";
import type { WorkspaceInfo } from "./types.js";

/**
 * The text of `workspace.yaml`: keys in a fixed order, strings JSON-quoted (which is valid YAML).
 * Shared by the stores that keep the workspace info as a file (the runtime's own folder, or the
 * file system a client provides).
 *
 * @example
 * workspaceYaml({ id: "s1", cwd: "/w", summary_count: 0, created_at: now, updated_at: now }); // 'id: "s1"\ncwd: "/w"\n…'
 */
export function workspaceYaml(info: WorkspaceInfo): string {
  const lines = [
    `id: ${JSON.stringify(info.id)}`,
    `cwd: ${JSON.stringify(info.cwd)}`,
    `summary_count: ${info.summary_count}`,
    `created_at: ${JSON.stringify(info.created_at)}`,
    `updated_at: ${JSON.stringify(info.updated_at)}`,
  ];
  if (info.summary !== undefined) lines.push(`summary: ${JSON.stringify(info.summary)}`);
  if (info.model !== undefined) lines.push(`model: ${JSON.stringify(info.model)}`);
  if (info.name !== undefined) lines.push(`name: ${JSON.stringify(info.name)}`);
  if (info.client_generation !== undefined) lines.push(`client_generation: ${JSON.stringify(info.client_generation)}`);
  return `${lines.join("\n")}\n`;
}

/**
 * The workspace info in a `workspace.yaml` text, or undefined when it is not one (logged as a
 * warning). The YAML parser is loaded on first use.
 */
export async function parseWorkspaceYaml(text: string, sessionId: string, logger: Pick<Logger, "warn">): Promise<WorkspaceInfo | undefined> {
  try {
    const { parse } = await import("yaml");
    const value = parse(text) as Partial<WorkspaceInfo> | null;
    if (!value || typeof value !== "object") return undefined;
    return {
      id: String(value.id ?? sessionId),
      cwd: String(value.cwd ?? ""),
      summary_count: Number(value.summary_count ?? 0),
      created_at: String(value.created_at ?? ""),
      updated_at: String(value.updated_at ?? ""),
      summary: value.summary === undefined || value.summary === null ? undefined : String(value.summary),
      model: value.model === undefined || value.model === null ? undefined : String(value.model),
      name: value.name === undefined || value.name === null ? undefined : String(value.name),
      ...(typeof value.client_generation === "string" ? { client_generation: value.client_generation } : {}),
    };
  } catch (error) {
    logger.warn(`unreadable workspace.yaml for session ${sessionId}`, error);
    return undefined;
  }
}
