/**
 * Session lifecycle beyond create / resume / destroy (the official SDK 1.0.x's names):
 * `session.suspend` (the permission requests still waiting and queued commands are in
 * `session-extras.ts`).
 */
import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

const sessionScoped = { sessionId: SessionId };

/**
 * `session.suspend`: stops the running turn (a waiting permission request is cancelled, a waiting
 * external tool call rejected), drops queued messages and makes the session's files durable; the
 * session stays open and can be resumed and continued.
 */
export const SessionSuspend = defineRequest("session.suspend", () => z.looseObject(sessionScoped), () => z.looseObject({}).nullable().optional());

/** The requests of this file, for `clientToServerRequests`. */
export const lifecycleRequests = [SessionSuspend] as const;
