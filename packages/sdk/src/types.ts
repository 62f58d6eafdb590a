import type {
  AuthGetStatus,
  CustomAgentConfig as CustomAgentConfigSchema,
  InfiniteSessionConfig as InfiniteSessionConfigSchema,
  McpLocalServerConfig,
  McpRemoteServerConfig,
  ModelInfo as ModelInfoSchema,
  ProviderConfig as ProviderConfigSchema,
  ReasoningEffort as ReasoningEffortSchema,
  ResultOf,
  SandboxConfig as SandboxConfigSchema,
  SandboxEnforcementStatus as SandboxEnforcementStatusSchema,
  SessionContext as SessionContextSchema,
  SessionEvent,
  SessionEventOf,
  SessionEventType,
  SessionLifecycleEvent,
  StatusGet,
} from "@tandem/protocol";
import type { z } from "zod";
import type { CommandDefinition } from "./commands.js";
import type { SessionHooks } from "./hooks.js";
import type { PermissionHandler, UserInputHandler } from "./permissions.js";
import type { SystemMessageConfig } from "./system-message.js";
import type { TelemetryConfig, TraceContextProvider } from "./telemetry.js";
import type { Tool } from "./tools.js";
import type { ElicitationHandler, ExitPlanModeHandler } from "./plan-and-forms.js";

export type { SessionEvent, SessionEventType, SessionLifecycleEvent };

/** A session's OS sandbox (`sandbox` of a session config; the official 1.0.x `SandboxConfig`). */
export type SandboxConfig = z.input<typeof SandboxConfigSchema>;
/** What `session.rpc.sandbox.getEnforcementStatus()` answers: whether commands really run sandboxed, and why not. */
export type SandboxEnforcementStatus = z.infer<typeof SandboxEnforcementStatusSchema>;

/**
 * A model the runtime offers, as `models.list` reports it.
 *
 * @example
 * const visionModels = (await client.listModels()).filter((model: ModelInfo) => model.capabilities.supports.vision);
 */
export type ModelInfo = z.infer<typeof ModelInfoSchema>;

/**
 * What a model supports and its token limits.
 *
 * @example
 * const fitsImages = (capabilities: ModelCapabilities) => capabilities.supports.vision === true;
 */
export type ModelCapabilities = ModelInfo["capabilities"];

/**
 * Whether a model is enabled for the account, and under which terms.
 *
 * @example
 * const usable = (policy: ModelPolicy | undefined) => !policy || policy.state === "enabled";
 */
export type ModelPolicy = NonNullable<ModelInfo["policy"]>;

/**
 * A model's billing multiplier.
 *
 * @example
 * const cost = (billing: ModelBilling | undefined, requests: number) => requests * (billing?.multiplier ?? 1);
 */
export type ModelBilling = NonNullable<ModelInfo["billing"]>;

/**
 * Options of {@link CopilotClient}.
 *
 * @example
 * const options: CopilotClientOptions = { logLevel: "info", githubToken: process.env.GH_TOKEN };
 */
/** How {@link CopilotClientOptions.reconnect} retries. */
export interface ReconnectOptions {
  /** The first wait after a lost connection, doubled per failed attempt. Default 100 ms. */
  initialDelayMs?: number;
  /** The longest wait between attempts. Default 5000 ms. */
  maxDelayMs?: number;
  /** How long to keep trying before the client gives up (state `"error"`). Default 120000 ms. */
  giveUpAfterMs?: number;
}

export interface CopilotClientOptions {
  /** The runtime to spawn (a `.js` file runs with the current Node). Default: the `tandem` bin of `@tandem/runtime`. */
  cliPath?: string;
  /** Extra arguments, placed before the ones the SDK adds. */
  cliArgs?: string[];
  /** Working directory of the spawned runtime. Default: `process.cwd()`. */
  cwd?: string;
  /** TCP port for the spawned runtime (TCP mode only). Default 0: the runtime picks one and prints it. */
  port?: number;
  /** Talk to the spawned runtime over its stdin/stdout. Default: true unless `cliUrl` is set. */
  useStdio?: boolean;
  /** This process is a child of the runtime and talks to it over its own stdio. Requires stdio mode. */
  isChildProcess?: boolean;
  /** A running runtime to connect to over TCP: `"port"`, `"host:port"` or `"http(s)://host:port"`. Nothing is spawned. */
  cliUrl?: string;
  /**
   * Tandem: several nodes of a Tandem cluster (or one load balancer), each like `cliUrl`; the
   * client connects to the first that answers and, when its connection is lost, reconnects to the
   * next (see {@link CopilotClientOptions.reconnect}). Exclusive with `cliUrl`.
   */
  cliUrls?: string[];
  /**
   * Tandem: what to do when the TCP connection to a running runtime is lost. With `cliUrls` it is on
   * by default: the client reconnects with exponential backoff (to the next URL each attempt),
   * resumes each of its sessions and hands them the stored events they missed, from the last one
   * they saw, each once; a `send` whose answer was lost is retried with its idempotency key, so it
   * runs once. `false` turns it off; with `cliUrl` it is off unless given.
   */
  reconnect?: ReconnectOptions | false;
  /**
   * Tandem cluster: when the node the client is connected to answers `createSession` /
   * `resumeSession` with the session's owner (another node, at its `--advertise-url`), connect
   * there and talk to the session directly instead of through the first node (it stays forwarded
   * when the owner cannot be reached; after a failover it follows the next owner). Default true.
   */
  followOwnerHints?: boolean;
  /**
   * TCP connection token (the official SDK 1.0's `connectionToken`), sent as `connect { token }`.
   * With `cliUrl`: the token the running runtime was started with (its `COPILOT_CONNECTION_TOKEN`).
   * When the SDK spawns a TCP runtime: the token to give it; a random one is made when omitted.
   * Unused over stdio (the spawning process owns the pipe).
   */
  connectionToken?: string;
  /** Log level of the spawned runtime. Default `"debug"`. */
  logLevel?: "none" | "error" | "warning" | "info" | "debug" | "all";
  /** Start on first use (`createSession`, `resumeSession`). Default true. */
  autoStart?: boolean;
  /** Reconnect (respawning the runtime) when the connection closes unexpectedly. Default true. */
  autoRestart?: boolean;
  /** Environment of the spawned runtime. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** GitHub token handed to the runtime through the `COPILOT_SDK_AUTH_TOKEN` variable. */
  githubToken?: string;
  /** Let the runtime use stored credentials. Default: true, or false when `githubToken` is set. */
  useLoggedInUser?: boolean;
  /** Replaces `models.list`: `listModels()` returns what this returns. */
  onListModels?: () => Promise<ModelInfo[]> | ModelInfo[];
  /** OpenTelemetry settings for the spawned runtime. */
  telemetry?: TelemetryConfig;
  /** Trace context sent with `session.create`, `session.resume` and `session.send`. */
  onGetTraceContext?: TraceContextProvider;
}

/**
 * Connection state of a {@link CopilotClient}.
 *
 * @example
 * if (client.getState() !== "connected") await client.start();
 */
export type ConnectionState = "disconnected" | "connecting" | "connected" | "error";

/**
 * Reasoning effort levels.
 *
 * @example
 * const session = await client.createSession({ onPermissionRequest: approveAll, reasoningEffort: "high" });
 */
export type ReasoningEffort = z.infer<typeof ReasoningEffortSchema>;

/**
 * A bring-your-own-key model provider.
 *
 * @example
 * const provider: ProviderConfig = { type: "openai", baseUrl: "http://localhost:11434/v1" };
 */
export type ProviderConfig = z.input<typeof ProviderConfigSchema>;

/**
 * A local MCP server started as a child process.
 *
 * @example
 * const server: MCPLocalServerConfig = { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], tools: ["*"] };
 */
export type MCPLocalServerConfig = z.input<typeof McpLocalServerConfig>;

/**
 * A remote MCP server (streamable HTTP or SSE).
 *
 * @example
 * const server: MCPRemoteServerConfig = { type: "http", url: "https://mcp.example.com/mcp", tools: ["*"] };
 */
export type MCPRemoteServerConfig = z.input<typeof McpRemoteServerConfig>;

/**
 * Any MCP server configuration.
 *
 * @example
 * const mcpServers: Record<string, MCPServerConfig> = { memory: { command: "mcp-memory", args: [], tools: ["*"] } };
 */
export type MCPServerConfig = MCPLocalServerConfig | MCPRemoteServerConfig;

/**
 * A custom agent: a named prompt with optional tool restrictions.
 *
 * @example
 * const reviewer: CustomAgentConfig = { name: "reviewer", prompt: "Review the diff.", tools: ["view", "grep"] };
 */
export type CustomAgentConfig = z.input<typeof CustomAgentConfigSchema>;

/**
 * Automatic context compaction settings.
 *
 * @example
 * const infiniteSessions: InfiniteSessionConfig = { enabled: true, backgroundCompactionThreshold: 0.7 };
 */
export type InfiniteSessionConfig = z.input<typeof InfiniteSessionConfigSchema>;

/**
 * Handles every event of a session.
 *
 * @example
 * const onEvent: SessionEventHandler = (event) => console.log(event.type);
 */
export type SessionEventHandler = (event: SessionEvent) => void;

/**
 * The event of type `T`, with `data` narrowed.
 *
 * @example
 * const print = (event: SessionEventPayload<"assistant.message">) => console.log(event.data.content);
 */
export type SessionEventPayload<T extends SessionEventType> = SessionEventOf<T>;

/**
 * Handles the events of one type.
 *
 * @example
 * const onDelta: TypedSessionEventHandler<"assistant.message_delta"> = (event) => process.stdout.write(event.data.deltaContent);
 */
export type TypedSessionEventHandler<T extends SessionEventType> = (event: SessionEventOf<T>) => void;

/**
 * An `assistant.message` event (what `sendAndWait` resolves with).
 *
 * @example
 * const reply: AssistantMessageEvent | undefined = await session.sendAndWait({ prompt: "Hi" });
 */
export type AssistantMessageEvent = SessionEventOf<"assistant.message">;

/**
 * Configuration of a new session. `onPermissionRequest` is required.
 *
 * @example
 * const config: SessionConfig = { onPermissionRequest: approveAll, model: "gpt-4.1", streaming: true };
 */
export interface SessionConfig {
  /** The session id. Default: a random UUID. */
  sessionId?: string;
  /** Names your application (added to the User-Agent of model requests). */
  clientName?: string;
  model?: string;
  reasoningEffort?: ReasoningEffort;
  /** Where the runtime keeps configuration and state for this session. */
  configDir?: string;
  /** Custom tools; their handlers run in this process. */
  tools?: Tool<any>[];
  systemMessage?: SystemMessageConfig;
  /** Only these tools are available (takes precedence over `excludedTools`). */
  availableTools?: string[];
  /** These tools are removed. */
  excludedTools?: string[];
  provider?: ProviderConfig;
  onPermissionRequest: PermissionHandler;
  /** Enables the `ask_user` tool. */
  onUserInputRequest?: UserInputHandler;
  /** Tandem: answers the agent's request to leave plan mode with its plan. */
  onExitPlanModeRequest?: ExitPlanModeHandler;
  /** Tandem: fills in forms MCP servers ask for (elicitation). */
  onElicitationRequest?: ElicitationHandler;
  hooks?: SessionHooks;
  /** Working directory for the session's tools. */
  workingDirectory?: string;
  /** Emit `assistant.message_delta` and other streaming events. */
  streaming?: boolean;
  mcpServers?: Record<string, MCPServerConfig>;
  customAgents?: CustomAgentConfig[];
  /** Name of a custom agent to select at start. */
  agent?: string;
  skillDirectories?: string[];
  disabledSkills?: string[];
  /** Built-in agent types (`explore`, `task`, `general-purpose`, `code-review`) the `task` tool does not offer. */
  excludedBuiltinAgents?: string[];
  /** More directories whose `*.instructions.md` files join the system prompt. */
  instructionDirectories?: string[];
  /** Skip the working directory's AGENTS.md, CLAUDE.md, .github/copilot-instructions.md and .github/instructions/. */
  skipCustomInstructions?: boolean;
  /** Instructions of your organization, added to the system prompt. */
  organizationCustomInstructions?: string;
  infiniteSessions?: InfiniteSessionConfig;
  /**
   * Opt in to file checkpoints for rewind (`session.rpc.history.*`): in a git repository Tandem then
   * takes a git checkpoint at the start and end of every turn. A resumed session that was tracked
   * stays tracked.
   */
  enableFileChangeTracking?: boolean;
  /** Tandem: run the session in its own `git worktree` on branch `tandem/<sessionId>` (create only). */
  worktreeIsolation?: boolean;
  /**
   * Tandem: offer the model the `report_intent` tool, whose calls reach you as `assistant.intent`
   * events (`false` turns it off). Unset: the runtime's `--report-intent` setting, else off for
   * this SDK (it is a 1.0.x-generation client, like the official SDK 1.0.x).
   */
  reportIntent?: boolean;
  /**
   * Run the session's bash commands and stdio MCP servers in an OS sandbox (bubblewrap, Linux):
   * read-only system, the working directory and `readwritePaths` writable, `deniedPaths` hidden, no
   * network but `allowedHosts` through the runtime's proxy. Where it cannot start, commands are
   * refused. Unset: the runtime's `--sandbox` default. See `session.rpc.sandbox.getEnforcementStatus`.
   *
   * @example
   * { enabled: true, userPolicy: { network: { allowedHosts: ["registry.npmjs.org"] } } }
   */
  sandbox?: SandboxConfig;
  /**
   * Slash commands this application runs (1.0.x `commands`): the user runs one as `/name args`, as
   * a message or through `session.commands.invoke`, and its `handler` runs here.
   */
  commands?: CommandDefinition[];
  /** Registered before `session.create` is sent, so it also sees the events emitted while creating. */
  onEvent?: SessionEventHandler;
}

/**
 * Configuration of a resumed session.
 *
 * @example
 * const session = await client.resumeSession(id, { onPermissionRequest: approveAll, disableResume: true } satisfies ResumeSessionConfig);
 */
export type ResumeSessionConfig = Omit<SessionConfig, "sessionId"> & {
  /** Reattach without emitting a `session.resume` event. */
  disableResume?: boolean;
};

/**
 * An attachment of a user message.
 *
 * @example
 * const attachment: MessageAttachment = { type: "file", path: "./src/index.ts" };
 */
export type MessageAttachment =
  | { type: "file"; path: string; displayName?: string }
  | { type: "directory"; path: string; displayName?: string }
  | {
      type: "selection";
      filePath: string;
      displayName: string;
      selection?: { start: { line: number; character: number }; end: { line: number; character: number } };
      text?: string;
    }
  | { type: "blob"; data: string; mimeType: string; displayName?: string };

/**
 * A user message.
 *
 * @example
 * const message: MessageOptions = { prompt: "Summarise this file", attachments: [{ type: "file", path: "README.md" }] };
 */
export interface MessageOptions {
  prompt: string;
  attachments?: MessageAttachment[];
  /**
   * `enqueue` (default): answered after the messages before it, in a run of its own; `immediate`:
   * while the session is busy, joins the running turn at its next model call (steering).
   */
  mode?: "enqueue" | "immediate";
  /** Extra HTTP headers for the model requests made while answering this message. */
  requestHeaders?: Record<string, string>;
}

/**
 * The repository and working directory a session was created in.
 *
 * @example
 * const sessions = await client.listSessions({ repository: "octo/app" } satisfies Partial<SessionContext>);
 */
export type SessionContext = z.infer<typeof SessionContextSchema>;

/**
 * Narrows {@link CopilotClient.listSessions}.
 *
 * @example
 * const filter: SessionListFilter = { cwd: process.cwd() };
 */
export interface SessionListFilter {
  cwd?: string;
  gitRoot?: string;
  repository?: string;
  branch?: string;
}

/**
 * A persisted session, as {@link CopilotClient.listSessions} returns it.
 *
 * @example
 * const newest = (await client.listSessions()).sort((a, b) => b.modifiedTime.getTime() - a.modifiedTime.getTime())[0];
 */
export interface SessionMetadata {
  sessionId: string;
  startTime: Date;
  modifiedTime: Date;
  summary?: string;
  isRemote: boolean;
  context?: SessionContext;
}

/**
 * Lifecycle event types (`session.lifecycle` notifications).
 *
 * @example
 * client.on("session.deleted" satisfies SessionLifecycleEventType, (event) => console.log(event.sessionId));
 */
export type SessionLifecycleEventType = SessionLifecycleEvent["type"];

/**
 * Handles every lifecycle event.
 *
 * @example
 * const handler: SessionLifecycleHandler = (event) => console.log(event.type, event.sessionId);
 */
export type SessionLifecycleHandler = (event: SessionLifecycleEvent) => void;

/**
 * Handles the lifecycle events of one type.
 *
 * @example
 * const handler: TypedSessionLifecycleHandler<"session.created"> = (event) => console.log(event.metadata?.startTime);
 */
export type TypedSessionLifecycleHandler<K extends SessionLifecycleEventType> = (event: SessionLifecycleEvent & { type: K }) => void;

export type { PingResponse } from "./result-shapes.js";

/**
 * The result of {@link CopilotClient.getStatus}.
 *
 * @example
 * const { version }: GetStatusResponse = await client.getStatus();
 */
export type GetStatusResponse = ResultOf<typeof StatusGet>;

/**
 * The result of {@link CopilotClient.getAuthStatus}.
 *
 * @example
 * const { isAuthenticated }: GetAuthStatusResponse = await client.getAuthStatus();
 */
export type GetAuthStatusResponse = ResultOf<typeof AuthGetStatus>;

/**
 * The foreground session of a runtime with a UI.
 *
 * @example
 * const info: ForegroundSessionInfo = { sessionId: await client.getForegroundSessionId() };
 */
export interface ForegroundSessionInfo {
  sessionId?: string;
  workspacePath?: string;
}
