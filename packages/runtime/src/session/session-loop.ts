import type { McpServerConfig } from "@tandem/protocol";
import type { AgentsHost, SessionAgents } from "../agents/session-agents.js";
import type { SessionHistory } from "../checkpoints/session-history.js";
import type { ToolFileChange } from "../checkpoints/file-backups.js";
import type { CompactionHost, SessionCompactor } from "../compaction/compactor.js";
import type { SessionCompaction } from "../compaction/session-compaction.js";
import type { CompatProfile } from "../compat/profile.js";
import { errorMessage } from "../errors.js";
import type { HookRunner } from "../hooks/hook-runner.js";
import type { Logger } from "../log.js";
import type { ConversationMessage, ModelToolCall, ToolSpec } from "../loop/messages.js";
import type { RetryPolicy } from "../loop/retry.js";
import { McpManager } from "../mcp/manager.js";
import type { McpHost } from "../mcp/types.js";
import type { ProviderError } from "../providers/errors.js";
import { routeModel } from "../providers/routing.js";
import type { ModelClient, ModelResponse } from "../providers/types.js";
import { toolSpecOf, type Tool, type ToolContext } from "../tools/types.js";
import type { SessionEmitter, EventEmitterPort } from "./emitter.js";
import type { SessionMetrics } from "./metrics.js";
import type { ModelSelection } from "./model-selection.js";
import type { PendingRequests } from "./pending.js";
import type { SessionPersistence } from "./persistence.js";
import type { SessionPrompt } from "./session-prompt.js";
import type { SessionScope } from "./scope.js";
import type { SessionTitle } from "./title.js";
import type { ContextOptions, ToolContexts } from "./tool-contexts.js";
import type { SessionToolset } from "./toolset.js";
import type { TurnHost, TurnRunner } from "./turn-runner.js";

/** The subsystems the loop port reads. */
export interface LoopParts {
  readonly hooks: HookRunner;
  readonly contexts: ToolContexts;
  readonly prompt: SessionPrompt;
  readonly models: ModelSelection;
  readonly metrics: SessionMetrics;
  readonly history: SessionHistory;
  readonly persistence: SessionPersistence;
  readonly compaction: SessionCompaction;
  readonly title: SessionTitle;
  /** The plan file (named in the notice of entering plan mode; the one thing plan mode lets the agent write). */
  readonly planPath: () => string;
  /** What MCP servers need from the session (forms for the user, the preMcpToolCall hook, tokens). */
  readonly mcpHost: Omit<McpHost, "emitter" | "logger" | "workingDirectory">;
  /** Built after the port (they need it), so reached when the loop runs. */
  readonly toolset: () => SessionToolset;
  readonly turns: () => TurnRunner;
}

/**
 * What the agent loop, the turn runner, compaction and sub-agents need from one session, in one
 * place: the scope's state read at each use, the offered tools (with their specs kept while the
 * same tools are offered), the system prompt, the model client and the session's hooks, tool
 * contexts, checkpoints and metrics. The session hands this port, not itself, to the loop.
 *
 * @example
 * const loop = new SessionLoop(scope, parts);
 * const turns = new TurnRunner(loop, false, (summary) => title.recordSummary(summary));
 */
export class SessionLoop implements TurnHost, AgentsHost, CompactionHost {
  /** The main loop's compactor (compaction settings and checkpoints come from {@link LoopParts.compaction}). */
  readonly context: SessionCompactor;
  /** See {@link toolSpecs}. */
  private cachedToolSpecs: { tools: readonly Tool[]; specs: ToolSpec[] } | undefined;

  constructor(
    private readonly scope: SessionScope,
    private readonly parts: LoopParts,
  ) {
    this.context = parts.compaction.create(this);
  }

  get sessionId(): string {
    return this.scope.sessionId;
  }
  get emitter(): SessionEmitter {
    return this.scope.emitter;
  }
  get logger(): Logger {
    return this.scope.logger;
  }
  get messages(): ConversationMessage[] {
    return this.scope.messages;
  }
  get pending(): PendingRequests {
    return this.scope.pending;
  }
  get profile(): CompatProfile {
    return this.scope.profile;
  }
  get config(): SessionScope["config"] {
    return this.scope.config;
  }
  get model(): string {
    return this.scope.model;
  }
  get mode(): SessionScope["mode"] {
    return this.scope.mode;
  }
  get workingDirectory(): string {
    return this.scope.workingDirectory;
  }
  get streaming(): boolean {
    return this.scope.config.streaming === true;
  }
  get reasoningEffort(): string | undefined {
    return this.scope.config.reasoningEffort;
  }
  get retryPolicy(): RetryPolicy {
    return this.scope.services.retryPolicy;
  }
  get maxModelCallsPerTurn(): number {
    return this.scope.services.maxModelCallsPerTurn;
  }
  /** Whether the model is asked for citations of attached documents (`enableCitations`). */
  get citations(): boolean {
    return this.scope.config.enableCitations === true;
  }
  /** Whether the current model's provider reads attached PDF documents (Anthropic's messages API). */
  get acceptsDocuments(): boolean {
    return routeModel(this.scope.config, this.scope.model).provider?.type === "anthropic";
  }
  /** False when the application said the model has no vision (`modelCapabilities.supports.vision`). */
  get acceptsImages(): boolean {
    return this.scope.config.modelCapabilities?.supports?.vision !== false;
  }
  get tokenLimit(): number {
    return this.context.tokenLimit;
  }
  get planPath(): string {
    return this.parts.planPath();
  }
  get name(): string | undefined {
    return this.parts.title.name;
  }
  get summary(): string | undefined {
    return this.parts.title.summary;
  }
  get hooks(): HookRunner {
    return this.parts.hooks;
  }
  get persistence(): SessionPersistence {
    return this.parts.persistence;
  }
  get agents(): SessionAgents {
    return this.parts.toolset().agents;
  }
  get mcp(): McpManager {
    return this.parts.toolset().mcp;
  }

  /** The system prompt of the main loop: the base prompt plus the selected agent's prompt. */
  async systemPrompt(): Promise<string> {
    const base = await this.parts.prompt.base();
    const agent = this.parts.toolset().agents.selected;
    return agent ? `${base}\n\n${agent.prompt}` : base;
  }
  /** The base system prompt, built once per configuration (sub-agents add their own prompt to it). */
  baseSystemPrompt(): Promise<string> {
    return this.parts.prompt.base();
  }

  /**
   * The offered tools' specs: the same array (not to be modified) as long as the same tool
   * objects are offered, so what is derived from it per model call (the request's tool JSON,
   * token estimates) can be remembered by identity.
   */
  toolSpecs(): ToolSpec[] {
    const offered = this.parts.toolset().offered();
    const cached = this.cachedToolSpecs;
    if (cached && cached.tools.length === offered.length && cached.tools.every((tool, index) => tool === offered[index])) return cached.specs;
    const specs = offered.map(toolSpecOf);
    this.cachedToolSpecs = { tools: offered, specs };
    return specs;
  }
  findTool(name: string): Tool | undefined {
    return this.parts.toolset().find(name);
  }
  toolNames(): string[] {
    return this.parts.toolset().offered().map((tool) => tool.name);
  }
  /** Every tool of the session, before the selected agent's filter (sub-agents choose from these). */
  allTools(): readonly Tool[] {
    return this.parts.toolset().all();
  }
  createContext(call: ModelToolCall, tool: Tool, signal: AbortSignal, options: ContextOptions = {}): ToolContext {
    return this.parts.contexts.create(call, tool, signal, options);
  }

  modelClient(): ModelClient {
    return this.parts.models.client();
  }
  recordModelCall(model: string, response: ModelResponse, durationMs: number): void {
    this.parts.metrics.recordModelCall(model, response.usage, durationMs);
  }
  recordFileChange(change: ToolFileChange): void {
    this.parts.metrics.recordFileChange(change);
    this.parts.history.toolWrote(change);
  }
  beforeModelCall(interactionId: string): Promise<void> {
    return this.parts.turns().beforeModelCall(interactionId);
  }
  /** Tool calls wait for the turn's start checkpoint (taken while the first model call runs). */
  beforeToolCalls(): Promise<void> {
    return this.parts.history.beforeToolCalls();
  }
  switchModelAfterRateLimit(error: ProviderError, signal: AbortSignal): Promise<boolean> {
    return this.parts.models.autoSwitch.offer(error, signal);
  }
  onTurnError(error: unknown): void {
    void this.parts.hooks.run("errorOccurred", { error: errorMessage(error), errorContext: "model_call", recoverable: false });
  }
  /**
   * Tells the model about finished background work: injected into the running loop, or kept for
   * the next message when the session is idle.
   */
  notify(text: string): void {
    this.parts.turns().notify(text);
  }

  /**
   * Starts reading the instruction files the system prompt includes, so that the first message
   * does not wait for them (see {@link SessionPrompt.prefetchFacts}).
   */
  prefetchPromptFacts(): void {
    this.parts.prompt.prefetchFacts();
  }

  /**
   * Runs the sessionStart hook (after create or resume); its context reaches the model as a
   * message of its own, just before the next user message.
   */
  async runStartHook(source: "new" | "resume"): Promise<void> {
    const { hooks } = this.parts;
    if (!hooks.active) return;
    const output = await hooks.run("sessionStart", { source });
    if (typeof output?.additionalContext === "string" && output.additionalContext !== "") this.notify(output.additionalContext);
  }

  /**
   * Emits `session.usage_info` for a resumed history soon after the resume is answered: the
   * history is measured a slice at a time between other work (measuring 100k events in one piece
   * held up the resume by ~110 ms, and the `getMessages` after it). A turn that starts first
   * reports its own usage, and a closed session none, so then nothing is emitted.
   */
  reportContextUsageSoon(): void {
    const { messages, emitter, logger } = this.scope;
    const length = messages.length;
    const unchanged = (): boolean => !this.parts.turns().busy && messages.length === length;
    void this.context
      .measureHistory()
      .then(async (measured) => {
        if (!measured || !unchanged()) return;
        const system = await this.systemPrompt();
        if (unchanged()) emitter.emit("session.usage_info", this.context.usage({ system, tools: this.toolSpecs() }));
      })
      .catch((error: unknown) => logger.warn("could not measure the resumed history", error));
  }

  /** The title of checkpoint files: the session's first prompt. */
  checkpointTitle(): string {
    return this.parts.title.summary ?? "session";
  }
  /** A compactor for a sub-agent's own history (same rules, checkpoints in the same folder). */
  createCompactor(host: CompactionHost, agentName: string): SessionCompactor {
    return this.parts.compaction.create(host, agentName);
  }
  /** MCP servers for a custom agent's own `mcpServers`. */
  createMcpManager(configs: Record<string, McpServerConfig>, emitter: EventEmitterPort): McpManager {
    const { scope } = this;
    return new McpManager(configs, { emitter, logger: scope.logger, workingDirectory: scope.workingDirectory, launcher: this.parts.toolset().sandbox, ...this.parts.mcpHost });
  }
}
