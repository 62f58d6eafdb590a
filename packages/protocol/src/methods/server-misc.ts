import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

/** `secrets.addFilterValues`: values the runtime redacts from then on, in what it logs, persists and sends. */
export const SecretsAddFilterValues = defineRequest(
  "secrets.addFilterValues",
  () => z.looseObject({ values: z.array(z.string()) }),
  () => z.looseObject({ ok: z.literal(true) }),
);

/** `sessionFs.setProvider`: the client offers to hold session state in its own file system. */
export const SessionFsSetProvider = defineRequest(
  "sessionFs.setProvider",
  () => z.looseObject({
    initialCwd: z.string(),
    sessionStatePath: z.string(),
    conventions: z.enum(["windows", "posix"]),
    capabilities: z.looseObject({ sqlite: z.boolean().optional() }).optional(),
  }),
  () => z.looseObject({ success: z.boolean() }),
);

/** `agentRegistry.spawn`: starts an agent process through a registry delegate (none in Tandem: refused). */
export const AgentRegistrySpawn = defineRequest(
  "agentRegistry.spawn",
  () => z.looseObject({
    cwd: z.string(),
    agentName: z.string().optional(),
    model: z.string().optional(),
    name: z.string().optional(),
    permissionMode: z.enum(["default", "yolo"]).optional(),
    initialPrompt: z.string().optional(),
  }),
  () => z.looseObject({}),
);

/** `session.extensions.sendAttachmentsToMessage`: an extension adds attachments to the session's next message. */
export const SessionExtensionsSendAttachmentsToMessage = defineRequest(
  "session.extensions.sendAttachmentsToMessage",
  () => z.looseObject({ sessionId: SessionId, attachments: z.array(z.unknown()) }),
  () => z.looseObject({}),
);

/** Miscellaneous server-scoped requests Tandem serves. */
export const serverMiscRequests = [
  SecretsAddFilterValues,
  SessionFsSetProvider,
  AgentRegistrySpawn,
  SessionExtensionsSendAttachmentsToMessage,
] as const;
