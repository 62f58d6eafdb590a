import type { ToolResultObject } from "./tools.js";

/**
 * Fields every hook input carries.
 *
 * @example
 * const onSessionStart = (input: BaseHookInput) => console.log(new Date(input.timestamp), input.cwd);
 */
export interface BaseHookInput {
  timestamp: number;
  cwd: string;
}

/** The second argument of every hook handler. */
type HookInvocation = { sessionId: string };
/** A hook handler: may return nothing to leave the runtime's behaviour unchanged. */
type HookHandler<Input, Output> = (input: Input, invocation: HookInvocation) => Promise<Output | void> | Output | void;

/**
 * Input of the hook run before a tool executes.
 *
 * @example
 * const onPreToolUse: PreToolUseHandler = (input: PreToolUseHookInput) => console.log(input.toolName, input.toolArgs);
 */
export interface PreToolUseHookInput extends BaseHookInput {
  toolName: string;
  toolArgs: unknown;
}

/**
 * What a pre-tool-use hook may decide: allow, deny or ask, and replace the arguments.
 *
 * @example
 * const output: PreToolUseHookOutput = { permissionDecision: "deny", permissionDecisionReason: "read-only mode" };
 */
export interface PreToolUseHookOutput {
  permissionDecision?: "allow" | "deny" | "ask";
  permissionDecisionReason?: string;
  modifiedArgs?: unknown;
  additionalContext?: string;
  suppressOutput?: boolean;
}

/**
 * Runs before a tool executes.
 *
 * @example
 * const onPreToolUse: PreToolUseHandler = ({ toolName }) => (toolName === "bash" ? { permissionDecision: "deny" } : undefined);
 */
export type PreToolUseHandler = HookHandler<PreToolUseHookInput, PreToolUseHookOutput>;

/**
 * Input of the hook run after a tool executes.
 *
 * @example
 * const onPostToolUse: PostToolUseHandler = (input: PostToolUseHookInput) => console.log(input.toolResult.resultType);
 */
export interface PostToolUseHookInput extends BaseHookInput {
  toolName: string;
  toolArgs: unknown;
  toolResult: ToolResultObject;
}

/**
 * What a post-tool-use hook may change.
 *
 * @example
 * const output: PostToolUseHookOutput = { modifiedResult: { textResultForLlm: "[redacted]", resultType: "success" } };
 */
export interface PostToolUseHookOutput {
  modifiedResult?: ToolResultObject;
  additionalContext?: string;
  suppressOutput?: boolean;
}

/**
 * Runs after a tool executes.
 *
 * @example
 * const onPostToolUse: PostToolUseHandler = ({ toolName, toolResult }) => console.log(toolName, toolResult.textResultForLlm);
 */
export type PostToolUseHandler = HookHandler<PostToolUseHookInput, PostToolUseHookOutput>;

/**
 * Input of the hook run when the user submits a prompt.
 *
 * @example
 * const onUserPromptSubmitted: UserPromptSubmittedHandler = (input: UserPromptSubmittedHookInput) => console.log(input.prompt);
 */
export interface UserPromptSubmittedHookInput extends BaseHookInput {
  prompt: string;
}

/**
 * What a prompt hook may change.
 *
 * @example
 * const output: UserPromptSubmittedHookOutput = { modifiedPrompt: "Answer briefly. " + prompt };
 */
export interface UserPromptSubmittedHookOutput {
  modifiedPrompt?: string;
  additionalContext?: string;
  suppressOutput?: boolean;
}

/**
 * Runs when the user submits a prompt.
 *
 * @example
 * const onUserPromptSubmitted: UserPromptSubmittedHandler = ({ prompt }) => ({ additionalContext: `Prompt length: ${prompt.length}` });
 */
export type UserPromptSubmittedHandler = HookHandler<UserPromptSubmittedHookInput, UserPromptSubmittedHookOutput>;

/**
 * Input of the hook run when a session starts.
 *
 * @example
 * const onSessionStart: SessionStartHandler = (input: SessionStartHookInput) => console.log(input.source);
 */
export interface SessionStartHookInput extends BaseHookInput {
  source: "startup" | "resume" | "new";
  initialPrompt?: string;
}

/**
 * What a session-start hook may add.
 *
 * @example
 * const output: SessionStartHookOutput = { additionalContext: "The user prefers TypeScript." };
 */
export interface SessionStartHookOutput {
  additionalContext?: string;
  modifiedConfig?: Record<string, unknown>;
}

/**
 * Runs when a session starts.
 *
 * @example
 * const onSessionStart: SessionStartHandler = () => ({ additionalContext: "Today is release day." });
 */
export type SessionStartHandler = HookHandler<SessionStartHookInput, SessionStartHookOutput>;

/**
 * Input of the hook run when a session ends.
 *
 * @example
 * const onSessionEnd: SessionEndHandler = (input: SessionEndHookInput) => console.log(input.reason);
 */
export interface SessionEndHookInput extends BaseHookInput {
  reason: "complete" | "error" | "abort" | "timeout" | "user_exit";
  finalMessage?: string;
  error?: string;
}

/**
 * What a session-end hook may report.
 *
 * @example
 * const output: SessionEndHookOutput = { sessionSummary: "Fixed the build." };
 */
export interface SessionEndHookOutput {
  suppressOutput?: boolean;
  cleanupActions?: string[];
  sessionSummary?: string;
}

/**
 * Runs when a session ends.
 *
 * @example
 * const onSessionEnd: SessionEndHandler = ({ reason }) => console.log("session ended:", reason);
 */
export type SessionEndHandler = HookHandler<SessionEndHookInput, SessionEndHookOutput>;

/**
 * Input of the hook run when an error occurs.
 *
 * @example
 * const onErrorOccurred: ErrorOccurredHandler = (input: ErrorOccurredHookInput) => console.error(input.errorContext, input.error);
 */
export interface ErrorOccurredHookInput extends BaseHookInput {
  error: string;
  errorContext: "model_call" | "tool_execution" | "system" | "user_input";
  recoverable: boolean;
}

/**
 * How an error hook wants the error handled.
 *
 * @example
 * const output: ErrorOccurredHookOutput = { errorHandling: "retry", retryCount: 2 };
 */
export interface ErrorOccurredHookOutput {
  suppressOutput?: boolean;
  errorHandling?: "retry" | "skip" | "abort";
  retryCount?: number;
  userNotification?: string;
}

/**
 * Runs when an error occurs.
 *
 * @example
 * const onErrorOccurred: ErrorOccurredHandler = ({ recoverable }) => (recoverable ? { errorHandling: "retry" } : undefined);
 */
export type ErrorOccurredHandler = HookHandler<ErrorOccurredHookInput, ErrorOccurredHookOutput>;

/**
 * The hook handlers of a session. The runtime calls them through `hooks.invoke`.
 *
 * @example
 * const hooks: SessionHooks = {
 *   onPreToolUse: ({ toolName }) => (toolName === "bash" ? { permissionDecision: "ask" } : undefined),
 * };
 */
export interface SessionHooks {
  onPreToolUse?: PreToolUseHandler;
  onPostToolUse?: PostToolUseHandler;
  onUserPromptSubmitted?: UserPromptSubmittedHandler;
  onSessionStart?: SessionStartHandler;
  onSessionEnd?: SessionEndHandler;
  onErrorOccurred?: ErrorOccurredHandler;
}

/** Whether any hook handler is set (the `hooks` flag of `session.create`). */
export function hasHooks(hooks: SessionHooks | undefined): boolean {
  return !!hooks && Object.values(hooks).some(Boolean);
}

/** The handler for a wire `hookType` (`preToolUse`, `postToolUse`, …), if any. */
export function hookHandlerFor(
  hooks: SessionHooks | undefined,
  hookType: string,
): ((input: unknown, invocation: HookInvocation) => unknown) | undefined {
  if (!hooks) return undefined;
  const byType: Record<string, unknown> = {
    preToolUse: hooks.onPreToolUse,
    postToolUse: hooks.onPostToolUse,
    userPromptSubmitted: hooks.onUserPromptSubmitted,
    sessionStart: hooks.onSessionStart,
    sessionEnd: hooks.onSessionEnd,
    errorOccurred: hooks.onErrorOccurred,
  };
  const handler = Object.hasOwn(byType, hookType) ? byType[hookType] : undefined;
  return typeof handler === "function" ? (handler as (input: unknown, invocation: HookInvocation) => unknown) : undefined;
}
