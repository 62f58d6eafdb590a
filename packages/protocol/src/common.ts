import { z } from "zod";

/** A JSON object with unknown values (tool arguments, JSON Schema, …). */
export const JsonObject = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObject>;

/**
 * A session id as a client may give it. It names a folder under the state home, so it is one safe
 * path component: letters, digits, `_`, `.` and `-`, starting with a letter, digit or `_` (so never
 * `.`, `..` or a hidden name), at most 128 characters. Generated ids are UUIDs.
 */
export const SessionId = z
  .string()
  .min(1, "session ids must not be empty")
  .max(128, "session ids are at most 128 characters")
  .regex(/^[A-Za-z0-9_][A-Za-z0-9._-]*$/, "session ids may use letters, digits, _ . and - only, and must start with a letter, digit or _");

/** Agent modes (`session.mode.*`). */
export const AgentMode = z.enum(["interactive", "plan", "autopilot"]);
export type AgentMode = z.infer<typeof AgentMode>;

/** Reasoning effort levels a session may ask for. */
export const ReasoningEffort = z.enum(["low", "medium", "high", "xhigh"]);
export type ReasoningEffort = z.infer<typeof ReasoningEffort>;

/** Repository / working-directory context of a session. */
export const SessionContext = z.looseObject({
  cwd: z.string(),
  gitRoot: z.string().optional(),
  repository: z.string().optional(),
  branch: z.string().optional(),
  headCommit: z.string().optional(),
  hostType: z.string().optional(),
});
export type SessionContext = z.infer<typeof SessionContext>;

/** A custom tool as declared by the application (the handler stays in the client). */
export const ToolDefinition = z.looseObject({
  name: z.string().min(1).regex(/^[A-Za-z0-9_.-]+$/, "tool names may use letters, digits, _ . and - only"),
  description: z.string().optional(),
  parameters: JsonObject.optional(),
  overridesBuiltInTool: z.boolean().optional(),
  skipPermission: z.boolean().optional(),
  /** A successful call ends the turn: its result is not sent back to the model (SDK 1.0.x). */
  isTerminal: z.boolean().optional(),
});
export type ToolDefinition = z.infer<typeof ToolDefinition>;

/** `systemMessage` in append, replace or customize mode. */
export const SystemMessageConfig = z.union([
  z.looseObject({ mode: z.literal("append").optional(), content: z.string().optional() }),
  z.looseObject({ mode: z.literal("replace"), content: z.string() }),
  z.looseObject({ mode: z.literal("customize"), content: z.string().optional(), sections: JsonObject.optional() }),
]);
export type SystemMessageConfig = z.infer<typeof SystemMessageConfig>;

/** BYOK provider (bring your own key: the application names the model endpoint and credential). */
export const ProviderConfig = z.looseObject({
  type: z.enum(["openai", "azure", "anthropic"]).optional(),
  wireApi: z.enum(["completions", "responses"]).optional(),
  baseUrl: z.string().min(1),
  apiKey: z.string().optional(),
  bearerToken: z.string().optional(),
  azure: z.looseObject({ apiVersion: z.string().optional() }).optional(),
  /** Extra HTTP headers sent on every request to the provider. */
  headers: z.record(z.string(), z.string()).optional(),
  /**
   * SDK 1.0.x: the client supplies a bearer token before each model request
   * (`providerToken.getToken`); it wins over `apiKey` / `bearerToken`.
   */
  hasBearerTokenProvider: z.boolean().optional(),
  /** The model name sent to the provider when it differs from the session's model id (1.x). */
  wireModel: z.string().min(1).optional(),
  /** The model's prompt limit in tokens (1.x name); compaction works against it. */
  maxPromptTokens: z.number().int().positive().optional(),
  /** The model's context window in tokens, used when `maxPromptTokens` is not given. */
  maxContextWindowTokens: z.number().int().positive().optional(),
  /** The session's model when `model` is not given; the name sent to the provider unless `wireModel` is. */
  modelId: z.string().min(1).optional(),
  /** The most output tokens per model call. */
  maxOutputTokens: z.number().int().positive().optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfig>;

/** What a model can do, stated by the application over what its provider reports. */
export const ModelCapabilitiesOverride = z.looseObject({
  supports: z.looseObject({ vision: z.boolean().optional(), reasoningEffort: z.boolean().optional() }).optional(),
  limits: z
    .looseObject({
      max_prompt_tokens: z.number().int().positive().optional(),
      max_output_tokens: z.number().int().positive().optional(),
      max_context_window_tokens: z.number().int().positive().optional(),
    })
    .optional(),
});
export type ModelCapabilitiesOverride = z.infer<typeof ModelCapabilitiesOverride>;

/** A named BYOK provider (SDK 1.0.x multi-provider registry): a connection and its credentials. */
export const NamedProviderConfig = ProviderConfig.extend({
  /** Referenced by {@link ProviderModelConfig}'s `provider`; a `/` would make selection ids ambiguous. */
  name: z.string().min(1).regex(/^[^/]+$/, "a provider name must not contain '/'"),
});
export type NamedProviderConfig = z.infer<typeof NamedProviderConfig>;

/** A model of a named provider, selected in the session as `<provider>/<id>`. */
export const ProviderModelConfig = z.looseObject({
  id: z.string().min(1),
  provider: z.string().min(1),
  /** The model name sent to the provider (default: `id`). */
  wireModel: z.string().min(1).optional(),
  /** The well-known model it behaves like (default: `id`). */
  modelId: z.string().min(1).optional(),
  name: z.string().optional(),
  maxPromptTokens: z.number().int().positive().optional(),
  maxContextWindowTokens: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
});
export type ProviderModelConfig = z.infer<typeof ProviderModelConfig>;

/** A local (stdio) MCP server. */
export const McpLocalServerConfig = z.looseObject({
  type: z.enum(["local", "stdio"]).optional(),
  command: z.string(),
  args: z.array(z.string()).default([]),
  tools: z.array(z.string()).default(["*"]),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  timeout: z.number().optional(),
});
/** A remote (streamable HTTP or SSE) MCP server. */
export const McpRemoteServerConfig = z.looseObject({
  type: z.enum(["http", "sse"]),
  url: z.string(),
  tools: z.array(z.string()).default(["*"]),
  headers: z.record(z.string(), z.string()).optional(),
  timeout: z.number().optional(),
});
/** Any MCP server configuration. */
export const McpServerConfig = z.union([McpRemoteServerConfig, McpLocalServerConfig]);
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/**
 * Settings of the GitHub MCP server a session gets in Copilot API mode (sent to it as `X-MCP-*`
 * request headers): every toolset, more toolsets or tools on top of the default ones, and the
 * server's insiders features. `disableFormDeferral` is accepted for 1.0.x clients; Tandem never
 * defers form-backed tools, so there is nothing for it to turn off.
 */
export const GitHubMcpToolConfig = z.looseObject({
  enableAllTools: z.boolean().optional(),
  additionalToolsets: z.array(z.string().regex(/^[A-Za-z0-9_-]+$/, "a toolset name has letters, digits, '_' and '-' only")).optional(),
  additionalTools: z.array(z.string().regex(/^[A-Za-z0-9_-]+$/, "a tool name has letters, digits, '_' and '-' only")).optional(),
  enableInsidersMode: z.boolean().optional(),
  disableFormDeferral: z.boolean().optional(),
});
export type GitHubMcpToolConfig = z.infer<typeof GitHubMcpToolConfig>;

/** A custom agent. */
export const CustomAgentConfig = z.looseObject({
  name: z.string().min(1),
  displayName: z.string().optional(),
  description: z.string().optional(),
  tools: z.array(z.string()).nullable().optional(),
  prompt: z.string(),
  mcpServers: z.record(z.string(), McpServerConfig).optional(),
  infer: z.boolean().optional(),
  /** The model the agent runs on (a model id, or a registry model's `<provider>/<id>`); default: the session's. */
  model: z.string().min(1).optional(),
});
export type CustomAgentConfig = z.infer<typeof CustomAgentConfig>;

/**
 * Infinite sessions / compaction settings: `enabled` (default true), `backgroundCompactionThreshold`
 * (default 0.80) and `bufferExhaustionThreshold` (default 0.95), fractions of the model's window.
 */
export const InfiniteSessionConfig = z.looseObject({
  enabled: z.boolean().optional(),
  backgroundCompactionThreshold: z.number().gt(0).lte(1).optional(),
  bufferExhaustionThreshold: z.number().gt(0).lte(1).optional(),
});

/** An attachment on a user message. */
export const Attachment = z.looseObject({
  type: z.enum(["file", "directory", "selection", "blob", "github_reference"]).or(z.string()),
  path: z.string().optional(),
  displayName: z.string().optional(),
});
export type Attachment = z.infer<typeof Attachment>;

/** What the agent asks permission for, discriminated on `kind`. */
export const PermissionRequest = z.discriminatedUnion("kind", [
  z.looseObject({
    kind: z.literal("shell"),
    toolCallId: z.string().optional(),
    fullCommandText: z.string(),
    intention: z.string(),
    commands: z.array(z.looseObject({ identifier: z.string(), readOnly: z.boolean() })),
    possiblePaths: z.array(z.string()),
    possibleUrls: z.array(z.looseObject({ url: z.string() }).or(z.string())).optional(),
    hasWriteFileRedirection: z.boolean().optional(),
    canOfferSessionApproval: z.boolean().optional(),
    /** Tandem: whether the command will run in the session's OS sandbox if approved. */
    sandboxed: z.boolean().optional(),
    /** The model asks to run this command outside the sandbox; approving the request grants it (only when `sandbox.allowBypass`). */
    requestSandboxBypass: z.boolean().optional(),
    requestSandboxBypassReason: z.string().optional(),
  }),
  z.looseObject({
    kind: z.literal("write"),
    toolCallId: z.string().optional(),
    intention: z.string(),
    fileName: z.string(),
    diff: z.string(),
    newFileContents: z.string().optional(),
    /** Whether the client may offer to approve file writes for the rest of the session (Tandem remembers `approve-for-session` with a `write` scope). */
    canOfferSessionApproval: z.boolean().optional(),
  }),
  z.looseObject({ kind: z.literal("read"), toolCallId: z.string().optional(), intention: z.string(), path: z.string() }),
  z.looseObject({
    kind: z.literal("mcp"),
    toolCallId: z.string().optional(),
    serverName: z.string(),
    toolName: z.string(),
    toolTitle: z.string(),
    args: z.unknown().optional(),
    readOnly: z.boolean(),
  }),
  z.looseObject({ kind: z.literal("url"), toolCallId: z.string().optional(), intention: z.string(), url: z.string() }),
  z.looseObject({
    kind: z.literal("memory"),
    toolCallId: z.string().optional(),
    subject: z.string(),
    fact: z.string(),
    citations: z.string(),
  }),
  z.looseObject({
    kind: z.literal("custom-tool"),
    toolCallId: z.string().optional(),
    toolName: z.string(),
    toolDescription: z.string(),
    args: z.unknown().optional(),
  }),
  /**
   * Managing an extension (1.0.x). Tandem asks it with `operation: "start"` before it runs an
   * extension found in the working folder, and adds what the application needs to decide:
   * `extensionId` (`project:<name>`), `path` (its `extension.mjs`) and `workingDirectory`.
   */
  z.looseObject({
    kind: z.literal("extension-management"),
    toolCallId: z.string().optional(),
    operation: z.string(),
    extensionName: z.string().optional(),
    extensionId: z.string().optional(),
    path: z.string().optional(),
    workingDirectory: z.string().optional(),
  }),
]);
export type PermissionRequest = z.infer<typeof PermissionRequest>;
/** The kinds of {@link PermissionRequest}. */
export type PermissionKind = PermissionRequest["kind"];

/** The decision on a permission request. */
export const PermissionResult = z.discriminatedUnion("kind", [
  z.looseObject({ kind: z.literal("approved") }),
  z.looseObject({ kind: z.literal("denied-by-rules"), rules: z.array(z.unknown()).default([]) }),
  z.looseObject({ kind: z.literal("denied-no-approval-rule-and-could-not-request-from-user") }),
  z.looseObject({ kind: z.literal("denied-interactively-by-user"), feedback: z.string().optional() }),
  z.looseObject({ kind: z.literal("denied-by-content-exclusion-policy"), path: z.string(), message: z.string() }),
]);
export type PermissionResult = z.infer<typeof PermissionResult>;

/**
 * A decision as the current official SDK (1.0.x) words it, beside the 0.2.0 results above:
 * `approve-once`, `approve-for-session` (with the scope to remember), `approve-for-location`,
 * `approve-permanently`, `reject` (with optional feedback), `user-not-available`, and the
 * past-tense forms a host may relay (`approved-for-session`, `cancelled`, …), and `no-result` (this
 * client leaves the request to another one).
 */
export const PermissionDecision = z.discriminatedUnion("kind", [
  ...PermissionResult.options,
  z.looseObject({ kind: z.literal("approve-once"), approvedInteractively: z.boolean().optional() }),
  z.looseObject({ kind: z.literal("approve-for-session"), approval: z.looseObject({ kind: z.string() }).optional(), domain: z.string().optional() }),
  z.looseObject({ kind: z.literal("approved-for-session"), approval: z.looseObject({ kind: z.string() }).optional(), domain: z.string().optional() }),
  z.looseObject({ kind: z.literal("approve-for-location") }),
  z.looseObject({ kind: z.literal("approved-for-location") }),
  z.looseObject({ kind: z.literal("approve-permanently") }),
  z.looseObject({ kind: z.literal("reject"), feedback: z.string().optional() }),
  z.looseObject({ kind: z.literal("user-not-available") }),
  z.looseObject({ kind: z.literal("cancelled") }),
  z.looseObject({ kind: z.literal("no-result") }),
  z.looseObject({ kind: z.literal("denied-by-permission-request-hook"), message: z.string().optional() }),
]);
export type PermissionDecision = z.infer<typeof PermissionDecision>;

/** A structured tool result as an application may return it. */
export const ToolResultObject = z.looseObject({
  textResultForLlm: z.string(),
  resultType: z.enum(["success", "failure", "rejected", "denied"]).or(z.string()).optional(),
  error: z.string().optional(),
  toolTelemetry: JsonObject.optional(),
  binaryResultsForLlm: z.array(z.unknown()).optional(),
  sessionLog: z.string().optional(),
});
export type ToolResultObject = z.infer<typeof ToolResultObject>;

/** A model as `models.list` reports it. */
export const ModelInfo = z.looseObject({
  id: z.string(),
  name: z.string(),
  capabilities: z.looseObject({
    supports: z.looseObject({ vision: z.boolean().optional(), reasoningEffort: z.boolean().optional() }),
    limits: z.looseObject({
      max_prompt_tokens: z.number().optional(),
      max_output_tokens: z.number().optional(),
      max_context_window_tokens: z.number(),
    }),
  }),
  policy: z.looseObject({ state: z.string(), terms: z.string() }).optional(),
  billing: z.looseObject({ multiplier: z.number() }).optional(),
  supportedReasoningEfforts: z.array(z.string()).optional(),
  defaultReasoningEffort: z.string().optional(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

/** Session metadata as `session.list` reports it. */
export const SessionMetadata = z.looseObject({
  sessionId: z.string(),
  startTime: z.string(),
  modifiedTime: z.string(),
  summary: z.string().optional(),
  isRemote: z.boolean(),
  context: SessionContext.optional(),
});
export type SessionMetadata = z.infer<typeof SessionMetadata>;

/** The fields of a skill as the skill lists report it (a function: built on first use). */
export const skillSummaryFields = () => ({
  name: z.string(),
  description: z.string(),
  source: z.string(),
  userInvocable: z.boolean(),
  enabled: z.boolean(),
  path: z.string().optional(),
});
/** The fields of an authentication status (a function: built on first use). */
export const authStatusFields = () => ({
  isAuthenticated: z.boolean(),
  authType: z.string().optional(),
  host: z.string().optional(),
  login: z.string().optional(),
  statusMessage: z.string().optional(),
});
