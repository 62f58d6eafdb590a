import { ErrorCodes, TandemError } from "../errors.js";

/**
 * The session's sandbox is required but cannot start (no bubblewrap, no user namespaces, an
 * unsupported platform), or a sandbox action the config does not allow was asked for. The message
 * says why and how to run unsandboxed; nothing ran.
 *
 * @example
 * throw new SandboxUnavailableError("bubblewrap was not found at /usr/bin/bwrap", "no-bwrap");
 */
export class SandboxUnavailableError extends TandemError {
  constructor(
    readonly reason: string,
    readonly kind: "unavailable" | "not-allowed" = "unavailable",
  ) {
    super(
      ErrorCodes.SandboxUnavailable,
      kind === "unavailable"
        ? `The sandbox cannot start: ${reason}. Nothing was run. To run commands without a sandbox, the application must set sandbox.enabled to false for this session (or start the runtime without --sandbox / TANDEM_SANDBOX); with sandbox.allowBypass it may approve single commands outside the sandbox.`
        : reason,
      { reason },
    );
    this.name = "SandboxUnavailableError";
  }
}
