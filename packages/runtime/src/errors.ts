import { ErrorCodes, type ErrorCode } from "@tandem/protocol/errors";

/**
 * The one base class for Tandem's own errors. `code` is stable and maps to a JSON-RPC error code at
 * the server edge; `data` is optional structured detail for clients.
 *
 * @example
 * throw new TandemError(ErrorCodes.SessionNotFound, `Session not found: ${id}`);
 */
export class TandemError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "TandemError";
  }
}

/** The session id names no live or persisted session. */
export function sessionNotFound(sessionId: unknown): TandemError {
  return new TandemError(ErrorCodes.SessionNotFound, `Session not found: ${String(sessionId)}`, { sessionId });
}

/** Invalid params, with a message a person (or a model) can act on. */
export function invalidParams(message: string, data?: Record<string, unknown>): TandemError {
  return new TandemError(ErrorCodes.InvalidParams, message, data);
}

/** The message of any thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

export { ErrorCodes };
