import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../errors.js";

/** Categories of provider failures, as `session.error.errorType` reports them. */
export type ProviderErrorType = "authentication" | "quota" | "rate_limit" | "context_length" | "network" | "provider" | "timeout";

/**
 * A model provider call failed. `retryable` and `retryAfterMs` drive the loop's retries;
 * `errorType`, `statusCode` and `providerCallId` go to `session.error`.
 *
 * @example
 * throw new ProviderError("Model request failed (HTTP 503): busy", "provider", 503, "req_1", true, 2000);
 */
export class ProviderError extends TandemError {
  constructor(
    message: string,
    readonly errorType: ProviderErrorType,
    readonly statusCode: number | undefined,
    readonly providerCallId: string | undefined,
    readonly retryable: boolean,
    readonly retryAfterMs: number | undefined,
    /** The provider's own error code (`error.code` of the body, e.g. `user_weekly_rate_limited`), when it sent one. */
    readonly providerCode?: string,
  ) {
    super(ErrorCodes.ProviderError, message, { errorType, statusCode, providerCallId });
    this.name = "ProviderError";
  }
}
