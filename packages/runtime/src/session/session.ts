import { randomUUID } from "node:crypto";
import type { AgentMode, SessionCreateParams, SessionSendParams } from "@tandem/protocol";
import type { Logger } from "../log.js";
import { reportLoopError, runAgentLoop, type LoopHost } from "../loop/agent-loop.js";
import type { ConversationMessage, ModelToolCall, ToolSpec } from "../loop/messages.js";
import type { RetryPolicy } from "../loop/retry.js";
import { buildSystemPrompt, type PromptFacts } from "../loop/system-prompt.js";
import { loadCustomInstructions } from "../loop/custom-instructions.js";
import type { PermissionHost } from "../permissions/broker.js";
import type { ModelClient, ModelResponse } from "../providers/types.js";
import type { Tool, ToolContext } from "../tools/types.js";
import type { ClientNeed, ClientPort } from "./client-port.js";
import { SessionClients, type ClientRegistration } from "./clients.js";
import type { EventEmitterPort, SessionEmitter } from "./emitter.js";
import { PendingAbandoned, PendingRequests } from "./pending.js";
import { ToolContexts, type ContextOptions } from "./tool-contexts.js";
import { SessionMetrics } from "./metrics.js";
import type { UserInputHost } from "./user-input.js";
import { HookRunner, type HookHost } from "../hooks/hook-runner.js";
import { errorMessage } from "../errors.js";
import { SessionWorkspace } from "../plan/plan-file.js";
import type { SessionFiles } from "../store/types.js";
import type { SessionAgents } from "../agents/session-agents.js";
import type { SessionSkills } from "../skills/session-skills.js";
import { McpManager } from "../mcp/manager.js";
import type { McpServerConfig } from "@tandem/protocol";
import type { McpHost } from "../mcp/types.js";
import { requestElicitation } from "./elicitation.js";
import { SessionToolset, type ToolsetHost } from "./toolset.js";
import { SessionPersistence, type PersistenceHost } from "./persistence.js";
import { SessionModelClient } from "./model-headers.js";
import { SessionApprovals } from "../permissions/session-approvals.js";
import { dropAll, MessageQueueView, type QueuedCommand, type QueuedMessage } from "./message-queue.js";
import { MAX_STORED_TRANSFORMED_CHARS, summaryOf, userConversationMessage, wrapPrompt } from "./user-message.js";
import { modelAcceptsImages, prepareAttachments } from "./attachments.js";
import { SessionHistory } from "../checkpoints/session-history.js";
import { SessionCompaction, type CompactionServices } from "../compaction/session-compaction.js";
import type { CompactionHost, SessionCompactor } from "../compaction/compactor.js";
import { TurnEvents } from "./turn-events.js";

/** Services a session borrows from the runtime. */
export interface SessionServices {
  readonly logger: Logger;
  readonly protocolVersion: 2 | 3;
  readonly retryPolicy: RetryPolicy;
  createModelClient(config: SessionCreateParams): ModelClient;
  /** Called when the first user message gives the session its summary. */
  onSummary(session: Session, summary: string): void;
  /** How long a hook may take. */
  readonly hookTimeoutMs: number;
  /** The summary call's timeout and the model lists compaction reads windows from. */
  readonly compaction: CompactionServices;
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
}

/** How many times autopilot nudges the model to finish before it gives up for this message. */
export const maxAutopilotNudges = 3;

/** The message autopilot adds when the model stops without calling `task_complete`. */
export const autopilotNudge = [
  "You stopped without calling the task_complete tool, so the task is not finished yet.",
  "If you were still planning, stop planning and carry out the work now.",
  "Do not call task_complete while questions are open (decide and keep going), after an error you have not resolved, or while steps remain.",
  "Call task_complete with a short summary only when everything is done.",
].join(" ");

/**
 * One conversation: its config, history and event stream, a queue of user messages and the agent
 * loop that answers them. Clients attach to it; permissions and custom tools go through them.
 *
 * @example
 * const messageId = await session.send({ sessionId, prompt: "hello" });
 */
export class Session implements LoopHost, PermissionHost, UserInputHost, HookHost, ToolsetHost, PersistenceHost {
  readonly sessionId: string;
  readonly workspacePath: string;
  readonly workingDirectory: string;
  readonly emitter: SessionEmitter;
  readonly messages: ConversationMessage[];
  readonly pending = new PendingRequests();
  /** The attached clients and what each registered (tools, handlers). */
  readonly clients = new SessionClients();
  readonly metrics: SessionMetrics;
  readonly startTime: Date;
  config: SessionCreateParams;
  model: string;
  summary: string | undefined;
  /** The name the user gave the session, if any (it replaces the automatic title). */
  name: string | undefined;
  mode: AgentMode;
  /** Approve-all and the approvals remembered for the rest of the session. */
  readonly approvals: SessionApprovals;
  /** `session.queue.*`: the waiting messages as the application sees them. */
  readonly pendingMessages: MessageQueueView;

  private readonly services: SessionServices;
  readonly hooks: HookRunner;
  /** The plan file and workspace files. */
  readonly workspace: SessionWorkspace;
  /** Built-in, custom, skill, agent, plan and MCP tools. */
  readonly toolset: SessionToolset;
  /** Failed writes of the session's files: reported, and messages refused until they are retried. */
  readonly persistence: SessionPersistence;
  /** Rewind points, git checkpoints and rewinds (`session.history.*`). */
  readonly history: SessionHistory;
  /** Compaction settings and checkpoints; `context` is the main loop's compactor. */
  readonly compaction: SessionCompaction;
  readonly context: SessionCompactor;
  /** Notices (finished background work) waiting for the next run when the session was idle. */
  private readonly deferredNotices: string[] = [];
  /** Builds each tool call's context (permissions, client tools, user input). */
  private readonly contexts: ToolContexts;
  /** Extra system-prompt context a sessionStart hook supplied. */
  private hookContext: string | undefined;
  private cachedSystemPrompt: Promise<string> | undefined;
  /** The instruction files read for the system prompt (see {@link prefetchPromptFacts}). */
  private cachedPromptFacts: Promise<PromptFacts> | undefined;
  /** Title, tools, system prompt and idle events around each answered message. */
  private readonly turnEvents: TurnEvents;
  private readonly queue: QueuedMessage[] = [];
  /** Messages sent with `mode: "immediate"` while busy: injected before the next model call. */
  private readonly steering: QueuedMessage[] = [];
  private running: Promise<void> | undefined;
  /** The loop is running a queued slash command (no turn). */
  private runningCommand = false;
  private currentRun: AbortController | undefined;
  /** The run stopped because the session's files could not be written. */
  private haltedRun: AbortController | undefined;
  private client: ModelClient | undefined;
  /** The `requestHeaders` of the message being answered. */
  private turnHeaders: Readonly<Record<string, string>> | undefined;
  private destroyed = false;

  constructor(init: SessionInit) {
    this.sessionId = init.sessionId;
    this.workspacePath = init.workspacePath;
    this.workingDirectory = init.workingDirectory;
    this.emitter = init.emitter;
    this.config = init.config;
    this.model = init.model;
    this.services = init.services;
    this.messages = init.messages ?? [];
    this.startTime = init.startTime;
    this.summary = init.summary;
    this.name = init.name;
    this.mode = init.mode ?? "interactive";
    this.approvals = new SessionApprovals(init.services.logger);
    this.pendingMessages = new MessageQueueView(this.queue, this.steering, init.emitter, () => this.mode);
    this.metrics = new SessionMetrics(init.startTime);
    this.turnEvents = new TurnEvents(init.emitter, init.summary !== undefined);
    this.hooks = new HookRunner(this, init.services.hookTimeoutMs);
    this.workspace = new SessionWorkspace(init.files, init.emitter);
    this.contexts = new ToolContexts(this);
    this.toolset = new SessionToolset(this);
    this.persistence = new SessionPersistence(this);
    this.history = new SessionHistory(this);
    this.compaction = new SessionCompaction(init.config, init.files, init.services.compaction, init.services.logger);
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
  /** MCP servers for a custom agent's own `mcpServers`. */
  createMcpManager(configs: Record<string, McpServerConfig>, emitter: EventEmitterPort): McpManager {
    return new McpManager(configs, { emitter, logger: this.logger, workingDirectory: this.workingDirectory, ...this.mcpHost });
  }

  /** What MCP servers need from the session: forms for the user. */
  get mcpHost(): Omit<McpHost, "emitter" | "logger" | "workingDirectory"> {
    return { elicit: (request, signal) => requestElicitation(this, request, signal) };
  }

  // ---- PermissionHost / LoopHost -------------------------------------------------------------

  get logger(): Logger {
    return this.services.logger;
  }
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
  get tokenLimit(): number {
    return this.context.tokenLimit;
  }
  /** The connected client to ask for `need`: the most recent one that registered it. */
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
  async baseSystemPrompt(): Promise<string> {
    this.cachedSystemPrompt ??= (this.cachedPromptFacts ?? this.promptFacts())
      .then((facts) => buildSystemPrompt(this.config.systemMessage, facts, (sections) => this.transformSections(sections)))
      .catch((error: unknown) => {
        this.cachedSystemPrompt = undefined;
        throw error;
      });
    this.cachedPromptFacts = undefined;
    const prompt = await this.cachedSystemPrompt;
    return this.hookContext ? `${prompt}\n\n${this.hookContext}` : prompt;
  }

  /**
   * Starts reading the instruction files the system prompt includes, so that the first message
   * does not wait for them (a created session is usually sent a message at once). The prompt
   * itself is built on the first message: a `transform` section asks the client then, not before.
   */
  prefetchPromptFacts(): void {
    if (this.cachedSystemPrompt || this.cachedPromptFacts) return;
    const facts = this.promptFacts();
    facts.catch(() => undefined);
    this.cachedPromptFacts = facts;
  }

  private async promptFacts(): Promise<PromptFacts> {
    const { config, workingDirectory } = this;
    // A replaced prompt has no place for instructions: nothing is read.
    const customInstructions = config.systemMessage?.mode === "replace" ? "" : await loadCustomInstructions({ ...config, workingDirectory });
    return { workingDirectory, now: new Date(), customInstructions };
  }

  private async transformSections(sections: Record<string, { content: string }>): Promise<Record<string, { content: string }>> {
    // The client that sent the system message holds its transform callbacks.
    const owner = this.clientFor({ kind: "systemMessage" });
    if (!owner) return sections;
    try {
      const response = await owner.sendRequest<{ sections?: Record<string, { content: string }> }>("systemMessage.transform", {
        sessionId: this.sessionId,
        sections,
      });
      return response?.sections ?? sections;
    } catch (error) {
      this.logger.warn("systemMessage.transform failed; using the sections untransformed", error);
      return sections;
    }
  }
  /** Every tool of the session, before the selected agent's filter. */
  allTools(): readonly Tool[] {
    return this.toolset.all();
  }
  autoApprove(toolNames: readonly string[]): void {
    this.contexts.autoApprove(toolNames);
  }
  toolSpecs(): ToolSpec[] {
    return this.toolset.offered().map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
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
    if (!this.running) {
      this.deferredNotices.push(text);
      return;
    }
    this.steering.push({ messageId: randomUUID(), params: { sessionId: this.sessionId, prompt: text }, source: "system" });
  }
  async beforeModelCall(interactionId: string): Promise<void> {
    for (let next = this.steering.shift(); next; next = this.steering.shift()) {
      await this.recordUserMessage(next.params, interactionId, next.source);
    }
  }
  /** Tool calls wait for the turn's start checkpoint (taken while the first model call runs). */
  beforeToolCalls(): Promise<void> {
    return this.history.settled();
  }
  onTurnError(error: unknown): void {
    void this.hooks.run("errorOccurred", { error: errorMessage(error), errorContext: "model_call", recoverable: false });
  }
  modelClient(): ModelClient {
    this.client ??= new SessionModelClient(this.services.createModelClient(this.config), {
      sessionId: this.sessionId,
      turnHeaders: () => this.turnHeaders,
      tokenFromClient: this.config.provider?.hasBearerTokenProvider === true,
      tokenClient: () => this.clientFor({ kind: "providerToken" }),
    });
    return this.client;
  }
  recordFileChange(change: { path: string; diff: string }): void {
    this.metrics.recordFileChange(change);
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

  /**
   * Attaches a client with what it registered (see {@link SessionClients}): it receives events from
   * now on, its tools join the session's, and requests it can answer may go to it. A client that
   * attaches again replaces its own registration.
   */
  attach(port: ClientPort, registration: ClientRegistration): void {
    const listening = this.emitter.sinkCount > 0;
    const elicitation = this.clients.anyAnswersElicitation;
    if (!this.emitter.hasSink(port)) this.emitter.addSink(port);
    this.clients.register(port, registration);
    this.applyClients(this.config);
    if (listening) this.announceCapabilities(elicitation);
  }

  /**
   * Detaches a client: its tools and handlers leave the session. Waiting requests nobody left can
   * answer are abandoned (tool calls to tools no other client provides, permission requests when
   * no client answers them, everything when no client is left).
   */
  detach(port: ClientPort): void {
    if (!this.emitter.hasSink(port)) return;
    const elicitation = this.clients.anyAnswersElicitation;
    this.emitter.removeSink(port);
    this.clients.remove(port);
    this.announceCapabilities(elicitation);
    if (this.emitter.sinkCount === 0) {
      this.pending.abandonAll("disconnected");
      return;
    }
    this.applyClients(this.config);
    this.pending.abandonWhere("tool", (toolName) => toolName === undefined || !this.clients.provides(toolName), "disconnected");
    if (!this.clients.anyAnswersPermissions) this.pending.abandonAll("disconnected", "permission");
  }

  /** `capabilities.changed` when joining or leaving clients changed who answers elicitations. */
  private announceCapabilities(elicitationBefore: boolean): void {
    const elicitation = this.clients.anyAnswersElicitation;
    if (elicitation !== elicitationBefore && this.emitter.sinkCount > 0) this.emitter.emit("capabilities.changed", { ui: { elicitation } });
  }

  /** Whether a client is attached. */
  isAttached(port: ClientPort): boolean {
    return this.emitter.hasSink(port);
  }

  /** Switches the model (and optionally the reasoning effort); emits `session.model_change`. */
  switchModel(modelId: string, reasoningEffort?: SessionCreateParams["reasoningEffort"]): void {
    const previousModel = this.model;
    this.config = { ...this.config, model: modelId, ...(reasoningEffort ? { reasoningEffort } : {}) };
    this.model = modelId;
    this.client = undefined;
    this.emitter.emit("session.model_change", { previousModel, newModel: modelId, ...(reasoningEffort ? { reasoningEffort } : {}) });
  }

  /**
   * Replaces the configuration (resume with new settings) and the tool set. The per-client fields
   * (tools, handler flags, streaming) stay what the attached clients registered together.
   */
  reconfigure(config: SessionCreateParams, model: string): void {
    const before = this.toolSpecs();
    this.cachedSystemPrompt = undefined;
    this.cachedPromptFacts = undefined;
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
  async send(params: SessionSendParams, placement: "last" | "next" = "last"): Promise<string> {
    if (this.persistence.failed) await this.persistence.ensureWritable();
    const messageId = randomUUID();
    if (params.mode === "immediate" && this.running) this.steering.push({ messageId, params, agentMode: this.mode });
    else if (placement === "next") this.queue.unshift({ messageId, params, agentMode: this.mode });
    else this.queue.push({ messageId, params, agentMode: this.mode });
    this.pendingMessages.changed();
    this.running ??= this.drainQueue();
    this.turnEvents.accepted(params.prompt, this.name);
    return messageId;
  }

  /**
   * Continues a turn that stopped because the node running it died (cluster failover): the model
   * is called again on the stored history (tool calls left without results were answered
   * "interrupted"), after `notice` as a system message.
   */
  continueInterruptedTurn(notice: string): void {
    this.queue.push({ messageId: randomUUID(), params: { sessionId: this.sessionId, prompt: notice }, agentMode: this.mode, source: "system", recordAs: "system" });
    this.running ??= this.drainQueue();
  }

  /**
   * Queues a slash command behind the waiting messages (`requestId` is its queue id); it runs in its
   * turn, never alongside a running turn.
   */
  enqueueCommand(requestId: string, command: QueuedCommand): void {
    this.queue.push({ messageId: requestId, params: { sessionId: this.sessionId, prompt: command.text }, agentMode: this.mode, command });
    this.pendingMessages.changed();
    this.running ??= this.drainQueue();
  }

  /** Whether the loop is running a turn (a queued command running alone may rewrite the history: `/clear`). */
  get busy(): boolean {
    return this.running !== undefined && !this.runningCommand;
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

  /** Cancels the running turn and everything queued; resolves once the session is idle. */
  async abort(): Promise<void> {
    dropAll(this.queue);
    dropAll(this.steering);
    this.currentRun?.abort(new PendingAbandoned("aborted"));
    // A command running in an application waits for its answer: stop waiting.
    this.pending.abandonAll("aborted", "command");
    await this.running;
  }

  /** Stops the running turn and drops queued messages: the session's files cannot be written. */
  haltForPersistence(): number {
    const dropped = dropAll(this.queue) + dropAll(this.steering);
    if (this.currentRun) {
      this.haltedRun = this.currentRun;
      this.currentRun.abort(new PendingAbandoned("aborted"));
    }
    this.agents.background.cancelAll("stopped: the session's files cannot be written");
    return dropped;
  }

  /** The `session.getMessages` result as JSON (UTF-8 bytes): the persisted events, never re-serialised. */
  eventsJson(): Promise<Buffer> {
    return this.emitter.persistedArrayBytes(`{"events":[`, "]}");
  }

  /** Aborts work, writes `session.shutdown` and makes the log durable. */
  async shutdown(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    this.context.dispose();
    await this.abort();
    if (this.hooks.active) await this.hooks.run("sessionEnd", { reason: "user_exit" });
    this.pending.abandonAll("destroyed");
    await this.toolset.dispose();
    await this.history.settled();
    this.emitter.emit("session.shutdown", this.metrics.shutdownData(this.model));
    await this.emitter.close();
  }

  /**
   * Answers queued messages until none is left, then goes idle. `running` is cleared in the same
   * synchronous step that emits `session.idle`, so a `send` that arrives after idle always starts a
   * new drain and one that arrives before it is always answered by this one.
   */
  private async drainQueue(): Promise<void> {
    let aborted = false;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) {
        if (next.source === undefined) this.pendingMessages.changed();
        if (next.command) {
          this.runningCommand = true;
          const outcome = await next.command.run().finally(() => (this.runningCommand = false));
          // 1.0.x `stopProcessingQueue`: what still waits runs with the next send.
          if (outcome === "pause") break;
        }
        aborted = next.command ? false : (await this.answer(next)) === "aborted";
        // Steering that arrived after the last model call of that run is answered next.
        this.queue.unshift(...this.steering.splice(0));
      }
    } finally {
      this.running = undefined;
      this.turnEvents.idle(this.mode, aborted);
    }
  }

  private async answer(queued: QueuedMessage): Promise<"aborted" | undefined> {
    const controller = new AbortController();
    this.currentRun = controller;
    this.turnHeaders = queued.params.requestHeaders;
    const interactionId = randomUUID();
    await Promise.all([this.mcp.start(), this.agents.ready()]);
    this.turnEvents.beforeUserMessage(this.model);
    for (let notice = this.deferredNotices.shift(); notice; notice = this.deferredNotices.shift()) {
      await this.recordUserMessage({ sessionId: this.sessionId, prompt: notice }, interactionId, "system");
    }
    if (!(await this.recordUserMessage(queued.params, interactionId, queued.recordAs, queued.messageId))) {
      this.currentRun = undefined;
      return undefined;
    }
    this.turnEvents.systemPrompt(await this.systemPrompt());
    let taskCompleted = false;
    const stopListening = this.emitter.addListener((event) => {
      if (event.type === "session.task_complete") taskCompleted = true;
    });
    const turns = { next: 0 };
    try {
      for (let nudges = 0; ; nudges++) {
        const result = await runAgentLoop(this, interactionId, controller.signal, turns);
        if (result.end === "aborted") {
          this.turnEvents.cancelled(this.haltedRun === controller ? "persistence failure" : "user initiated");
          return "aborted";
        }
        // A rejected tool call ends the turn as a cancellation by the user (without `aborted`).
        if (result.end === "completed" && result.rejected) {
          this.turnEvents.cancelled("user initiated");
          return undefined;
        }
        if (result.end === "failed") {
          reportLoopError(this, result.error);
          return undefined;
        }
        if (this.mode !== "autopilot" || taskCompleted || nudges >= maxAutopilotNudges) return undefined;
        await this.recordUserMessage({ sessionId: this.sessionId, prompt: autopilotNudge }, interactionId, "autopilot");
      }
    } finally {
      stopListening();
      this.currentRun = undefined;
      await this.emitter.durable();
    }
  }

  /** Runs the sessionStart hook (after create or resume); its context joins the system prompt. */
  async runStartHook(source: "new" | "resume"): Promise<void> {
    if (!this.hooks.active) return;
    const output = await this.hooks.run("sessionStart", { source });
    if (typeof output?.additionalContext === "string") this.hookContext = output.additionalContext;
  }

  /**
   * Runs the userPromptSubmitted hook, emits `user.message` and adds the message to the
   * conversation. Returns false when the hook rejected the prompt.
   */
  private async recordUserMessage(params: SessionSendParams, interactionId: string, source?: string, messageId?: string): Promise<boolean> {
    const { attachments } = params;
    let prompt = params.prompt;
    if (this.hooks.active && source === undefined) {
      const output = await this.hooks.run("userPromptSubmitted", { prompt });
      if (output?.decision === "block" || output?.reject === true) {
        const reason = typeof output.reason === "string" ? output.reason : "no reason given";
        this.emitter.emit("session.warning", { warningType: "hook", message: `The prompt was rejected by the userPromptSubmitted hook: ${reason}` });
        return false;
      }
      if (typeof output?.modifiedPrompt === "string") prompt = output.modifiedPrompt;
      if (typeof output?.additionalContext === "string") prompt = `${prompt}\n\n${output.additionalContext}`;
    }
    const prepared = await prepareAttachments(attachments, this.workingDirectory, () => modelAcceptsImages(() => this.modelClient().listModels(), this.model));
    // A long prompt the hook left alone is stored once: the model's text is rebuilt from it.
    const storeTransformed = prompt !== params.prompt || prompt.length <= MAX_STORED_TRANSFORMED_CHARS || prepared.prefix !== "";
    const transformedContent = storeTransformed ? prepared.prefix + wrapPrompt(prompt, new Date().toISOString()) : undefined;
    const event = this.emitter.emit("user.message", {
      content: params.prompt,
      ...(transformedContent !== undefined ? { transformedContent } : {}),
      attachments: prepared.echoed,
      agentMode: this.mode,
      interactionId,
      ...(messageId ? { messageId } : {}),
      ...(source ? { source } : {}),
    });
    this.messages.push(userConversationMessage(event.data, event.timestamp));
    if (this.summary !== undefined) return true;
    this.summary = summaryOf(params.prompt);
    this.services.onSummary(this, this.summary);
    return true;
  }
}

/**
 * Whether two lists offer the same tools. Parameter schemas are compared by identity first (a
 * rebuilt tool set mostly reuses them), as text only when they differ: serialising every schema
 * twice on each attach was ~0.1 ms of every session's create.
 */
function sameToolSpecs(a: readonly ToolSpec[], b: readonly ToolSpec[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((spec, index) => {
    const other = b[index] as ToolSpec;
    if (spec.name !== other.name || spec.description !== other.description) return false;
    return spec.parameters === other.parameters || JSON.stringify(spec.parameters) === JSON.stringify(other.parameters);
  });
}

export { shortTitle } from "./turn-events.js";
