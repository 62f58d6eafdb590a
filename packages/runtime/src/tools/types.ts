import type { LargeOutputSpill } from "./large-output.js";
import type { PermissionRequest, PermissionResult } from "@tandem/protocol";
import type { FileDiffProfile } from "../compat/profile.js";
import type { EventEmitterPort } from "../ports/events.js";
import type { ToolSpec } from "../ports/conversation.js";
import type { UserInputAnswer, UserInputQuestion } from "../ports/user-input.js";

/** A permission request as a tool states it (the runtime adds `toolCallId`). */
export type ToolPermissionRequest = PermissionRequest extends infer R ? (R extends unknown ? Omit<R, "toolCallId"> : never) : never;

/** How a tool asks for a permission, beyond the request itself. */
export interface PermissionAskOptions {
  /**
   * Approvals "for the session" remembered at or before this moment (`performance.now()`) do not
   * cover the request: what they approved may mean something else now (a named shell whose
   * state a later command changed).
   */
  sessionApprovalsAfter?: number;
  /**
   * The request is about something the call's arguments did not name (a redirect target): a
   * hook's or a skill's approval of the call does not cover it; only the application or a standing
   * approval of exactly that does.
   */
  newTarget?: boolean;
}

/** What an application's tool handler answered. */
export interface ClientToolReply {
  result?: unknown;
  error?: string;
  /** Set when the runtime wrote `error` itself (no client, client gone): the model may read it. */
  errorFromRuntime?: boolean;
}

/** What a tool gets while it runs: abort, permission, events, and the way to reach the client. */
export interface ToolContext {
  readonly sessionId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly signal: AbortSignal;
  readonly workingDirectory: string;
  readonly emitter: EventEmitterPort;
  /** Asks the application for permission; resolves with its decision (never throws). */
  requestPermission(request: ToolPermissionRequest, options?: PermissionAskOptions): Promise<PermissionResult>;
  /** Runs an application-defined tool in the client (protocol v3 broadcast or v2 `tool.call`). */
  callClientTool(args: unknown): Promise<ClientToolReply>;
  /** Asks the user a question; throws `UserInputUnavailable` when nobody can answer. */
  requestUserInput(question: UserInputQuestion): Promise<UserInputAnswer>;
  /** Where outputs too long for the model are kept whole, when the session has such a place. */
  readonly largeOutputs?: LargeOutputSpill;
  /** How the session's client generation wants file diffs drawn (today's form when absent). */
  readonly fileDiffs?: FileDiffProfile;
}

/** How a tool call ended. */
export type ToolResultType = "success" | "failure" | "denied" | "rejected" | "interrupted";

/** The result of one tool call: what the model sees and what events show. */
export interface ToolOutcome {
  resultType: ToolResultType;
  /** The text the model sees as the tool result. */
  textForModel: string;
  /** A fuller text for display (diffs, untruncated output). */
  detailedContent?: string;
  /** A short error for `tool.execution_complete.error.message` (defaults to the model text). */
  errorMessage?: string;
  telemetry?: Record<string, unknown>;
  /**
   * Binary content for the model next to the text (e.g. the image `view` read). The runtime passes
   * it to providers that accept images and drops it for those that do not.
   */
  binaryResults?: BinaryResult[];
  /**
   * Messages added to the conversation as user messages after this round of tool results (e.g. a
   * skill's instructions); the model reads them on its next call.
   */
  followUpMessages?: string[];
  /** A file the tool changed, with its git-style diff (for the session's code-change totals) and what it held before (null: the tool created it), kept for a rewind outside git. */
  fileChange?: { path: string; diff: string; before?: string | null };
  /** The turn ends after this call's round: the model is not called again with its result. */
  endsTurn?: boolean;
  /** Structured blocks for `tool.execution_complete.result.contents` (a shell command's exit, an MCP server's content). */
  contents?: unknown[];
  /** Whether the tool's process ran in the session's OS sandbox (`tool.execution_complete.sandboxed`; `bash` always says). */
  sandboxed?: boolean;
}

/** A block of `tool.execution_complete.result.contents` (1.0.x): how a shell command ended. */
export interface ShellExitContent {
  type: "shell_exit";
  /** The named shell the command ran in; empty for a command run in a fresh shell of its own. */
  shellId: string;
  exitCode: number;
  cwd: string;
  /** The start of the command's output. */
  outputPreview: string;
}



/** A piece of binary tool output for the model: base64 `data` of the given MIME type. */
export interface BinaryResult {
  type: "image";
  mimeType: string;
  /** Base64, no `data:` prefix. */
  data: string;
  /** What the image is, shown to the model before it (e.g. the file it was read from). */
  caption?: string;
}

/**
 * A tool: name, JSON-Schema parameters, description and `execute(args, ctx)`.
 *
 * @example
 * const echo: Tool = { name: "echo", description: "Echo", parameters: { type: "object" },
 *   execute: async (args) => ({ resultType: "success", textForModel: JSON.stringify(args) }) };
 */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly parameters: Record<string, unknown>;
  /**
   * What `parameters` is built from, when the tool builds it on first read (a built-in's zod
   * schema, see {@link LazyParameters}): tools with the same source offer the same parameters, so
   * tool lists can be compared without building JSON Schemas no model request has needed yet.
   */
  readonly parametersSource?: object;
  /** Extra data for `tool.execution_start` (e.g. MCP server and tool names). */
  readonly startData?: Record<string, unknown>;
  execute(args: unknown, context: ToolContext): Promise<ToolOutcome>;
  /** Releases what the tool holds (processes, handles); safe to call more than once. */
  dispose?(): Promise<void>;
}

/** A successful outcome. */
export function success(textForModel: string, extra: Partial<ToolOutcome> = {}): ToolOutcome {
  return { resultType: "success", textForModel, ...extra };
}

/** A failed outcome; `errorMessage` is the short label events carry. */
export function failure(textForModel: string, errorMessage?: string): ToolOutcome {
  return { resultType: "failure", textForModel, errorMessage };
}

/**
 * A JSON Schema built on first read and then kept. The object is also the cheap identity of what it
 * builds (a tool's {@link Tool.parametersSource}): tools sharing one have the same parameters.
 *
 * @example
 * const parameters = new LazyParameters(() => parametersSchema(schema));
 * const tool = { name, description, get parameters() { return parameters.json; }, parametersSource: parameters, execute };
 */
export class LazyParameters {
  private built: Record<string, unknown> | undefined;

  constructor(private readonly build: () => Record<string, unknown>) {}

  /** The JSON Schema, built by the first read. */
  get json(): Record<string, unknown> {
    this.built ??= this.build();
    return this.built;
  }
}

/**
 * A tool as offered to the model: its parameters are read from the tool when first needed (a model
 * request, a token estimate), not when the spec is made.
 *
 * @example
 * const specs = tools.map(toolSpecOf);
 */
export function toolSpecOf(tool: Tool): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    get parameters() {
      return tool.parameters;
    },
    ...(tool.parametersSource ? { parametersSource: tool.parametersSource } : {}),
  };
}
