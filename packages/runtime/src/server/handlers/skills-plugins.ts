import { SessionPluginsList, SessionSkillsEnsureLoaded, SessionSkillsGetInvoked } from "@tandem/protocol/methods/skills-plugins";
import type { SessionSkills } from "../../skills/session-skills.js";
import type { MethodTable } from "../method-table.js";

/** What these handlers need of the runtime. */
export interface SkillsPluginsHost {
  /** The live session's skills, or a `SessionNotFound` error. */
  skillsOf(sessionId: string): Pick<SessionSkills, "ensureLoaded" | "invoked">;
  /** Throws `SessionNotFound` unless the session is live. */
  requireSession(sessionId: string): void;
  /** The installed plugins, as a session lists them. */
  plugins(): Promise<Array<{ name: string; marketplace: string; version?: string; enabled: boolean }>>;
}

/** `session.skills.ensureLoaded` / `getInvoked` and `session.plugins.list`. */
export function registerSkillsPluginsMethods(table: MethodTable, host: SkillsPluginsHost): void {
  table.on(SessionSkillsEnsureLoaded, async ({ sessionId }) => {
    await host.skillsOf(sessionId).ensureLoaded();
    return {};
  });
  table.on(SessionSkillsGetInvoked, ({ sessionId }) => ({ skills: host.skillsOf(sessionId).invoked() }));
  table.on(SessionPluginsList, async ({ sessionId }) => {
    host.requireSession(sessionId);
    return { plugins: await host.plugins() };
  });
}
