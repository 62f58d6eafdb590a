/**
 * Extensions of a session (the official SDK 1.0.x's `session.extensions.*`): the child processes
 * the runtime started from `.github/extensions/<name>/extension.mjs` and `<home>/extensions/`.
 */
import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

const sessionScoped = { sessionId: SessionId };

/** One extension: source-qualified id, folder name, where it was found, its status and process id. */
export const ExtensionInfo = z.looseObject({
  id: z.string(),
  name: z.string(),
  source: z.string(),
  status: z.string(),
  pid: z.number().optional(),
});

/** `session.extensions.list`. */
export const SessionExtensionsList = defineRequest("session.extensions.list", () => z.looseObject(sessionScoped), () => z.looseObject({ extensions: z.array(ExtensionInfo) }));
/** `session.extensions.reload`: stop the session's extensions, discover them again and start them. */
export const SessionExtensionsReload = defineRequest("session.extensions.reload", () => z.looseObject(sessionScoped), () => z.looseObject({}).nullable().optional());

/** The requests of this file, for `clientToServerRequests`. */
export const extensionRequests = [SessionExtensionsList, SessionExtensionsReload] as const;
