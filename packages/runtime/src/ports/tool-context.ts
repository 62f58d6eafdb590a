import type { EventEmitterPort } from "./events.js";

/** How one call's context is made. */
export interface ContextOptions {
  /** A preToolUse hook said allow: no permission request. */
  preApproved?: boolean;
  /** The emitter of a sub-agent's scope (default: the session's). */
  emitter?: EventEmitterPort;
  /** The call's place in its round's permission order (see `PermissionTurns`; used when the client generation's profile keeps call order). */
  permissionTurn?: PermissionTurn;
}

/** One call's place in the permission order of its round of tool calls. */
export interface PermissionTurn {
  /** Sends `request` once the earlier calls of the round are past theirs. */
  ask<T>(request: () => Promise<T>): Promise<T>;
  /** The call was answered without asking anyone: later calls need not wait for it. */
  pass(): void;
}
