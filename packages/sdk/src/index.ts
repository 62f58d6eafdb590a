/**
 * @tandem/sdk — a TypeScript client for the Tandem runtime with the API of the official
 * `@github/copilot-sdk` (0.2.0): `CopilotClient`, `CopilotSession`, `defineTool`, `approveAll`.
 *
 * @example
 * import { CopilotClient, approveAll } from "@tandem/sdk";
 * const client = new CopilotClient();
 * const session = await client.createSession({ onPermissionRequest: approveAll });
 * console.log((await session.sendAndWait({ prompt: "Hi" }))?.data.content);
 * await client.stop();
 */
export { CopilotClient } from "./client.js";
export { MIN_PROTOCOL_VERSION, SDK_PROTOCOL_VERSION } from "./runtime-link.js";
export { CopilotSession } from "./session.js";
export { defineTool } from "./tools.js";
export type { Tool, ToolBinaryResult, ToolHandler, ToolInvocation, ToolResult, ToolResultObject, ToolResultType, ZodSchema } from "./tools.js";
export { approveAll } from "./permissions.js";
export type {
  PermissionHandler,
  PermissionRequest,
  PermissionRequestResult,
  UserInputHandler,
  UserInputRequest,
  UserInputResponse,
} from "./permissions.js";
export type {
  BaseHookInput,
  ErrorOccurredHandler,
  ErrorOccurredHookInput,
  ErrorOccurredHookOutput,
  PostToolUseHandler,
  PostToolUseHookInput,
  PostToolUseHookOutput,
  PreToolUseHandler,
  PreToolUseHookInput,
  PreToolUseHookOutput,
  SessionEndHandler,
  SessionEndHookInput,
  SessionEndHookOutput,
  SessionHooks,
  SessionStartHandler,
  SessionStartHookInput,
  SessionStartHookOutput,
  UserPromptSubmittedHandler,
  UserPromptSubmittedHookInput,
  UserPromptSubmittedHookOutput,
} from "./hooks.js";
export { SYSTEM_PROMPT_SECTIONS } from "./system-message.js";
export type {
  SectionOverride,
  SectionOverrideAction,
  SectionTransformFn,
  SystemMessageAppendConfig,
  SystemMessageConfig,
  SystemMessageCustomizeConfig,
  SystemMessageReplaceConfig,
  SystemPromptSection,
} from "./system-message.js";
export type { CommandContext, CommandDefinition, CommandHandler } from "./commands.js";
export type { TelemetryConfig, TraceContext, TraceContextProvider } from "./telemetry.js";
export type { ServerRpc, SessionRpc } from "./rpc.js";
export type {
  ElicitationHandler,
  ElicitationRequest,
  ElicitationResult,
  ExitPlanModeHandler,
  ExitPlanModeRequest,
  ExitPlanModeResponse,
} from "./plan-and-forms.js";
export type {
  AssistantMessageEvent,
  ConnectionState,
  CopilotClientOptions,
  ReconnectOptions,
  CustomAgentConfig,
  ForegroundSessionInfo,
  GetAuthStatusResponse,
  GetStatusResponse,
  InfiniteSessionConfig,
  MCPLocalServerConfig,
  MCPRemoteServerConfig,
  MCPServerConfig,
  MessageAttachment,
  MessageOptions,
  ModelBilling,
  ModelCapabilities,
  ModelInfo,
  ModelPolicy,
  PingResponse,
  ProviderConfig,
  ReasoningEffort,
  ResumeSessionConfig,
  SandboxConfig,
  SandboxEnforcementStatus,
  SessionConfig,
  SessionContext,
  SessionEvent,
  SessionEventHandler,
  SessionEventPayload,
  SessionEventType,
  SessionLifecycleEvent,
  SessionLifecycleEventType,
  SessionLifecycleHandler,
  SessionListFilter,
  SessionMetadata,
  TypedSessionEventHandler,
  TypedSessionLifecycleHandler,
} from "./types.js";
