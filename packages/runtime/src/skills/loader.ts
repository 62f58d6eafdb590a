import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Logger } from "../log.js";

/** A skill found on disk: `<dir>/<name>/SKILL.md` with front matter and instructions. */
export interface SkillDefinition {
  name: string;
  description: string;
  /** Absolute path of SKILL.md. */
  path: string;
  /** The skill's folder. */
  baseDir: string;
  /** The whole SKILL.md text. */
  content: string;
  /** Tools auto-approved once the skill is invoked (`allowed-tools`). */
  allowedTools?: string[];
  /** Which `skillDirectories` entry it came from. */
  source: string;
}

/**
 * Reads every `<directory>/<name>/SKILL.md` of the given directories. Front matter (`---` YAML
 * block) gives `name`, `description` and `allowed-tools` (a list or a comma-separated string); the
 * folder name is the fallback name. Unreadable skills are logged and skipped; the first skill of a
 * name wins.
 */
export async function loadSkills(directories: readonly string[], cwd: string, logger: Logger): Promise<SkillDefinition[]> {
  const skills: SkillDefinition[] = [];
  const seen = new Set<string>();
  for (const directory of directories) {
    const root = resolve(cwd, directory);
    const entries = await readdir(root, { withFileTypes: true }).catch(() => undefined);
    if (!entries) {
      logger.warn(`skill directory ${root} cannot be read`);
      continue;
    }
    for (const entry of entries.filter((item) => item.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
      const baseDir = join(root, entry.name);
      const path = join(baseDir, "SKILL.md");
      const content = await readFile(path, "utf8").catch(() => undefined);
      if (content === undefined) continue;
      try {
        const skill = await parseSkill(content, { path, baseDir, fallbackName: entry.name, source: directory });
        if (seen.has(skill.name)) continue;
        seen.add(skill.name);
        skills.push(skill);
      } catch (error) {
        logger.warn(`skipping skill ${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return skills;
}

async function parseSkill(
  content: string,
  where: { path: string; baseDir: string; fallbackName: string; source: string },
): Promise<SkillDefinition> {
  const frontMatter = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(content);
  let fields: Record<string, unknown> = {};
  if (frontMatter) {
    const { parse } = await import("yaml");
    const parsed = parse(frontMatter[1] ?? "") as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) fields = parsed as Record<string, unknown>;
  }
  const name = typeof fields.name === "string" && fields.name.trim() ? fields.name.trim() : where.fallbackName;
  const body = frontMatter ? content.slice(frontMatter[0].length) : content;
  const description =
    typeof fields.description === "string" ? fields.description.trim() : (body.split("\n").find((line) => line.trim())?.trim() ?? "");
  const allowed = fields["allowed-tools"] ?? fields.allowedTools;
  const allowedTools = Array.isArray(allowed)
    ? allowed.map(String)
    : typeof allowed === "string"
      ? allowed.split(/[,\s]+/).filter(Boolean)
      : undefined;
  return { name, description, path: where.path, baseDir: where.baseDir, content, allowedTools, source: where.source };
}

/** The message that puts a skill's instructions into the conversation. */
export function skillContextMessage(skill: { name: string; path: string; content: string }): string {
  const baseDir = skill.path.replace(/[\\/]SKILL\.md$/, "");
  return `<skill-context name="${skill.name}">\nBase directory for this skill: ${baseDir}\n\n${skill.content}\n</skill-context>`;
}
