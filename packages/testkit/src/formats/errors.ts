/**
 * Provider error bodies, with the error `type` derived from the HTTP status when
 * the script does not give one.
 */

/** OpenAI error `type` for a status (chat completions and responses API). */
function openAiErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** Anthropic error `type` for a status. */
function anthropicErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

/** `{ error: { message, type, param, code } }` as sent by OpenAI (and the Copilot API). */
export function openAiErrorBody(status: number, message: string, type: string | undefined, scriptedCode?: string): unknown {
  const code = scriptedCode ?? (status === 429 ? "rate_limit_exceeded" : null);
  return { error: { message, type: type ?? openAiErrorType(status), param: null, code } };
}

/** `{ type: "error", error: { type, message } }` as sent by Anthropic. */
export function anthropicErrorBody(status: number, message: string, type: string | undefined): unknown {
  return { type: "error", error: { type: type ?? anthropicErrorType(status), message } };
}
