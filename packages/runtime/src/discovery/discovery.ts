import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import type { Logger } from "../log.js";
import { loadSkills } from "../skills/loader.js";

/** A folder or file where skills, agents or instructions are looked for (or would be created). */
export type DiscoveryPath = {
  path: string;
  preferredForCreation: boolean;
  projectPath?: string;
};

/** A skill found by {@link Discovery.skills}. */
export type FoundSkill = {
  name: string;
  description: string;
  source: "project" | "personal-copilot" | "custom";
  userInvocable: boolean;
  enabled: boolean;
  path: string;
  projectPath?: string;
};

/** A custom agent file found by {@link Discovery.agents}. */
export type FoundAgent = {
  id: string;
  name: string;
  displayName: string;
  description: string;
  path: string;
  source: "project" | "user";
  userInvocable: boolean;
  tools?: string[];
  model?: string;
};

/** An instruction file found by {@link Discovery.instructions}. */
export type FoundInstructions = {
  id: string;
  label: string;
  sourcePath: string;
  content: string;
  type: "repo";
  location: "repository";
  applyTo?: string[];
  projectPath: string;
};

/** What discovery reads besides the file system. */
export interface DiscoveryOptions {
  /** The runtime's home folder (`<home>/skills`, `<home>/agents` are the user's own). */
  home: string;
  /** The instruction files a session reads from its working directory, relative to it, in order. */
  instructionFiles: readonly string[];
  logger: Logger;
}

/** Where project skills, agents and scoped instructions live, relative to a project. */
const projectSkills = join(".github", "skills");
const projectAgents = join(".github", "agents");
const projectInstructions = join(".github", "instructions");
const agentSuffixes = [".agent.md", ".md"];

/**
 * Sessionless discovery of what lies on disk for a set of projects (`skills.*`, `agents.*`,
 * `instructions.*` `.discover` / `.getDiscoveryPaths`): each project's `.github/skills`,
 * `.github/agents`, instruction files (those a session reads from its working directory, and
 * `.github/instructions/*.instructions.md`), and the user's `<home>/skills` and `<home>/agents`
 * unless the host's are excluded. Missing folders are simply empty.
 *
 * @example
 * const discovery = new Discovery({ home, instructionFiles: ["AGENTS.md"], logger });
 * const skills = await discovery.skills({ projectPaths: ["/repo"], disabled: new Set() });
 */
export class Discovery {
  constructor(private readonly options: DiscoveryOptions) {}

  /** The skill folders, project folders first (the first project's is preferred for creation). */
  skillPaths(projectPaths: readonly string[], excludeHost: boolean, includeProjects: boolean): Array<DiscoveryPath & { scope: "project" | "personal-copilot" }> {
    const projects = includeProjects ? projectPaths.map((project, index) => ({ path: join(resolve(project), projectSkills), scope: "project" as const, preferredForCreation: index === 0, projectPath: resolve(project) })) : [];
    if (excludeHost) return projects;
    return [...projects, { path: join(this.options.home, "skills"), scope: "personal-copilot" as const, preferredForCreation: projects.length === 0 }];
  }

  /** The skills of the discovery folders and of `skillDirectories`; a name seen first wins. */
  async skills(request: { projectPaths: readonly string[]; skillDirectories: readonly string[]; excludeHost: boolean; includeProjects: boolean; disabled: ReadonlySet<string> }): Promise<FoundSkill[]> {
    const found: FoundSkill[] = [];
    const seen = new Set<string>();
    const folders = [
      ...this.skillPaths(request.projectPaths, request.excludeHost, request.includeProjects).map((path) => ({ path: path.path, source: path.scope, projectPath: path.projectPath })),
      ...request.skillDirectories.map((directory) => ({ path: resolve(directory), source: "custom" as const, projectPath: undefined })),
    ];
    for (const folder of folders) {
      if (!(await isDirectory(folder.path))) continue;
      for (const skill of await loadSkills([folder.path], folder.path, this.options.logger)) {
        if (seen.has(skill.name)) continue;
        seen.add(skill.name);
        found.push({
          name: skill.name,
          description: skill.description,
          source: folder.source,
          userInvocable: true,
          enabled: !request.disabled.has(skill.name),
          path: skill.path,
          ...(folder.projectPath !== undefined ? { projectPath: folder.projectPath } : {}),
        });
      }
    }
    return found;
  }

  /** The custom-agent folders, project folders first. */
  agentPaths(projectPaths: readonly string[], excludeHost: boolean): Array<DiscoveryPath & { scope: "project" | "user" }> {
    const projects = projectPaths.map((project, index) => ({ path: join(resolve(project), projectAgents), scope: "project" as const, preferredForCreation: index === 0, projectPath: resolve(project) }));
    if (excludeHost) return projects;
    return [...projects, { path: join(this.options.home, "agents"), scope: "user" as const, preferredForCreation: projects.length === 0 }];
  }

  /** The custom agents (`<name>.agent.md` or `<name>.md`, front matter `name`, `description`, `tools`, `model`). */
  async agents(projectPaths: readonly string[], excludeHost: boolean): Promise<FoundAgent[]> {
    const found: FoundAgent[] = [];
    const seen = new Set<string>();
    for (const folder of this.agentPaths(projectPaths, excludeHost)) {
      const entries = await readdir(folder.path).catch(() => [] as string[]);
      for (const entry of entries.sort()) {
        const suffix = agentSuffixes.find((candidate) => entry.endsWith(candidate));
        if (!suffix) continue;
        const path = join(folder.path, entry);
        const text = await readFile(path, "utf8").catch(() => undefined);
        if (text === undefined) continue;
        const fields = await frontMatter(text);
        const id = basename(entry, suffix);
        const name = typeof fields.name === "string" && fields.name.trim() ? fields.name.trim() : id;
        if (seen.has(name)) continue;
        seen.add(name);
        found.push({
          id,
          name,
          displayName: typeof fields.displayName === "string" ? fields.displayName : name,
          description: typeof fields.description === "string" ? fields.description : "",
          path,
          source: folder.scope,
          userInvocable: fields["user-invocable"] !== false,
          ...(Array.isArray(fields.tools) ? { tools: fields.tools.map(String) } : {}),
          ...(typeof fields.model === "string" ? { model: fields.model } : {}),
        });
      }
    }
    return found;
  }

  /** The instruction files and folders a session in each project reads (there are no user-level ones). */
  instructionPaths(projectPaths: readonly string[]): Array<DiscoveryPath & { location: "repository"; kind: "file" | "directory"; projectPath: string }> {
    return projectPaths.flatMap((project) => {
      const root = resolve(project);
      return [
        ...this.options.instructionFiles.map((file, index) => ({ path: join(root, file), location: "repository" as const, kind: "file" as const, preferredForCreation: index === 0, projectPath: root })),
        { path: join(root, projectInstructions), location: "repository" as const, kind: "directory" as const, preferredForCreation: false, projectPath: root },
      ];
    });
  }

  /** The instruction files that exist, with their text and (for scoped ones) their `applyTo` patterns. */
  async instructions(projectPaths: readonly string[]): Promise<FoundInstructions[]> {
    const found: FoundInstructions[] = [];
    for (const target of this.instructionPaths(projectPaths)) {
      const files =
        target.kind === "file"
          ? [target.path]
          : (await readdir(target.path).catch(() => [] as string[])).filter((name) => name.endsWith(".instructions.md")).sort().map((name) => join(target.path, name));
      for (const file of files) {
        const content = await readFile(file, "utf8").catch(() => undefined);
        if (content === undefined) continue;
        const fields = await frontMatter(content);
        const applyTo = typeof fields.applyTo === "string" ? fields.applyTo.split(",").map((pattern) => pattern.trim()).filter(Boolean) : undefined;
        const label = file.slice(target.projectPath.length + 1);
        found.push({ id: `${target.projectPath}:${label}`, label, sourcePath: file, content, type: "repo", location: "repository", ...(applyTo ? { applyTo } : {}), projectPath: target.projectPath });
      }
    }
    return found;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

/** The `---` YAML front matter of a Markdown file as an object (empty when absent or not an object). */
async function frontMatter(text: string): Promise<Record<string, unknown>> {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match) return {};
  const { parse } = await import("yaml");
  try {
    const parsed = parse(match[1] ?? "") as unknown;
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
