import {
  SessionRemoteDisable,
  SessionRemoteEnable,
  SessionRemoteNotifySteerableChanged,
  SessionsGetRemoteControlStatus,
  SessionsSetRemoteControlSteering,
  SessionsStartRemoteControl,
  SessionsStopRemoteControl,
  SessionsTransferRemoteControl,
} from "@tandem/protocol/methods/remote-control";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../../errors.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/** Remote control is always off: it hands sessions to GitHub's hosted service, which Tandem does not use. */
const off = { state: "off" as const };

function remoteNotAvailable(what: string): TandemError {
  return new TandemError(ErrorCodes.NotAvailable, `${what} is not available in Tandem: remote control and remote sessions need GitHub's hosted service, and Tandem runs sessions locally`);
}

/**
 * Remote control (`sessions.*RemoteControl*`) and a session's remote access (`session.remote.*`):
 * queries and no-ops answer with the `off` state, starting anything remote is refused with
 * `NotAvailable`, and a client's report that the session's remote steerability changed is recorded
 * in the session (`session.remote_steerable_changed`, persisted).
 */
export function registerRemoteControlMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;
  table.on(SessionsGetRemoteControlStatus, () => ({ status: off }));
  table.on(SessionsSetRemoteControlSteering, () => ({ status: off }));
  table.on(SessionsStopRemoteControl, () => ({ status: off, stopped: false }));
  table.on(SessionsTransferRemoteControl, () => ({ status: off, transferred: false }));
  table.on(SessionsStartRemoteControl, ({ sessionId }) => {
    sessions.get(sessionId);
    throw remoteNotAvailable(`Remote control of session ${sessionId}`);
  });

  table.on(SessionRemoteEnable, ({ sessionId, mode }) => {
    sessions.get(sessionId);
    if (mode !== undefined && mode !== "off") throw remoteNotAvailable(`session.remote.enable with mode "${mode}"`);
    return { remoteSteerable: false };
  });
  table.on(SessionRemoteDisable, ({ sessionId }) => {
    sessions.get(sessionId);
    return {};
  });
  table.on(SessionRemoteNotifySteerableChanged, ({ sessionId, remoteSteerable }) => {
    sessions.get(sessionId).emitter.emit("session.remote_steerable_changed", { remoteSteerable });
    return {};
  });
}
