import { invalidParams } from "../errors.js";
import type { SessionScopePort } from "../ports/session-scope.js";
import { z } from "zod";
import { defineBuiltinTool } from "../tools/builtin/define.js";
import { failure, success, type Tool, type ToolOutcome } from "../tools/types.js";
import { folderContains } from "../trust/trusted-folders.js";
import { loadSkills, skillContextMessage, type SkillDefinition } from "./loader.js";

/** What skills read of their session's scope: the working folder and whether the user trusts it. */
export type SkillsHost = Pick<SessionScopePort, "emitter" | "logger" | "workingDirectory" | "folderTrust">;

/** A skill the model loaded, and in which turn (the count of user messages so far). */
export type InvokedSkill = {
  name: string;
  path: string;
  content: string;
  allowedTools?: string[];
  invokedAtTurn: number;
};

/**
 * The session's skills: loaded from `skillDirectories`, minus `disabledSkills`;
 * offered to the model as a catalogue in the `skill` tool; `session.skills.*` list, enable,
 * disable and reload them.
 *
 * @example
 * const skills = new SessionSkills(["./skills"], [], host);
 * await skills.load();
 */
export class SessionSkills {
  private skills: SkillDefinition[] = [];
  private readonly disabled: Set<string>;
  private loaded: Promise<void> | undefined;
  private readonly invocations: InvokedSkill[] = [];
  private turn = 0;

  constructor(
    private directories: readonly string[],
    disabledSkills: readonly string[],
    private readonly host: SkillsHost,
    /** Approves tools without asking for the rest of the session (a skill's `allowed-tools`). */
    private readonly autoApprove: (toolNames: readonly string[]) => void,
  ) {
    this.disabled = new Set(disabledSkills);
    host.emitter.addListener((event) => {
      if (event.type === "user.message") this.turn++;
    });
  }

  /** Reads the skill directories; emits `session.skills_loaded`. */
  load(): Promise<void> {
    const loading = (async () => {
      this.skills = await loadSkills(this.directories, this.host.workingDirectory, this.host.logger);
      if (this.directories.length === 0) return;
      this.announce();
    })();
    this.loaded = loading;
    return loading;
  }

  /** Reads the skill directories unless a load already ran or is running (`session.skills.ensureLoaded`). */
  ensureLoaded(): Promise<void> {
    return this.loaded ?? this.load();
  }

  /** The skills the model loaded with the `skill` tool, oldest first (`session.skills.getInvoked`). */
  invoked(): InvokedSkill[] {
    return this.invocations.map((invocation) => ({ ...invocation }));
  }

  /**
   * Emits `session.skills_loaded` with the skills loaded now (also when there are none, as the
   * reference does at resume). They come from the session's configured directories: source `custom`.
   */
  announce(): void {
    this.host.emitter.emit("session.skills_loaded", {
      skills: this.skills.map((skill) => ({
        name: skill.name,
        description: skill.description,
        source: "custom",
        userInvocable: true,
        enabled: !this.disabled.has(skill.name),
        path: skill.path,
      })),
    });
  }

  /** Replaces the skill directories (resume with new settings) and reloads. */
  async reconfigure(directories: readonly string[], disabledSkills: readonly string[]): Promise<void> {
    this.directories = directories;
    this.disabled.clear();
    for (const name of disabledSkills) this.disabled.add(name);
    await this.load();
  }

  list(): Array<{ name: string; description: string; source: string; userInvocable: boolean; enabled: boolean; path: string }> {
    return this.skills.map((skill) => ({
      name: skill.name,
      description: skill.description,
      source: skill.source,
      userInvocable: true,
      enabled: !this.disabled.has(skill.name),
      path: skill.path,
    }));
  }

  enable(name: string): void {
    this.find(name);
    this.disabled.delete(name);
  }

  disable(name: string): void {
    this.find(name);
    this.disabled.add(name);
  }

  /** The `skill` tool, when at least one skill is enabled. */
  tools(): Tool[] {
    const enabled = this.skills.filter((skill) => !this.disabled.has(skill.name));
    if (enabled.length === 0) return [];
    const catalogue = enabled.map((skill) => `- ${skill.name}: ${skill.description}`).join("\n");
    return [
      defineBuiltinTool({
        name: "skill",
        description: `Load a skill: a set of instructions (and files) for a kind of task. Load one when the task matches its description, then follow it.\nAvailable skills:\n${catalogue}`,
        schema: z.object({ skill: z.string().describe("The name of the skill to load") }),
        execute: async (args) => this.invoke(args.skill, enabled),
      }),
    ];
  }

  private async invoke(name: string, enabled: SkillDefinition[]): Promise<ToolOutcome> {
    const skill = enabled.find((candidate) => candidate.name === name);
    if (!skill) return failure(`Skill "${name}" not found. Available skills: ${enabled.map((candidate) => candidate.name).join(", ")}`, "Skill not found");
    this.invocations.push({ name: skill.name, path: skill.path, content: skill.content, ...(skill.allowedTools ? { allowedTools: [...skill.allowedTools] } : {}), invokedAtTurn: this.turn });
    this.host.emitter.emit("skill.invoked", {
      name: skill.name,
      path: skill.path,
      content: skill.content,
      ...(skill.allowedTools ? { allowedTools: skill.allowedTools } : {}),
    });
    // The skill's instructions are injected for the model: announced as the developer prompt they are.
    this.host.emitter.emit("system.message", { content: skillContextMessage(skill), role: "developer", name: `skill:${skill.name}` });
    if (skill.allowedTools) await this.approveAllowedTools(skill, skill.allowedTools);
    return success(`Skill "${skill.name}" loaded successfully. Follow the instructions in the skill context.`, {
      followUpMessages: [skillContextMessage(skill)],
    });
  }

  /**
   * Approves a skill's `allowed-tools` for the rest of the session. A skill from inside the working
   * folder is the folder's text, and text in the folder grants nothing: its tools keep asking
   * unless the user trusts the folder (a `session.warning` says so and how to trust it).
   */
  private async approveAllowedTools(skill: SkillDefinition, toolNames: string[]): Promise<void> {
    const { host } = this;
    if (!(await folderContains(host.workingDirectory, skill.baseDir)) || (await host.folderTrust.trusts(host.workingDirectory))) {
      this.autoApprove(toolNames);
      return;
    }
    const message =
      `Skill ${skill.name} (${skill.path}) comes from the working folder ${host.workingDirectory}: its allowed-tools (${toolNames.join(", ")}) still ask for permission. ` +
      `To approve them when the skill loads, ${host.folderTrust.howToTrust(host.workingDirectory)}.`;
    host.logger.warn(message);
    host.emitter.emit("session.warning", { warningType: "skill", message });
  }

  private find(name: string): SkillDefinition {
    const skill = this.skills.find((candidate) => candidate.name === name);
    if (!skill) throw invalidParams(`Unknown skill "${name}". Skills: ${this.skills.map((candidate) => candidate.name).join(", ") || "(none)"}`, { name });
    return skill;
  }
}
