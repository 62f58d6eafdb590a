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

/** `llmInference.httpResponseStart`: a client answers a model request the runtime delegated to it (status and headers). */
export const LlmInferenceHttpResponseStart = defineRequest(
  "llmInference.httpResponseStart",
  () => z.looseObject({ requestId: z.string(), status: z.number().int(), statusText: z.string().optional(), headers: z.record(z.string(), z.array(z.string())).optional() }),
  () => z.looseObject({ accepted: z.boolean() }),
);

/** `llmInference.httpResponseChunk`: a body chunk (or the end, or an error) of a delegated model response. */
export const LlmInferenceHttpResponseChunk = defineRequest(
  "llmInference.httpResponseChunk",
  () => z.looseObject({
    requestId: z.string(),
    data: z.string(),
    binary: z.boolean().optional(),
    end: z.boolean(),
    error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
  }),
  () => z.looseObject({ accepted: z.boolean() }),
);

/** Miscellaneous server-scoped requests Tandem serves. */
export const serverMiscRequests = [
  SecretsAddFilterValues,
  SessionFsSetProvider,
  AgentRegistrySpawn,
  SessionExtensionsSendAttachmentsToMessage,
  LlmInferenceHttpResponseStart,
  LlmInferenceHttpResponseChunk,
] as const;
