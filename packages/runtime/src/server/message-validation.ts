import { ErrorCodes, type Message } from "vscode-jsonrpc";

/** A JSON-RPC id as the spec allows it. */
export type MessageId = string | number | null;

/** An error the edge answers instead of handing the message on. */
export interface ErrorReply {
  id: MessageId;
  code: number;
  message: string;
}

/**
 * What to do with one parsed message: hand it on, answer it with an error, or drop it (a malformed
 * notification or response: the spec forbids answering those). `reason` is for the log.
 */
export type Verdict =
  | { kind: "deliver"; message: Message }
  | { kind: "reply"; reply: ErrorReply; reason: string }
  | { kind: "drop"; reason: string };

/**
 * Checks one parsed message against JSON-RPC 2.0 before anything else sees it. Batches are not
 * supported (one -32600 answer); requests need a string `method`, a string/number `id` and
 * structured `params`; responses need an id and a `result` or an `error`. Requests with `id: null`
 * are refused too: their answer could not be told apart from an answer to an unreadable message.
 */
export function validateMessage(value: unknown): Verdict {
  if (Array.isArray(value)) {
    const reason = value.length === 0 ? "an empty batch" : "a batch";
    return invalidRequest(null, `Invalid Request: ${reason}; batches are not supported, send one message per frame`);
  }
  if (typeof value !== "object" || value === null) {
    return invalidRequest(null, `Invalid Request: a message must be a JSON object, got ${describe(value)}`);
  }
  const candidate = value as Record<string, unknown>;
  const hasId = "id" in candidate;
  const id = validId(candidate.id);
  if (!("method" in candidate)) return validateResponse(candidate, hasId, id);
  if (typeof candidate.method !== "string") {
    return invalidRequest(id, `Invalid Request: "method" must be a string, got ${describe(candidate.method)}`);
  }
  const problem = requestProblem(candidate);
  if (!hasId) {
    return problem ? { kind: "drop", reason: `malformed notification ${candidate.method}: ${problem}` } : { kind: "deliver", message: value as Message };
  }
  if (id === undefined) return invalidRequest(null, `Invalid Request: "id" must be a string or a number, got ${describe(candidate.id)}`);
  if (id === null) return invalidRequest(null, 'Invalid Request: "id" must be a string or a number; null ids are not supported');
  if (problem) return invalidRequest(id, `Invalid Request: ${problem}`);
  return { kind: "deliver", message: value as Message };
}

/**
 * The answer to a message whose params (or result) nest deeper than `limit`: requests get -32602,
 * a response becomes an error response (so the request waiting on it fails instead of carrying the
 * value on), anything else is dropped.
 */
export function tooDeepVerdict(shallow: unknown, limit: number): Verdict {
  const verdict = validateMessage(shallow);
  if (verdict.kind !== "deliver") return verdict;
  const message = verdict.message as { id?: MessageId; method?: string };
  const text = `Invalid params: nested deeper than ${limit} levels (the limit for params and results)`;
  if (message.method === undefined) {
    return { kind: "deliver", message: { jsonrpc: "2.0", id: message.id ?? null, error: { code: ErrorCodes.InvalidParams, message: text } } as Message };
  }
  if (message.id === undefined) return { kind: "drop", reason: `notification ${message.method}: params nested deeper than ${limit} levels` };
  return { kind: "reply", reply: { id: message.id, code: ErrorCodes.InvalidParams, message: text }, reason: `${message.method}: params nested deeper than ${limit} levels` };
}

function validateResponse(candidate: Record<string, unknown>, hasId: boolean, id: MessageId | undefined): Verdict {
  const hasResult = "result" in candidate;
  const hasError = "error" in candidate;
  if (!hasResult && !hasError) {
    return invalidRequest(id ?? null, 'Invalid Request: a message needs a "method" (a request) or a "result"/"error" (a response)');
  }
  if (!hasId || id === undefined) return { kind: "drop", reason: `response with an invalid id ${describe(candidate.id)}` };
  if (hasResult === hasError) return { kind: "drop", reason: `response ${String(id)} has both "result" and "error"` };
  if (hasError && !isErrorObject(candidate.error)) return { kind: "drop", reason: `response ${String(id)} has a malformed "error"` };
  return { kind: "deliver", message: candidate as unknown as Message };
}

/** What is wrong with a request or notification besides its id, if anything. */
function requestProblem(candidate: Record<string, unknown>): string | undefined {
  if (candidate.jsonrpc !== "2.0") return `"jsonrpc" must be "2.0", got ${describe(candidate.jsonrpc)}`;
  const params = candidate.params;
  // `null` is treated as absent: some clients send it for "no params".
  if (params !== undefined && params !== null && typeof params !== "object") return `"params" must be an object or an array, got ${describe(params)}`;
  return undefined;
}

function invalidRequest(id: MessageId | undefined, message: string): Verdict {
  return { kind: "reply", reply: { id: id ?? null, code: ErrorCodes.InvalidRequest, message }, reason: message };
}

/** The id when it is one the spec allows, else undefined. */
function validId(id: unknown): MessageId | undefined {
  if (typeof id === "string" || id === null) return id;
  if (typeof id === "number" && Number.isFinite(id)) return id;
  return undefined;
}

function isErrorObject(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const candidate = error as { code?: unknown; message?: unknown };
  return typeof candidate.code === "number" && typeof candidate.message === "string";
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
