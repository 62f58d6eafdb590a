import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../errors.js";

/** Categories of provider failures, as `session.error.errorType` reports them. */
export type ProviderErrorType = "authentication" | "quota" | "rate_limit" | "context_length" | "network" | "provider" | "timeout";

/** A model provider call failed. */
export class ProviderError extends TandemError {
  constructor(
    message: string,
    readonly errorType: ProviderErrorType,
    readonly statusCode: number | undefined,
    readonly providerCallId: string | undefined,
    readonly retryable: boolean,
    readonly retryAfterMs: number | undefined,
  ) {
    super(ErrorCodes.ProviderError, message, { errorType, statusCode, providerCallId });
    this.name = "ProviderError";
  }
}

/** Builds a {@link ProviderError} from an HTTP status and body text. */
export function providerErrorFromStatus(
  statusCode: number,
  bodyText: string,
  headers: Record<string, string> | undefined,
  fallbackMessage: string,
): ProviderError {
  const providerCallId = headers?.["x-github-request-id"] ?? headers?.["x-request-id"];
  const retryAfterMs = parseRetryAfter(headers?.["retry-after"]);
  const detail = extractErrorMessage(bodyText) ?? fallbackMessage;
  const errorType = classifyStatus(statusCode, detail);
  const retryable = statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500;
  return new ProviderError(`Model request failed (HTTP ${statusCode}): ${detail}`, errorType, statusCode, providerCallId, retryable, retryAfterMs);
}

function classifyStatus(statusCode: number, detail: string): ProviderErrorType {
  if (statusCode === 401 || statusCode === 403) return "authentication";
  if (statusCode === 429) return /quota|insufficient/i.test(detail) ? "quota" : "rate_limit";
  if (statusCode === 402) return "quota";
  if (statusCode === 400 || statusCode === 413) {
    if (/context|too long|maximum.*tokens|token limit/i.test(detail)) return "context_length";
  }
  return "provider";
}

function extractErrorMessage(bodyText: string): string | undefined {
  if (!bodyText) return undefined;
  try {
    const body = JSON.parse(bodyText) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof body.error === "string") return body.error;
    if (body.error && typeof body.error.message === "string") return body.error.message;
    if (typeof body.message === "string") return body.message;
  } catch {
    // not JSON: use the text itself
  }
  return bodyText.slice(0, 500);
}

/** `retry-after` in seconds or as an HTTP date, in milliseconds. */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - Date.now());
}
