import { z } from "zod";
import { SessionId } from "../common.js";
import { defineRequest } from "../method.js";

const noParams = () => z.preprocess((value) => (value === undefined || value === null || Array.isArray(value) ? {} : value), z.looseObject({}));

/**
 * Remote control's state. Remote control hands a session to GitHub's hosted service; Tandem has no
 * such service, so the state it reports is always `off`.
 */
export const RemoteControlStatus = z.lazy(() => z.looseObject({ state: z.enum(["off", "connecting", "active", "error"]) }));

const statusResult = () => z.looseObject({ status: RemoteControlStatus });

/** `sessions.getRemoteControlStatus`. */
export const SessionsGetRemoteControlStatus = defineRequest("sessions.getRemoteControlStatus", noParams, statusResult);

/** `sessions.setRemoteControlSteering`: whether remote viewers may steer (nothing to change while off). */
export const SessionsSetRemoteControlSteering = defineRequest(
  "sessions.setRemoteControlSteering",
  () => z.looseObject({ enabled: z.boolean() }),
  statusResult,
);

/** `sessions.stopRemoteControl`: `stopped` says whether remote control was running. */
export const SessionsStopRemoteControl = defineRequest(
  "sessions.stopRemoteControl",
  () => z.preprocess((value) => (value === undefined || value === null ? {} : value), z.looseObject({ expectedSessionId: z.string().optional(), force: z.boolean().optional() })),
  () => z.looseObject({ status: RemoteControlStatus, stopped: z.boolean() }),
);

/** `sessions.transferRemoteControl`: moves remote control to another session (compare-and-swap on `expectedFromSessionId`). */
export const SessionsTransferRemoteControl = defineRequest(
  "sessions.transferRemoteControl",
  () => z.looseObject({ toSessionId: z.string(), expectedFromSessionId: z.string().optional() }),
  () => z.looseObject({ status: RemoteControlStatus, transferred: z.boolean() }),
);

/** `sessions.startRemoteControl`: starts remote control of a session (not available in Tandem). */
export const SessionsStartRemoteControl = defineRequest(
  "sessions.startRemoteControl",
  () => z.looseObject({ sessionId: z.string(), config: z.looseObject({}).optional() }),
  statusResult,
);

/** `session.remote.enable`: exports or steers the session remotely; mode `off` turns it off (the only mode Tandem has). */
export const SessionRemoteEnable = defineRequest(
  "session.remote.enable",
  () => z.looseObject({ sessionId: SessionId, mode: z.enum(["off", "export", "on"]).optional() }),
  () => z.looseObject({ url: z.string().optional(), remoteSteerable: z.boolean() }),
);

/** `session.remote.disable`: turns remote access to the session off. */
export const SessionRemoteDisable = defineRequest("session.remote.disable", () => z.looseObject({ sessionId: SessionId }), () => z.looseObject({}));

/** `session.remote.notifySteerableChanged`: records (as `session.remote_steerable_changed`) whether the session can be steered remotely. */
export const SessionRemoteNotifySteerableChanged = defineRequest(
  "session.remote.notifySteerableChanged",
  () => z.looseObject({ sessionId: SessionId, remoteSteerable: z.boolean() }),
  () => z.looseObject({}),
);

/** The remote-control requests Tandem serves. */
export const remoteControlRequests = [
  SessionsGetRemoteControlStatus,
  SessionsSetRemoteControlSteering,
  SessionsStopRemoteControl,
  SessionsTransferRemoteControl,
  SessionsStartRemoteControl,
  SessionRemoteEnable,
  SessionRemoteDisable,
  SessionRemoteNotifySteerableChanged,
] as const;
