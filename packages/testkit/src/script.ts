/**
 * Script types and YAML parsing. A script is a list of steps; step `i` answers
 * the request whose history already holds `i` model turns.
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml, parseAllDocuments } from "yaml";
import {
  child,
  fail,
  optionalBoolean,
  optionalInteger,
  optionalString,
  readArray,
  readObject,
  requiredString,
  ScriptValidationError,
  type FieldContext,
} from "./validate.js";

/** A tool call the fake model makes. */
export interface ToolCallSpec {
  /** Tool call id; generated (`call_…` / `toolu_…`) when omitted. */
  id?: string;
  /** Tool (function) name. */
  name: string;
  /** Arguments: an object is JSON-encoded; a string is sent as-is (lets tests send invalid JSON). Defaults to `{}`. */
  arguments?: Record<string, unknown> | string;
}

/** Token usage reported with a reply; omitted fields are estimated from text length. */
export interface UsageSpec {
  /** Total prompt tokens (OpenAI semantics: includes cached tokens). */
  inputTokens?: number;
  /** Completion tokens. */
  outputTokens?: number;
  /** Prompt tokens served from cache. */
  cacheReadTokens?: number;
}

/** The assistant turn a step answers with. */
export interface ReplySpec {
  /** Assistant text. */
  content?: string;
  /** Reasoning text (chat: `reasoning_content`; responses: reasoning item; anthropic: thinking block). */
  reasoning?: string;
  /** Tool calls to make. */
  toolCalls?: ToolCallSpec[];
  /** Usage to report. */
  usage?: UsageSpec;
  /** Streaming: characters per text delta. Default: split on words (at least ~3 deltas). */
  chunkSize?: number;
  /** Repeat `content` this many times (large-reply benchmarks). */
  repeat?: number;
  /**
   * Chat completions only: answer as the Copilot API answers Claude models, one turn split over
   * several `choices`: the text (and reasoning) in choice 0, each tool call in its own following
   * choice, every choice with its own `index` and `finish_reason`; streamed too. Other formats
   * have no choices and ignore it.
   */
  splitChoices?: boolean;
}

/** An HTTP error a step answers with. */
export interface ErrorSpec {
  /** HTTP status code (400-599). */
  status: number;
  /** Error message; defaults to a generic one. */
  message?: string;
  /** Provider error `type`; defaults from the status (e.g. `rate_limit_error`). */
  type?: string;
  /** Answer with the error for the first `times` hits of the step only; default: every hit. */
  times?: number;
  /** Sets the `retry-after` header (seconds). */
  retryAfter?: number;
  /** Provider error `code` (OpenAI-shaped bodies); defaults from the status (`rate_limit_exceeded` for 429). */
  code?: string;
}

/** A check on the last message of the request; failures are recorded, never fatal. */
export interface ExpectSpec {
  /** Expected role of the last message: `user`, `assistant`, `system` or `tool` (tool results in any format). */
  lastRole?: string;
  /** Text the last message must contain. */
  contains?: string;
}

/** One step of a script: what to answer for one model turn. */
export interface ScriptStep {
  /** The reply. Required unless the step only errors or hangs. */
  reply?: ReplySpec;
  /** Milliseconds to wait before answering (before headers are sent). */
  delayMs?: number;
  /** Milliseconds to wait between SSE events. */
  chunkDelayMs?: number;
  /** Answer with an HTTP error (for the first `error.times` hits, or always). */
  error?: ErrorSpec;
  /** Accept the request and never answer (until the client aborts or the server stops). */
  hang?: boolean;
  /** Only hang for the first `hangTimes` hits of the step, then fall through to `error` / `reply`. */
  hangTimes?: number;
  /** Expectation about the request, recorded as `expectationError` when it does not hold. */
  expect?: ExpectSpec;
  /** Sequential scripts only: serve this step's reply this many times before moving on (default 1). */
  times?: number;
}

/** A step served whenever the request's last message contains `contains` (before any other step). */
export interface ContentStep extends ScriptStep {
  contains: string;
}

/** A scripted conversation. */
export interface Script {
  /** Unique script name. */
  name: string;
  /** Serve this script when the first user message contains this text. Scripts without `match` are the default. */
  match?: string;
  /** Model name echoed in responses (defaults to the request's `model`). */
  model?: string;
  /** Steps, indexed by the number of model turns already in the request history. */
  steps: ScriptStep[];
  /**
   * Serve the steps in the order requests arrive (each `times` times) instead of by the number of
   * model turns in the history: for runtimes that rewrite their history (compaction).
   */
  sequential?: boolean;
  /**
   * Steps matched by the content of the request's last message, checked first and not counted as
   * a step of the sequence (e.g. a scripted answer to a summary request). `{{hit}}` in a reply's
   * content becomes the 1-based number of the request the step answers.
   */
  byContent?: ContentStep[];
  /** Where the script was loaded from (file path or "<inline>"). */
  source?: string;
}

const SCRIPT_KEYS = ["name", "match", "model", "steps", "source", "sequential", "byContent"] as const;
const STEP_KEYS = ["reply", "delayMs", "chunkDelayMs", "error", "hang", "hangTimes", "expect", "times"] as const;
const REPLY_KEYS = ["content", "reasoning", "toolCalls", "usage", "chunkSize", "repeat", "splitChoices"] as const;
const TOOL_CALL_KEYS = ["id", "name", "arguments"] as const;
const USAGE_KEYS = ["inputTokens", "outputTokens", "cacheReadTokens"] as const;
const ERROR_KEYS = ["status", "message", "type", "times", "retryAfter", "code"] as const;
const EXPECT_KEYS = ["lastRole", "contains"] as const;

/**
 * Validates an untrusted value (parsed YAML or a hand-built object) as a {@link Script}.
 * @param value the candidate script
 * @param source file path used in error messages (default `value.source` or "<inline>")
 * @throws ScriptValidationError naming the source and the bad field
 */
export function validateScript(value: unknown, source?: string): Script {
  const declaredSource = typeof (value as { source?: unknown })?.source === "string" ? (value as { source: string }).source : undefined;
  const context: FieldContext = { source: source ?? declaredSource ?? "<inline>", field: "" };
  const raw = readObject(context, value, SCRIPT_KEYS);
  const steps = readArray(child(context, "steps"), raw.steps);
  if (steps.length === 0) fail(child(context, "steps"), "must contain at least one step");
  return {
    name: requiredString(child(context, "name"), raw.name),
    match: optionalString(child(context, "match"), raw.match),
    model: optionalString(child(context, "model"), raw.model),
    steps: steps.map((step, index) => validateStep(child(child(context, "steps"), index), step)),
    source: context.source,
    ...(raw.sequential !== undefined ? { sequential: optionalBoolean(child(context, "sequential"), raw.sequential) } : {}),
    ...(raw.byContent !== undefined ? { byContent: validateContentSteps(child(context, "byContent"), raw.byContent) } : {}),
  };
}

function validateContentSteps(context: FieldContext, value: unknown): ContentStep[] {
  return readArray(context, value).map((entry, index) => {
    const entryContext = child(context, index);
    const raw = readObject(entryContext, entry, [...STEP_KEYS, "contains"]);
    const { contains, ...step } = raw;
    return { contains: requiredString(child(entryContext, "contains"), contains), ...validateStep(entryContext, step) };
  });
}

function validateStep(context: FieldContext, value: unknown): ScriptStep {
  const raw = readObject(context, value, STEP_KEYS);
  const step: ScriptStep = {
    reply: raw.reply === undefined ? undefined : validateReply(child(context, "reply"), raw.reply),
    delayMs: optionalInteger(child(context, "delayMs"), raw.delayMs, 0),
    chunkDelayMs: optionalInteger(child(context, "chunkDelayMs"), raw.chunkDelayMs, 0),
    error: raw.error === undefined ? undefined : validateError(child(context, "error"), raw.error),
    hang: optionalBoolean(child(context, "hang"), raw.hang),
    hangTimes: optionalInteger(child(context, "hangTimes"), raw.hangTimes, 1),
    expect: raw.expect === undefined ? undefined : validateExpect(child(context, "expect"), raw.expect),
    times: optionalInteger(child(context, "times"), raw.times, 1),
  };
  if (step.hangTimes !== undefined && !step.hang) fail(child(context, "hangTimes"), "requires `hang: true`");
  if (!step.reply && !step.error && !step.hang) fail(context, "must have at least one of `reply`, `error` or `hang`");
  return step;
}

function validateReply(context: FieldContext, value: unknown): ReplySpec {
  const raw = readObject(context, value, REPLY_KEYS);
  const toolCalls = raw.toolCalls === undefined ? undefined : readArray(child(context, "toolCalls"), raw.toolCalls);
  return {
    content: optionalString(child(context, "content"), raw.content),
    reasoning: optionalString(child(context, "reasoning"), raw.reasoning),
    toolCalls: toolCalls?.map((call, index) => validateToolCall(child(child(context, "toolCalls"), index), call)),
    usage: raw.usage === undefined ? undefined : validateUsage(child(context, "usage"), raw.usage),
    chunkSize: optionalInteger(child(context, "chunkSize"), raw.chunkSize, 1),
    repeat: optionalInteger(child(context, "repeat"), raw.repeat, 1),
    splitChoices: optionalBoolean(child(context, "splitChoices"), raw.splitChoices),
  };
}

function validateToolCall(context: FieldContext, value: unknown): ToolCallSpec {
  const raw = readObject(context, value, TOOL_CALL_KEYS);
  const args = raw.arguments;
  const argumentsAreValid = args === undefined || typeof args === "string" || (typeof args === "object" && args !== null && !Array.isArray(args));
  if (!argumentsAreValid) fail(child(context, "arguments"), "must be an object or a string");
  return {
    id: optionalString(child(context, "id"), raw.id),
    name: requiredString(child(context, "name"), raw.name),
    arguments: args as ToolCallSpec["arguments"],
  };
}

function validateUsage(context: FieldContext, value: unknown): UsageSpec {
  const raw = readObject(context, value, USAGE_KEYS);
  return {
    inputTokens: optionalInteger(child(context, "inputTokens"), raw.inputTokens, 0),
    outputTokens: optionalInteger(child(context, "outputTokens"), raw.outputTokens, 0),
    cacheReadTokens: optionalInteger(child(context, "cacheReadTokens"), raw.cacheReadTokens, 0),
  };
}

function validateError(context: FieldContext, value: unknown): ErrorSpec {
  const raw = readObject(context, value, ERROR_KEYS);
  const status = optionalInteger(child(context, "status"), raw.status, 400);
  if (status === undefined) fail(child(context, "status"), "is required");
  if (status > 599) fail(child(context, "status"), `must be an HTTP error status (400-599), got ${status}`);
  return {
    status,
    message: optionalString(child(context, "message"), raw.message),
    type: optionalString(child(context, "type"), raw.type),
    times: optionalInteger(child(context, "times"), raw.times, 1),
    retryAfter: optionalInteger(child(context, "retryAfter"), raw.retryAfter, 0),
    code: optionalString(child(context, "code"), raw.code),
  };
}

function validateExpect(context: FieldContext, value: unknown): ExpectSpec {
  const raw = readObject(context, value, EXPECT_KEYS);
  return {
    lastRole: optionalString(child(context, "lastRole"), raw.lastRole),
    contains: optionalString(child(context, "contains"), raw.contains),
  };
}

/**
 * Parses and validates a script from YAML text.
 * @param yamlText the YAML document
 * @param source file path used in error messages (default "<inline>")
 * @throws ScriptValidationError on invalid YAML or a bad field
 */
export function parseScript(yamlText: string, source = "<inline>"): Script {
  let document: unknown;
  try {
    document = parseYaml(yamlText);
  } catch (error) {
    throw new ScriptValidationError(source, "", `invalid YAML: ${(error as Error).message}`);
  }
  return validateScript(document, source);
}

/**
 * Parses and validates every script of a YAML stream: documents separated by `---` lines, one
 * script each (a single document gives one script). Empty documents are skipped.
 * @param yamlText one or more YAML documents
 * @param source file path used in error messages (default "<inline>")
 * @throws ScriptValidationError on invalid YAML, a bad field (naming the document), or no script at all
 *
 * @example
 * const scripts = parseScripts("name: a\nsteps: [{ reply: { content: hi } }]\n---\nname: b\nmatch: bye\nsteps: [{ reply: { content: bye } }]\n");
 */
export function parseScripts(yamlText: string, source = "<inline>"): Script[] {
  const documents = parseAllDocuments(yamlText);
  const scripts: Script[] = [];
  for (const [index, document] of documents.entries()) {
    const label = documents.length > 1 ? `${source} (document ${index + 1})` : source;
    if (document.errors.length > 0) throw new ScriptValidationError(label, "", `invalid YAML: ${document.errors[0]!.message}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    scripts.push(validateScript(value, label));
  }
  if (scripts.length === 0) throw new ScriptValidationError(source, "", "no script: the file holds no YAML document");
  return scripts;
}

function readScriptText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new ScriptValidationError(path, "", `cannot read script file: ${(error as Error).message}`);
  }
}

/**
 * Reads, parses and validates a single-document YAML script file (synchronously).
 * @throws ScriptValidationError (or a file-system error naming the path)
 */
export function loadScript(path: string): Script {
  return parseScript(readScriptText(path), path);
}

/**
 * Reads, parses and validates every script of a YAML file (synchronously): one per `---` document.
 * @throws ScriptValidationError (or a file-system error naming the path)
 */
export function loadScripts(path: string): Script[] {
  return parseScripts(readScriptText(path), path);
}
