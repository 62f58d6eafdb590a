import type { LargeOutputSpill } from "../tools/large-output.js";
import { SendKeys } from "./send-keys.js";
import type { SessionCreateParams, SessionSendParams } from "@tandem/protocol";
import type { ClientPort } from "./client-port.js";
import type { ClientRegistration } from "./clients.js";
import type { SessionEmitter } from "./emitter.js";
import { ToolContexts } from "./tool-contexts.js";
import { SessionMetrics, type SessionEnding } from "./metrics.js";
import { HookRunner } from "../hooks/hook-runner.js";
import { preMcpToolCall } from "../hooks/mcp-hooks.js";
import { requestMcpToken } from "./mcp-oauth.js";
import { SessionWorkspace } from "../plan/plan-file.js";
import { createExitPlanModeTool } from "../plan/plan-mode.js";
import { SessionAgents } from "../agents/session-agents.js";
import { SessionSkills } from "../skills/session-skills.js";
import type { McpHost } from "../mcp/types.js";
import { requestElicitation } from "./elicitation.js";
import { sameToolSpecs, SessionToolset } from "./toolset.js";
import { SessionPersistence } from "./persistence.js";
import { SessionPermissions } from "../permissions/session-permissions.js";
import { SessionHistory } from "../checkpoints/session-history.js";
import { SessionCompaction } from "../compaction/session-compaction.js";
import type { SessionCompactor } from "../compaction/compactor.js";
import { TurnRunner } from "./turn-runner.js";
import { SessionPrompt } from "./session-prompt.js";
import { ClientMembership } from "./client-membership.js";
import { ModelSelection } from "./model-selection.js";
import { SessionScope, type ScopeInit, type ScopeServices } from "./scope.js";
import { SessionLoop } from "./session-loop.js";
import { SessionTitle } from "./title.js";

export type { ModelSwitchOptions } from "./model-selection.js";

/** Services a session borrows from the runtime. */
export interface SessionServices extends ScopeServices {
  /** Called when the first user message gives the session its summary. */
  onSummary(session: Session, summary: string): void;
}

/** Everything a session starts with: what its scope starts with, and what the session keeps itself. */
export interface SessionInit extends Omit<ScopeInit, "services"> {
  services: SessionServices;
  /** The idempotency keys of the recorded sends and their message ids (see `send-keys.ts`). */
  sendKeys?: Record<string, string>;
  summary?: string;
  /** The name the user gave the session (`session.name.set`). */
  name?: string;
  /** Where tool outputs too long for the model are kept whole; without it they are cut in the middle. */
  largeOutputs?: LargeOutputSpill;
}

/**
 * One conversation: its scope (ids, configuration, emitter, clients, pending requests), the
 * subsystems built from it (tools, permissions, history, compaction, the turn runner and the loop
 * port it drives), and what a reader expects to do with a session: send, abort, attach and detach
 * clients, reconfigure and shut down. Subsystems are reached as fields and own their events.
 *
 * @example
 * const messageId = await session.send({ sessionId, prompt: "hello" });
 */
export class Session {
  readonly sessionId: string;
  /** Ids, folders, emitter, logger, configuration, mode, clients and pending requests (see `scope.ts`). */
  readonly scope: SessionScope;
  readonly emitter: SessionEmitter;

  /** Approve-all, remembered approvals, rules and skills' approvals (`session.permissions.*`). */
  readonly permissions: SessionPermissions;
  /** The user's name, the generated title and the summary. */
  readonly title: SessionTitle;
  /** The model client, model switches and the `auto` model offered after a rate limit. */
  readonly models: ModelSelection;
  readonly metrics: SessionMetrics;
  /** The plan file and workspace files. */
  readonly workspace: SessionWorkspace;
  /** Built-in, custom, skill, agent, plan and MCP tools. */
  readonly toolset: SessionToolset;
  /** Custom agents, sub-agents and background agents. */
  readonly agents: SessionAgents;
  /** Skills from `skillDirectories`. */
  readonly skills: SessionSkills;
  /** Failed writes of the session's files: reported, and messages refused until they are retried. */
  readonly persistence: SessionPersistence;
  /** Rewind points, git checkpoints and rewinds (`session.history.*`). */
  readonly history: SessionHistory;
  /** Compaction settings and checkpoints. */
  readonly compaction: SessionCompaction;
  /** The main loop's compactor. */
  readonly context: SessionCompactor;
  /** The queue (`session.queue.*`), steering, slash commands and the loop answering each message. */
  readonly turns: TurnRunner;
  /** What the agent loop reads of the session: system prompt, offered tools, model client, hooks. */
  readonly loop: SessionLoop;

  private readonly hooks: HookRunner;
  /** The base system prompt and the instruction files it includes. */
  private readonly prompt: SessionPrompt;
  /** Attaching and detaching clients. */
  private readonly membership: ClientMembership;
  private destroyed = false;

  constructor(init: SessionInit) {
    // The scope comes first; each subsystem is built from it and from the ones before it. The
    // toolset and the turn runner need the loop port, which reaches them once a turn runs.
    const scope = new SessionScope(init, () => this.turns?.interactionId);
    this.scope = scope;
    this.sessionId = scope.sessionId;
    this.emitter = scope.emitter;
    this.title = new SessionTitle(scope.emitter, init, (summary) => init.services.onSummary(this, summary));
    this.permissions = new SessionPermissions(scope);
    this.metrics = new SessionMetrics(scope.startTime);
    this.hooks = new HookRunner(scope, init.services.hookTimeoutMs);
    this.workspace = new SessionWorkspace(scope.files, scope.emitter);
    this.prompt = new SessionPrompt(scope);
    this.models = new ModelSelection(scope, () => this.turns.turnHeaders);
    this.persistence = new SessionPersistence(scope, () => this.haltForPersistence());
    this.history = new SessionHistory(scope, () => this.turns.busy);
    this.compaction = new SessionCompaction(scope.config, scope.files, init.services.compaction, scope.logger);
    const contexts = new ToolContexts(scope, this.permissions, () => this.workspace.planPath, init.largeOutputs);
    const mcpHost: Omit<McpHost, "emitter" | "logger" | "workingDirectory"> = {
      elicit: (request, signal) => requestElicitation(scope, request, signal),
      beforeToolCall: (call, signal) => preMcpToolCall(this.hooks, scope, call, signal),
      requestToken: (request) => requestMcpToken(scope, request),
    };
    this.loop = new SessionLoop(scope, {
      hooks: this.hooks,
      contexts,
      prompt: this.prompt,
      models: this.models,
      metrics: this.metrics,
      history: this.history,
      persistence: this.persistence,
      compaction: this.compaction,
      title: this.title,
      planPath: () => this.workspace.planPath,
      mcpHost,
      toolset: () => this.toolset,
      turns: () => this.turns,
    });
    this.context = this.loop.context;
    this.agents = new SessionAgents(scope.config.customAgents, this.loop);
    this.skills = new SessionSkills(scope.config.skillDirectories ?? [], scope.config.disabledSkills ?? [], scope, (toolNames) => this.permissions.autoApprove(toolNames));
    this.toolset = new SessionToolset(scope, {
      agents: this.agents,
      skills: this.skills,
      exitPlanMode: createExitPlanModeTool(scope, this.workspace),
      mcpHost,
      onBackgroundShellDone: (notice) => this.turns.notify(notice),
      firstMessageAccepted: () => this.title.summary !== undefined,
    });
    this.turns = new TurnRunner(this.loop, init.summary !== undefined, (summary) => this.title.recordSummary(summary), new SendKeys(init.sendKeys));
    this.membership = new ClientMembership(scope, () => this.applyClients(scope.config));
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
   * Replaces the configuration (resume with new settings) and the tool set. The per-client fields
   * (tools, handler flags, streaming) stay what the attached clients registered together.
   */
  reconfigure(config: SessionCreateParams, model: string): void {
    const { scope } = this;
    const before = this.loop.toolSpecs();
    this.prompt.reset();
    if (model !== scope.model) scope.model = model;
    this.models.forgetClient();
    scope.config = scope.clients.overlay(config);
    this.compaction.configure(scope.config);
    this.context.reconfigure(this.compaction.options());
    this.agents.reload(scope.config.customAgents);
    this.applyClients(scope.config, before);
  }

  /**
   * Takes `config` with the clients' registrations laid over it and rebuilds the tools;
   * `session.tools_updated` tells the clients when the offered tools changed.
   */
  private applyClients(config: SessionCreateParams, before = this.loop.toolSpecs()): void {
    const { scope } = this;
    scope.config = scope.clients.overlay(config);
    this.toolset.rebuild(scope.config);
    if (!sameToolSpecs(this.loop.toolSpecs(), before)) this.emitter.emit("session.tools_updated", { model: scope.model });
  }

  // ---- Messages -----------------------------------------------------------------------------

  /**
   * Queues a user message and returns its id; the loop runs in the background. After a failed
   * write, first writes what is held and refuses the message (`PersistenceFailed`) if it cannot.
   * `placement: "next"` puts it before the messages waiting (a slash command's own task).
   */
  send(params: SessionSendParams, placement: "last" | "next" = "last"): Promise<string> {
    return this.turns.send(params, placement);
  }

  /**
   * Cancels the running turn and everything queued; resolves once the session is idle.
   * `destroyed`: the session is closing (its interrupted tool calls say so).
   */
  abort(reason: "aborted" | "destroyed" = "aborted"): Promise<void> {
    return this.turns.abort(reason);
  }

  /** Stops the running turn and drops queued messages: the session's files cannot be written. */
  private haltForPersistence(): number {
    const dropped = this.turns.halt();
    this.agents.background.cancelAll("stopped: the session's files cannot be written");
    return dropped;
  }

  /** Aborts work, writes `session.shutdown` (saying why it ended) and makes the log durable. */
  async shutdown(ending?: SessionEnding): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    this.context.dispose();
    await this.abort("destroyed");
    if (this.hooks.active) await this.hooks.run("sessionEnd", { reason: "user_exit" });
    this.scope.pending.abandonAll("destroyed");
    await this.toolset.dispose();
    await this.history.settled();
    this.emitter.emit("session.shutdown", this.metrics.shutdownData(this.scope.model, ending));
    await this.emitter.close();
  }
}

export { shortTitle } from "./turn-events.js";
export { autopilotNudge, maxAutopilotNudges } from "./turn-runner.js";
