import type { LargeOutputSpill } from "../tools/large-output.js";
import type { AgentMode, SessionCreateParams, SessionSendParams } from "@tandem/protocol";
import type { CompatProfile } from "../compat/profile.js";
import { SessionCanvases } from "../canvas/session-canvases.js";
import type { Logger } from "../log.js";
import type { LoopHost } from "../loop/agent-loop.js";
import type { ConversationMessage, ModelToolCall, ToolSpec } from "../loop/messages.js";
import type { RetryPolicy } from "../loop/retry.js";
import type { PermissionHost } from "../permissions/broker.js";
import { routeModel, type BearerTokenSource } from "../providers/routing.js";
import type { ModelClient, ModelResponse } from "../providers/types.js";
import { toolSpecOf, type Tool, type ToolContext } from "../tools/types.js";
import type { ClientNeed, ClientPort } from "./client-port.js";
import { SessionClients, type ClientRegistration } from "./clients.js";
import type { EventEmitterPort, SessionEmitter } from "./emitter.js";
import { PendingRequests } from "./pending.js";
import { ToolContexts, type ContextOptions } from "./tool-contexts.js";
import { SessionMetrics, type SessionEnding } from "./metrics.js";
import { withoutRewoundEvents } from "./rewound-events.js";
import type { UserInputHost } from "./user-input.js";
import { HookRunner, type HookHost } from "../hooks/hook-runner.js";
import { preMcpToolCall } from "../hooks/mcp-hooks.js";
import { EventInterests } from "./event-interests.js";
import { requestMcpToken } from "./mcp-oauth.js";
import { errorMessage } from "../errors.js";
import { SessionWorkspace } from "../plan/plan-file.js";
import type { SessionFiles } from "../store/types.js";
import type { SessionAgents } from "../agents/session-agents.js";
import type { SessionSkills } from "../skills/session-skills.js";
import { McpManager } from "../mcp/manager.js";
import type { McpServerConfig } from "@tandem/protocol";
import type { McpHost } from "../mcp/types.js";
import { requestElicitation } from "./elicitation.js";
import { sameToolSpecs, SessionToolset, type ToolsetHost } from "./toolset.js";
import { SessionPersistence, type PersistenceHost } from "./persistence.js";
import { clientBearerTokens, SessionModelClient } from "./model-headers.js";
import { SessionApprovals } from "../permissions/session-approvals.js";
import { PermissionPolicy } from "../permissions/policy.js";
import type { MessageQueueView, QueuedCommand } from "./message-queue.js";
import { SessionHistory } from "../checkpoints/session-history.js";
import type { ToolFileChange } from "../checkpoints/file-backups.js";
import { SessionCompaction, type CompactionServices } from "../compaction/session-compaction.js";
import type { CompactionHost, SessionCompactor } from "../compaction/compactor.js";
import { TurnRunner, type TurnHost } from "./turn-runner.js";
import { SessionPrompt, type PromptHost } from "./session-prompt.js";
import { ClientMembership, type MembershipHost } from "./client-membership.js";
import { defaultReaskWaitMs } from "../ports/client-asks.js";
import { untrusting, type FolderTrust } from "../trust/folder-consent.js";
import type { BuiltinToolOptions } from "../tools/registry.js";
import type { ProviderError } from "../providers/errors.js";
import type { SandboxEnvironment } from "../sandbox/session-sandbox.js";
import { AutoModeSwitch } from "./auto-mode-switch.js";

/** Services a session borrows from the runtime. */
/** How a model switch came about and what the new model can do. */
export interface ModelSwitchOptions {
  /** Why the model changed (`session.model_change.cause`), when not the user's choice. */
  readonly cause?: string;
  /** What the new model can do (e.g. vision), as the application says. */
  readonly modelCapabilities?: SessionCreateParams["modelCapabilities"];
}

export interface SessionServices {
  readonly logger: Logger;
  readonly protocolVersion: 2 | 3;
  readonly retryPolicy: RetryPolicy;
  /** How many model calls one user message may make (see `loop/model-call-limit.ts`). */
  readonly maxModelCallsPerTurn: number;
  createModelClient(config: SessionCreateParams, bearerTokens: BearerTokenSource, logger: Logger): ModelClient;
  /** The MCP servers the runtime adds to a session with this config (the GitHub MCP server in Copilot API mode). */
  builtinMcpServers?(config: SessionCreateParams): Record<string, McpServerConfig>;
  /** Called when the first user message gives the session its summary. */
  onSummary(session: Session, summary: string): void;
  /** How long a hook may take. */
  readonly hookTimeoutMs: number;
  /** How long a request whose client went away waits for another able client (default {@link defaultReaskWaitMs}). */
  readonly clientReaskMs?: number;
  /** Settings of the session's built-in tools. */
  readonly builtinTools?: BuiltinToolOptions;
  /** The summary call's timeout and the model lists compaction reads windows from. */
  readonly compaction: CompactionServices;
  /** The user's trust in working folders; without it no folder is trusted. */
  readonly folderTrust?: FolderTrust;
  /** The runtime's `--report-intent` setting, if it was given. */
  readonly reportIntent?: boolean;
  /** The runtime's sandbox default (`--sandbox`) and bubblewrap binary. */
  readonly sandbox: SandboxEnvironment;
}

/** Everything a session starts with. */
export interface SessionInit {
  sessionId: string;
  config: SessionCreateParams;
  workingDirectory: string;
  workspacePath: string;
  /** The session's plan, checkpoints, resume point and workspace files in the store. */
  files: SessionFiles;
  model: string;
  emitter: SessionEmitter;
  services: SessionServices;
  messages?: ConversationMessage[];
  startTime: Date;
  summary?: string;
  /** The name the user gave the session (`session.name.set`). */
  name?: string;
  mode?: AgentMode;
  /** The profile of the client generation opening the session. */
  profile: CompatProfile;
  /** Where tool outputs too long for the model are kept whole; without it they are cut in the middle. */
  largeOutputs?: LargeOutputSpill;
}

/**
 * One conversation: its config, history and event stream, a queue of user messages and the agent
 * loop that answers them. Clients attach to it; permissions and custom tools go through them.
 *
 * @example
 * const messageId = await session.send({ sessionId, prompt: "hello" });
 */
export class Session implements LoopHost, TurnHost, PromptHost, MembershipHost, PermissionHost, UserInputHost, HookHost, ToolsetHost, PersistenceHost {
  readonly sessionId: string;
  readonly workspacePath: string;
  /** Where the session works; moved by `session.metadata.setWorkingDirectory` (see `session/working-directory.ts`). */
  workingDirectory: string;
  readonly emitter: SessionEmitter;
  readonly messages: ConversationMessage[];
  readonly pending = new PendingRequests();
  /** The event types the clients said they answer (`session.eventLog.registerInterest`); made on first use. */
  get eventInterests(): EventInterests {
    this.madeEventInterests ??= new EventInterests();
    return this.madeEventInterests;
  }
  /** The attached clients and what each registered (tools, handlers). */
  readonly clients = new SessionClients();
  readonly metrics: SessionMetrics;
  readonly startTime: Date;
  config: SessionCreateParams;
  model: string;
  summary: string | undefined;
  /** The name the user gave the session, if any (it replaces the automatic title). */
  name: string | undefined;
  /** A generated title (`session.name.setAuto`): shown until the user names the session. */
  autoName: string | undefined;
  mode: AgentMode;
  /**
   * The profile of the client generation that created the session or last resumed it (recorded in
   * `workspace.yaml`): tools offered by default, the events around create, event spellings.
   */
  profile: CompatProfile;
  /** Approve-all and the approvals remembered for the rest of the session. */
  readonly approvals: SessionApprovals;
  /**
   * Approve and deny rules, the URL policy and the allowed directories (`session.permissions.*`);
   * made on first use (a setting or the first permission request).
   */
  get permissionPolicy(): PermissionPolicy {
    this.madePermissionPolicy ??= new PermissionPolicy(() => this.workingDirectory);
    return this.madePermissionPolicy;
  }
  /** `session.queue.*`: the waiting messages as the application sees them. */
  readonly pendingMessages: MessageQueueView;

  private readonly services: SessionServices;
  /** The runtime's logger with the session's id, and the current message's interaction id during a turn, on every line. */
  readonly logger: Logger;
  readonly hooks: HookRunner;
  /** The plan file and workspace files. */
  readonly workspace: SessionWorkspace;
  /** The canvases the session's clients declared and the instances open from them; made on first use (`session.canvas.*`). */
  get canvases(): SessionCanvases {
    this.madeCanvases ??= new SessionCanvases({ sessionId: this.sessionId, declaredCanvases: () => this.clients.declaredCanvases() });
    return this.madeCanvases;
  }
  /** Built-in, custom, skill, agent, plan and MCP tools. */
  readonly toolset: SessionToolset;
  /** Failed writes of the session's files: reported, and messages refused until they are retried. */
  readonly persistence: SessionPersistence;
  /** Rewind points, git checkpoints and rewinds (`session.history.*`). */
  readonly history: SessionHistory;
  /** Offers the `auto` model when the provider rate-limits the user (see `auto-mode-switch.ts`); made on first use. */
  get autoModeSwitch(): AutoModeSwitch {
    this.madeAutoModeSwitch ??= new AutoModeSwitch(this);
    return this.madeAutoModeSwitch;
  }
  /** Compaction settings and checkpoints; `context` is the main loop's compactor. */
  readonly compaction: SessionCompaction;
  readonly context: SessionCompactor;
  /** Builds each tool call's context (permissions, client tools, user input). */
  private readonly contexts: ToolContexts;
  /** The base system prompt and the instruction files it includes. */
  private readonly prompt: SessionPrompt;
  /** The queue, steering and the loop answering each message. */
  private readonly runner: TurnRunner;
  /** Attaching and detaching clients. */
  private readonly membership: ClientMembership;
  private client: ModelClient | undefined;
  private destroyed = false;
  // What the getters above make on first use: a plain session never needs them.
  private madeEventInterests: EventInterests | undefined;
  private madePermissionPolicy: PermissionPolicy | undefined;
  private madeCanvases: SessionCanvases | undefined;
  private madeAutoModeSwitch: AutoModeSwitch | undefined;
  /** See {@link toolSpecs}. */
  private cachedToolSpecs: { tools: readonly Tool[]; specs: ToolSpec[] } | undefined;

  constructor(init: SessionInit) {
    this.sessionId = init.sessionId;
    this.workspacePath = init.workspacePath;
    this.workingDirectory = init.workingDirectory;
    this.emitter = init.emitter;
    this.config = init.config;
    this.model = init.model;
    this.services = init.services;
    // `runner` is read at each line, once the constructor is done.
    this.logger = init.services.logger.child(() => ({ sessionId: this.sessionId, interactionId: this.runner?.interactionId }));
    this.messages = init.messages ?? [];
    this.startTime = init.startTime;
    this.summary = init.summary;
    this.name = init.name;
    this.mode = init.mode ?? "interactive";
    this.profile = init.profile;
    // Every event of the session is shaped by the profile it has at the time.
    init.emitter.shapeEventsWith((type, data) => (this.profile.sendsEvent(type, data) ? this.profile.shapeEvent(type, data) : "omit"));
    this.approvals = new SessionApprovals(this.logger);
    this.runner = new TurnRunner(this, init.summary !== undefined, (summary) => {
      this.summary = summary;
      this.services.onSummary(this, summary);
    });
    this.pendingMessages = this.runner.pendingMessages;
    this.prompt = new SessionPrompt(this);
    this.membership = new ClientMembership(this, () => this.applyClients(this.config));
    this.metrics = new SessionMetrics(init.startTime);
    this.hooks = new HookRunner(this, init.services.hookTimeoutMs);
    this.workspace = new SessionWorkspace(init.files, init.emitter);
    this.contexts = new ToolContexts(this, init.largeOutputs);
    this.toolset = new SessionToolset(this, init.services.builtinTools, init.services.builtinMcpServers);
    this.persistence = new SessionPersistence(this);
    this.history = new SessionHistory(this);
    this.compaction = new SessionCompaction(init.config, init.files, init.services.compaction, this.logger);
    this.context = this.compaction.create(this);
  }

  /** A compactor for a sub-agent's own history (same rules, checkpoints in the same folder). */
  createCompactor(host: CompactionHost, agentName: string): SessionCompactor {
    return this.compaction.create(host, agentName);
  }
  /** The title of checkpoint files: the session's first prompt. */
  checkpointTitle(): string {
    return this.summary ?? "session";
  }
  /**
   * Emits `session.usage_info` for a resumed history soon after the resume is answered: the
   * history is measured a slice at a time between other work (measuring 100k events in one piece
   * held up the resume by ~110 ms, and the `getMessages` after it). A turn that starts first
   * reports its own usage, and a closed session none, so then nothing is emitted.
   */
  reportContextUsageSoon(): void {
    const length = this.messages.length;
    const unchanged = (): boolean => !this.busy && this.messages.length === length;
    void this.context
      .measureHistory()
      .then(async (measured) => {
        if (!measured || !unchanged()) return;
        const system = await this.systemPrompt();
        if (unchanged()) this.emitter.emit("session.usage_info", this.context.usage({ system, tools: this.toolSpecs() }));
      })
      .catch((error: unknown) => this.logger.warn("could not measure the resumed history", error));
  }

  /** Custom agents, sub-agents and background agents. */
  get agents(): SessionAgents {
    return this.toolset.agents;
  }
  /** Skills from `skillDirectories`. */
  get skills(): SessionSkills {
    return this.toolset.skills;
  }
  /** The session's MCP servers. */
  get mcp(): McpManager {
    return this.toolset.mcp;
  }
  /** The runtime's sandbox default and bubblewrap binary (the toolset reads them). */
  get sandboxEnvironment(): SandboxEnvironment {
    return this.services.sandbox;
  }
  /** The runtime's `--report-intent` setting (the toolset reads it). */
  get reportIntentSetting(): boolean | undefined {
    return this.services.reportIntent;
  }
  /** MCP servers for a custom agent's own `mcpServers`. */
  createMcpManager(configs: Record<string, McpServerConfig>, emitter: EventEmitterPort): McpManager {
    return new McpManager(configs, { emitter, logger: this.logger, workingDirectory: this.workingDirectory, launcher: this.toolset.sandbox, ...this.mcpHost });
  }

  /** What MCP servers need from the session: forms for the user. */
  get mcpHost(): Omit<McpHost, "emitter" | "logger" | "workingDirectory"> {
    return {
      elicit: (request, signal) => requestElicitation(this, request, signal),
      beforeToolCall: (call, signal) => preMcpToolCall(this.hooks, this, call, signal),
      requestToken: (request) => requestMcpToken(this, request),
    };
  }

  // ---- PermissionHost / LoopHost -------------------------------------------------------------

  get protocolVersion(): 2 | 3 {
    return this.services.protocolVersion;
  }
  get requestPermission(): boolean {
    return this.config.requestPermission !== false;
  }
  get hooksEnabled(): boolean {
    return this.config.hooks === true;
  }
  get canAskUser(): boolean {
    return this.config.requestUserInput === true;
  }
  get streaming(): boolean {
    return this.config.streaming === true;
  }
  get reasoningEffort(): string | undefined {
    return this.config.reasoningEffort;
  }
  get retryPolicy(): RetryPolicy {
    return this.services.retryPolicy;
  }
  get maxModelCallsPerTurn(): number {
    return this.services.maxModelCallsPerTurn;
  }
  get tokenLimit(): number {
    return this.context.tokenLimit;
  }
  /** The connected client to ask for `need`: the most recent one that registered it. */
  /** How long a request whose client went away waits for another able client (see `ports/client-asks.ts`). */
  get clientReaskMs(): number {
    return this.services.clientReaskMs ?? defaultReaskWaitMs;
  }

  clientFor(need: ClientNeed): ClientPort | undefined {
    return this.clients.clientFor(need);
  }
  /** The clients whose hooks run (the application's, then the extensions'). */
  hookClients(): ClientPort[] {
    return this.clients.hookClients();
  }
  /** The system prompt of the main loop: the base prompt plus the selected agent's prompt. */
  async systemPrompt(): Promise<string> {
    const base = await this.baseSystemPrompt();
    const agent = this.agents.selected;
    return agent ? `${base}\n\n${agent.prompt}` : base;
  }

  /** The base system prompt, built once per configuration (a `transform` section asks the client). */
  baseSystemPrompt(): Promise<string> {
    return this.prompt.base();
  }

  /**
   * Starts reading the instruction files the system prompt includes, so that the first message
   * does not wait for them (see {@link SessionPrompt.prefetchFacts}).
   */
  prefetchPromptFacts(): void {
    this.prompt.prefetchFacts();
  }

  /** Every tool of the session, before the selected agent's filter. */
  allTools(): readonly Tool[] {
    return this.toolset.all();
  }
  autoApprove(toolNames: readonly string[]): void {
    this.contexts.autoApprove(toolNames);
  }
  get folderTrust(): FolderTrust {
    return this.services.folderTrust ?? untrusting;
  }
  /**
   * The offered tools' specs: the same array (not to be modified) as long as the same tool
   * objects are offered, so what is derived from it per model call (the request's tool JSON,
   * token estimates) can be remembered by identity.
   */
  toolSpecs(): ToolSpec[] {
    const offered = this.toolset.offered();
    const cached = this.cachedToolSpecs;
    if (cached && cached.tools.length === offered.length && cached.tools.every((tool, index) => tool === offered[index])) return cached.specs;
    const specs = offered.map(toolSpecOf);
    this.cachedToolSpecs = { tools: offered, specs };
    return specs;
  }
  findTool(name: string): Tool | undefined {
    return this.toolset.find(name);
  }
  toolNames(): string[] {
    return this.toolset.offered().map((tool) => tool.name);
  }
  onBackgroundShellDone(notice: string): void {
    this.notify(notice);
  }
  /**
   * Tells the model about finished background work: injected into the running loop, or kept for
   * the next message when the session is idle.
   */
  notify(text: string): void {
    this.runner.notify(text);
  }
  beforeModelCall(interactionId: string): Promise<void> {
    return this.runner.beforeModelCall(interactionId);
  }
  /** Tool calls wait for the turn's start checkpoint (taken while the first model call runs). */
  beforeToolCalls(): Promise<void> {
    return this.history.beforeToolCalls();
  }
  switchModelAfterRateLimit(error: ProviderError, signal: AbortSignal): Promise<boolean> {
    return this.autoModeSwitch.offer(error, signal);
  }
  onTurnError(error: unknown): void {
    void this.hooks.run("errorOccurred", { error: errorMessage(error), errorContext: "model_call", recoverable: false });
  }
  /** Whether the model is asked for citations of attached documents (`enableCitations`). */
  get citations(): boolean {
    return this.config.enableCitations === true;
  }
  /** Whether the current model's provider reads attached PDF documents (Anthropic's messages API). */
  get acceptsDocuments(): boolean {
    return routeModel(this.config, this.model).provider?.type === "anthropic";
  }
  /** False when the application said the model has no vision (`modelCapabilities.supports.vision`). */
  get acceptsImages(): boolean {
    return this.config.modelCapabilities?.supports?.vision !== false;
  }
  modelClient(): ModelClient {
    const tokens = clientBearerTokens(this.sessionId, () => this.clientFor({ kind: "providerToken" }));
    this.client ??= new SessionModelClient(this.services.createModelClient(this.config, tokens, this.logger), { turnHeaders: () => this.runner.turnHeaders });
    return this.client;
  }
  recordFileChange(change: ToolFileChange): void {
    this.metrics.recordFileChange(change);
    this.history.toolWrote(change);
  }
  recordModelCall(model: string, response: ModelResponse, durationMs: number): void {
    this.metrics.recordModelCall(model, response.usage, durationMs);
  }
  createContext(call: ModelToolCall, tool: Tool, signal: AbortSignal, options: ContextOptions = {}): ToolContext {
    return this.contexts.create(call, tool, signal, options);
  }
  /** The plan file (the one thing plan mode lets the agent write). */
  get planPath(): string {
    return this.workspace.planPath;
  }

  // ---- Clients ------------------------------------------------------------------------------

  /** Attaches a client with what it registered (see {@link ClientMembership.attach}). */
  attach(port: ClientPort, registration: ClientRegistration): void {
    this.membership.attach(port, registration);
  }

  /** Detaches a client; waiting requests nobody left can answer are abandoned (see {@link ClientMembership.detach}). */
  detach(port: ClientPort): void {
    this.membership.detach(port);
  }

  /** Whether a client is attached. */
  isAttached(port: ClientPort): boolean {
    return this.membership.isAttached(port);
  }

  /**
   * Switches the model (and optionally the reasoning effort and what the model can do); emits
   * `session.model_change` (with why, when given).
   */
  switchModel(modelId: string, reasoningEffort?: SessionCreateParams["reasoningEffort"], options: ModelSwitchOptions = {}): void {
    const { cause, modelCapabilities } = options;
    const previousModel = this.model;
    this.config = { ...this.config, model: modelId, ...(reasoningEffort ? { reasoningEffort } : {}), ...(modelCapabilities ? { modelCapabilities } : {}) };
    this.model = modelId;
    this.client = undefined;
    this.emitter.emit("session.model_change", { previousModel, newModel: modelId, ...(reasoningEffort ? { reasoningEffort } : {}), ...(cause ? { cause } : {}) });
  }

  /**
   * Replaces the configuration (resume with new settings) and the tool set. The per-client fields
   * (tools, handler flags, streaming) stay what the attached clients registered together.
   */
  reconfigure(config: SessionCreateParams, model: string): void {
    const before = this.toolSpecs();
    this.prompt.reset();
    if (model !== this.model) this.model = model;
    this.client = undefined;
    this.config = this.clients.overlay(config);
    this.compaction.configure(this.config);
    this.context.reconfigure(this.compaction.options());
    this.agents.reload(this.config.customAgents);
    this.applyClients(this.config, before);
  }

  /**
   * Takes `config` with the clients' registrations laid over it and rebuilds the tools;
   * `session.tools_updated` tells the clients when the offered tools changed.
   */
  private applyClients(config: SessionCreateParams, before = this.toolSpecs()): void {
    this.config = this.clients.overlay(config);
    this.toolset.rebuild(this.config);
    if (!sameToolSpecs(this.toolSpecs(), before)) this.emitter.emit("session.tools_updated", { model: this.model });
  }

  // ---- Messages -----------------------------------------------------------------------------

  /**
   * Queues a user message and returns its id; the loop runs in the background. After a failed
   * write, first writes what is held and refuses the message (`PersistenceFailed`) if it cannot.
   * `placement: "next"` puts it before the messages waiting (a slash command's own task).
   */
  send(params: SessionSendParams, placement: "last" | "next" = "last"): Promise<string> {
    return this.runner.send(params, placement);
  }

  /**
   * Continues a turn that stopped because the node running it died (cluster failover): the model
   * is called again on the stored history (tool calls left without results were answered
   * "interrupted"), after `notice` as a system message.
   */
  continueInterruptedTurn(notice: string): void {
    this.runner.continueInterruptedTurn(notice);
  }

  /**
   * Queues a slash command behind the waiting messages (`requestId` is its queue id); it runs in its
   * turn, never alongside a running turn.
   */
  enqueueCommand(requestId: string, command: QueuedCommand): void {
    this.runner.enqueueCommand(requestId, command);
  }

  /** `session.history.clearContext`: see `TurnRunner.clearContext`. */
  clearContext(prompt: string): number {
    return this.runner.clearContext(prompt);
  }

  /** Whether the loop is running a turn (a queued command running alone may rewrite the history: `/clear`). */
  get busy(): boolean {
    return this.runner.busy;
  }

  /**
   * Fleet mode: asks the agent to split the task into independent parts and run them as parallel
   * sub-agents (the `task` tool), then merge their results. At most `maxConcurrentSubAgents` run at
   * once; each sub-agent's events carry its own `parentToolCallId`.
   */
  startFleet(prompt: string | undefined, placement: "last" | "next" = "last"): Promise<string> {
    const task = prompt?.trim() || "Continue with the current task.";
    return this.send({
      sessionId: this.sessionId,
      prompt: `${task}\n\n<fleet_instructions>\nWork as a fleet: split this into independent parts and hand each part to its own sub-agent with the task tool, calling task several times in one response so they run in parallel. When they are done, check their results and merge them into one answer.\n</fleet_instructions>`,
    }, placement);
  }

  /** Switches the agent mode (`interactive`, `plan`, `autopilot`). */
  setMode(mode: AgentMode): void {
    if (mode === this.mode) return;
    const previousMode = this.mode;
    this.mode = mode;
    this.emitter.emit("session.mode_changed", { previousMode, newMode: mode });
  }

  /**
   * Cancels the running turn and everything queued; resolves once the session is idle.
   * `destroyed`: the session is closing (its interrupted tool calls say so).
   */
  abort(reason: "aborted" | "destroyed" = "aborted"): Promise<void> {
    return this.runner.abort(reason);
  }

  /** Stops the running turn and drops queued messages: the session's files cannot be written. */
  haltForPersistence(): number {
    const dropped = this.runner.halt();
    this.agents.background.cancelAll("stopped: the session's files cannot be written");
    return dropped;
  }

  /**
   * The `session.getMessages` result as JSON (UTF-8 bytes): the persisted events, never
   * re-serialised unless a rewind removed some (see {@link withoutRewoundEvents}).
   */
  async eventsJson(): Promise<Buffer> {
    return withoutRewoundEvents(await this.emitter.persistedArrayBytes(`{"events":[`, "]}"));
  }

  /** Aborts work, writes `session.shutdown` (saying why it ended) and makes the log durable. */
  async shutdown(ending?: SessionEnding): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    this.context.dispose();
    await this.abort("destroyed");
    if (this.hooks.active) await this.hooks.run("sessionEnd", { reason: "user_exit" });
    this.pending.abandonAll("destroyed");
    await this.toolset.dispose();
    await this.history.settled();
    this.emitter.emit("session.shutdown", this.metrics.shutdownData(this.model, ending));
    await this.emitter.close();
  }

  /**
   * Runs the sessionStart hook (after create or resume); its context reaches the model as a
   * message of its own, just before the next user message.
   */
  async runStartHook(source: "new" | "resume"): Promise<void> {
    if (!this.hooks.active) return;
    const output = await this.hooks.run("sessionStart", { source });
    if (typeof output?.additionalContext === "string" && output.additionalContext !== "") this.runner.notify(output.additionalContext);
  }
}

export { shortTitle } from "./turn-events.js";
export { autopilotNudge, maxAutopilotNudges } from "./turn-runner.js";
