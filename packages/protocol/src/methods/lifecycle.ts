/**
 * Session lifecycle beyond create / resume / destroy (the official SDK 1.0.x's names):
 * `session.suspend`, the permission requests still waiting, and slash commands queued by text.
 */
import { z } from "zod";
import { PermissionRequest, SessionId } from "../common.js";
import { defineRequest } from "../method.js";

const sessionScoped = { sessionId: SessionId };

/**
 * `session.suspend`: stops the running turn (a waiting permission request is cancelled, a waiting
 * external tool call rejected), drops queued messages and makes the session's files durable; the
 * session stays open and can be resumed and continued.
 */
export const SessionSuspend = defineRequest("session.suspend", () => z.looseObject(sessionScoped), () => z.looseObject({}).nullable().optional());

/** `session.permissions.pendingRequests`: the permission requests waiting for an answer. */
export const SessionPermissionsPendingRequests = defineRequest(
  "session.permissions.pendingRequests",
  () => z.looseObject(sessionScoped),
  () => z.looseObject({ items: z.array(z.looseObject({ requestId: z.string(), request: PermissionRequest })) }),
);

/** `session.commands.enqueue`: queues a slash command (`/name args`) behind the waiting messages. */
export const SessionCommandsEnqueue = defineRequest(
  "session.commands.enqueue",
  () => z.looseObject({ ...sessionScoped, command: z.string().min(1) }),
  () => z.looseObject({ queued: z.boolean() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const lifecycleRequests = [SessionSuspend, SessionPermissionsPendingRequests, SessionCommandsEnqueue] as const;
