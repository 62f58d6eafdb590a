/**
 * Skills, plugins and extension toggles of the official SDK 1.0.x beyond list/enable/disable/reload:
 * `session.skills.ensureLoaded` / `getInvoked`, `session.plugins.list`, and
 * `session.extensions.enable` / `disable`.
 */
import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

const sessionScoped = { sessionId: SessionId };
const EmptyOrNull = z.lazy(() => z.looseObject({}).nullable().optional());

/** A skill the model loaded during the session, and at which turn. */
export const InvokedSkill = z.lazy(() => z.looseObject({
  name: z.string(),
  path: z.string(),
  content: z.string(),
  allowedTools: z.array(z.string()).optional(),
  invokedAtTurn: z.number(),
}));

/** `session.skills.ensureLoaded`: reads the skill directories unless that already happened. */
export const SessionSkillsEnsureLoaded = defineRequest("session.skills.ensureLoaded", () => z.looseObject(sessionScoped), () => EmptyOrNull);
/** `session.skills.getInvoked`: the skills the model loaded, oldest first. */
export const SessionSkillsGetInvoked = defineRequest("session.skills.getInvoked", () => z.looseObject(sessionScoped), () => z.looseObject({ skills: z.array(InvokedSkill) }));

/** One plugin as a session sees it. */
export const SessionPluginInfo = z.lazy(() => z.looseObject({ name: z.string(), marketplace: z.string(), version: z.string().optional(), enabled: z.boolean() }));
/** `session.plugins.list`: the installed plugins. */
export const SessionPluginsList = defineRequest("session.plugins.list", () => z.looseObject(sessionScoped), () => z.looseObject({ plugins: z.array(SessionPluginInfo) }));

/** `session.extensions.enable`: starts a discovered extension that was disabled. */
export const SessionExtensionsEnable = defineRequest("session.extensions.enable", () => z.looseObject({ ...sessionScoped, id: z.string().min(1) }), () => EmptyOrNull);
/** `session.extensions.disable`: stops a running extension and keeps it stopped. */
export const SessionExtensionsDisable = defineRequest("session.extensions.disable", () => z.looseObject({ ...sessionScoped, id: z.string().min(1) }), () => EmptyOrNull);

/** The requests of this file, for `clientToServerRequests`. */
export const skillsPluginsRequests = [SessionSkillsEnsureLoaded, SessionSkillsGetInvoked, SessionPluginsList, SessionExtensionsEnable, SessionExtensionsDisable] as const;
