import { randomUUID } from "node:crypto";
import type { CopilotClient, CopilotSession, ElicitationResult, MCPServerConfig, ReasoningEffort, SessionEvent } from "@tandem/sdk";
import { approvalScopeFor } from "./decisions.js";
import type { ConsoleDecision, ConsoleMessage, PendingAsk, PendingElicitation, PendingPermission, PendingPlanExit, TurnUsage } from "./messages.js";

/** A listener of one session's console messages (one per open tab). */
export type ConsoleListener = (message: ConsoleMessage) => void;

/** Options for a new session, as the browser sends them. */
export interface NewSessionOptions {
  model?: string;
  mode?: "interactive" | "plan" | "autopilot";
  workingDirectory?: string;
  reasoningEffort?: ReasoningEffort;
  /** Work in a `git worktree` of its own, on branch `tandem/<sessionId>`. */
  worktreeIsolation?: boolean;
}

/** The answer to a plan (the official 1.0.x `handlePendingExitPlanMode` response). */
export type PlanExitAnswer = {
  approved: boolean;
  selectedAction?: string;
  feedback?: string;
};

/** The answer to a request from a tab: done, or someone else answered first / nothing waits. */
export type AnswerOutcome = "answered" | "already-answered";

/** One session the console holds open, with the requests waiting for a tab's answer. */
class OpenSession {
  readonly listeners = new Set<ConsoleListener>();
  readonly permissions = new Map<string, PendingPermission>();
  readonly asks = new Map<string, PendingAsk & { resolve: (answer: { answer: string; wasFreeform: boolean }) => void }>();
  readonly elicitations = new Map<string, PendingElicitation>();
  readonly planExits = new Map<string, PendingPlanExit>();
  busy = false;
  usage: SessionEvent | undefined;
  turnUsage: TurnUsage | undefined;
  model: string | undefined;
  mode: string | undefined;
  /** The session's title (`session.title_changed` is ephemeral: it is kept here for tabs opened later). */
  title: string | undefined;
  /** Where the session works (tool paths are shown relative to it). */
  cwd: string | undefined;
  session!: CopilotSession;

  broadcast(message: ConsoleMessage): void {
    for (const listener of this.listeners) listener(message);
  }

  /** Tracks what a tab opened later needs (pending requests, busy, usage), then fans the event out. */
  onEvent(event: SessionEvent): void {
    switch (event.type) {
      case "permission.requested":
        this.permissions.set(event.data.requestId, { requestId: event.data.requestId, permissionRequest: event.data.permissionRequest });
        break;
      case "permission.completed":
        this.permissions.delete(event.data.requestId);
        break;
      case "user.message":
        this.turnUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, modelCalls: 0 };
        this.busy = true;
        break;
      case "assistant.turn_start":
        this.busy = true;
        break;
      case "assistant.usage":
        this.turnUsage = addUsage(this.turnUsage, event.data);
        break;
      case "elicitation.requested": {
        const { requestId, message, elicitationSource, mode, requestedSchema } = event.data;
        this.elicitations.set(requestId, { requestId, message, source: elicitationSource, mode, requestedSchema: requestedSchema as PendingElicitation["requestedSchema"] });
        break;
      }
      case "elicitation.completed":
        this.elicitations.delete(event.data.requestId);
        break;
      case "exit_plan_mode.requested": {
        const { requestId, summary, planContent, actions, recommendedAction } = event.data;
        this.planExits.set(requestId, { requestId, summary, planContent, actions, recommendedAction });
        break;
      }
      case "exit_plan_mode.completed":
        this.planExits.delete(event.data.requestId);
        break;
      case "session.mode_changed":
        this.mode = event.data.newMode;
        break;
      case "session.idle":
        this.busy = false;
        this.cancelAsks();
        break;
      case "session.usage_info":
        this.usage = event;
        break;
      case "session.start":
        this.model = event.data.selectedModel ?? this.model;
        this.cwd = event.data.context?.cwd ?? this.cwd;
        break;
      case "session.resume":
        this.cwd = event.data.context?.cwd ?? this.cwd;
        break;
      case "session.title_changed":
        this.title = event.data.title;
        break;
      case "session.model_change":
        this.model = event.data.newModel;
        break;
    }
    this.broadcast({ kind: "event", event });
  }

  /** Questions left open when the turn ends (an abort) are withdrawn from every tab. */
  cancelAsks(): void {
    for (const ask of this.asks.values()) {
      ask.resolve({ answer: "", wasFreeform: true });
      this.broadcast({ kind: "ask-answered", id: ask.id, answer: "" });
    }
    this.asks.clear();
  }
}

/**
 * Holds the console's sessions on one {@link CopilotClient}: opens (creates or resumes) them,
 * streams their events to every tab that watches, and settles permission requests and `ask_user`
 * questions with the first tab's answer. Talks to the runtime through the SDK only.
 */
export class SessionHub {
  readonly #client: CopilotClient;
  readonly #defaultCwd: string;
  readonly #mcpServers: Record<string, MCPServerConfig> | undefined;
  readonly #open = new Map<string, Promise<OpenSession>>();
  /** Sessions created here: listed before their first message is saved. */
  readonly #created = new Map<string, { cwd: string; model: string | undefined; createdTime: string }>();
  /** The names given to forks made here, until they are opened. */
  readonly #forkNames = new Map<string, string>();

  /** `mcpServers` are given to every session the console creates or resumes. */
  constructor(client: CopilotClient, defaultCwd: string, mcpServers?: Record<string, MCPServerConfig>) {
    this.#client = client;
    this.#defaultCwd = defaultCwd;
    this.#mcpServers = mcpServers;
  }

  /** The SDK client (for server-scoped calls: models, sessions list). */
  get client(): CopilotClient {
    return this.#client;
  }

  /** Creates a session with git checkpoints on (undo to here) and streaming. */
  async create(options: NewSessionOptions): Promise<string> {
    const open = new OpenSession();
    const session = await this.#client.createSession({
      ...this.#handlers(open),
      model: options.model || undefined,
      reasoningEffort: options.reasoningEffort || undefined,
      workingDirectory: options.workingDirectory || this.#defaultCwd,
      worktreeIsolation: options.worktreeIsolation || undefined,
      streaming: true,
      enableFileChangeTracking: true,
    });
    open.session = session;
    open.model = options.model || (await currentModel(session));
    open.cwd ??= options.workingDirectory || this.#defaultCwd;
    open.mode = options.mode ?? "interactive";
    if (options.mode && options.mode !== "interactive") await session.rpc.mode.set({ mode: options.mode });
    this.#open.set(session.sessionId, Promise.resolve(open));
    this.#created.set(session.sessionId, { cwd: options.workingDirectory || this.#defaultCwd, model: open.model, createdTime: new Date().toISOString() });
    return session.sessionId;
  }

  /** The open session, resuming it in the runtime on first use. */
  async open(sessionId: string): Promise<OpenSession> {
    let opening = this.#open.get(sessionId);
    if (!opening) {
      opening = (async () => {
        const open = new OpenSession();
        open.session = await this.#client.resumeSession(sessionId, { ...this.#handlers(open), streaming: true, enableFileChangeTracking: true });
        open.mode = (await open.session.rpc.mode.get()).mode;
        open.model ??= await currentModel(open.session);
        open.title ??= await sessionName(open.session);
        return open;
      })();
      this.#open.set(sessionId, opening);
      opening.catch(() => this.#open.delete(sessionId));
    }
    return opening;
  }

  /** The sessions this console created, with where they work. */
  created(): ReadonlyMap<string, { cwd: string; model: string | undefined; createdTime: string }> {
    return this.#created;
  }

  /** The title of a session the console has open (or forked), if known: `session.list` gives only the first prompt. */
  async titleOf(sessionId: string): Promise<string | undefined> {
    const opening = this.#open.get(sessionId);
    const open = opening ? await opening.catch(() => undefined) : undefined;
    return open?.title ?? this.#forkNames.get(sessionId);
  }

  /** The model of a session the console has open, if known. */
  async modelOf(sessionId: string): Promise<string | undefined> {
    const opening = this.#open.get(sessionId);
    return opening ? (await opening.catch(() => undefined))?.model : undefined;
  }

  /**
   * Adds a tab: it gets a snapshot (history, pending requests, busy, usage) and then every live
   * message. Events that arrive while the history is read are held and sent after it, once.
   */
  async watch(sessionId: string, listener: ConsoleListener): Promise<() => void> {
    const open = await this.open(sessionId);
    const held: ConsoleMessage[] = [];
    let ready = false;
    const relay: ConsoleListener = (message) => (ready ? listener(message) : held.push(message));
    open.listeners.add(relay);
    try {
      const history = await open.session.getMessages();
      if (!open.model) open.model = modelFromHistory(history);
      if (!open.cwd) open.cwd = cwdFromHistory(history);
      const seen = new Set(history.map((event) => event.id));
      listener({
        kind: "snapshot",
        history,
        permissions: [...open.permissions.values()],
        asks: [...open.asks.values()].map(({ resolve: _resolve, ...ask }) => ask),
        busy: open.busy,
        usage: open.usage,
        turnUsage: open.turnUsage,
        model: open.model,
        mode: open.mode,
        title: open.title,
        cwd: open.cwd,
        elicitations: [...open.elicitations.values()],
        planExits: [...open.planExits.values()],
      });
      for (const message of held) if (message.kind !== "event" || !seen.has(message.event.id)) listener(message);
      ready = true;
    } catch (error) {
      open.listeners.delete(relay);
      throw error;
    }
    return () => open.listeners.delete(relay);
  }

  /** Sends a prompt; while the session works `immediate` steers the turn and `enqueue` queues it. */
  async send(sessionId: string, prompt: string, mode: "immediate" | "enqueue" | undefined): Promise<string> {
    const open = await this.open(sessionId);
    open.busy = true;
    return open.session.send({ prompt, mode });
  }

  /** Cancels the running turn. */
  async abort(sessionId: string): Promise<void> {
    await (await this.open(sessionId)).session.abort();
  }

  /**
   * Answers a permission request with the 1.0 decision vocabulary. The first answer wins: a second
   * tab's answer finds nothing waiting and gets `already-answered`.
   */
  async answerPermission(sessionId: string, requestId: string, decision: ConsoleDecision): Promise<AnswerOutcome> {
    const open = await this.open(sessionId);
    const pending = open.permissions.get(requestId);
    if (!pending) return "already-answered";
    open.permissions.delete(requestId);
    open.broadcast({ kind: "permission-answered", requestId, decision });
    const result =
      decision === "approve-for-session"
        ? { kind: decision, ...approvalScopeFor(pending.permissionRequest) }
        : decision === "reject"
          ? { kind: decision, feedback: "Denied in Tandem Console" }
          : { kind: decision };
    await open.session.rpc.permissions.handlePendingPermissionRequest({ requestId, result });
    return "answered";
  }

  /** Answers an `ask_user` question; the first tab's answer wins. */
  async answerAsk(sessionId: string, id: string, answer: string, wasFreeform: boolean): Promise<AnswerOutcome> {
    const open = await this.open(sessionId);
    const ask = open.asks.get(id);
    if (!ask) return "already-answered";
    open.asks.delete(id);
    ask.resolve({ answer, wasFreeform });
    open.broadcast({ kind: "ask-answered", id, answer });
    return "answered";
  }

  /**
   * Answers an MCP server's form (`session.ui.handlePendingElicitation`); the first tab's answer
   * wins. The form's values were checked against its schema in the page; the runtime checks their types.
   */
  async answerElicitation(sessionId: string, requestId: string, result: ElicitationResult): Promise<AnswerOutcome> {
    const open = await this.open(sessionId);
    if (!open.elicitations.delete(requestId)) return "already-answered";
    await open.session.rpc.ui.handlePendingElicitation({ requestId, result });
    return "answered";
  }

  /** Answers the agent's plan (`session.ui.handlePendingExitPlanMode`); the first tab's answer wins. */
  async answerPlanExit(sessionId: string, requestId: string, response: PlanExitAnswer): Promise<AnswerOutcome> {
    const open = await this.open(sessionId);
    if (!open.planExits.delete(requestId)) return "already-answered";
    await open.session.rpc.ui.handlePendingExitPlanMode({ requestId, response });
    return "answered";
  }

  /**
   * A new session with the history before `toEventId` (all of it without one): `sessions.fork`.
   * The fork is named after its source with " (fork)", so the two can be told apart.
   */
  async fork(sessionId: string, toEventId: string | undefined): Promise<string> {
    const source = await this.open(sessionId);
    const title = source.title ?? (await sessionName(source.session)) ?? "Untitled session";
    const name = forkName(title);
    const { sessionId: forkId } = await this.#client.rpc.sessions.fork({ sessionId, name, ...(toEventId ? { toEventId } : {}) });
    this.#forkNames.set(forkId, name);
    const created = this.#created.get(sessionId);
    if (created) this.#created.set(forkId, { ...created, model: created.model ?? source.model, createdTime: new Date().toISOString() });
    return forkId;
  }

  /** The slash commands the session offers (`session.commands.list`). */
  async commands(sessionId: string) {
    return (await this.open(sessionId)).session.rpc.commands.list();
  }

  /**
   * The session's workspace (folder, branch) and, for a session isolated in its own worktree (on
   * branch `tandem/<sessionId>`), its diff against the branch it came from. Other sessions get no
   * diff: it would be the user's whole working tree, on every turn.
   */
  async workspace(sessionId: string) {
    const { session } = await this.open(sessionId);
    const { workspace } = await session.rpc.workspaces.getWorkspace();
    if (workspace?.branch !== `tandem/${sessionId}`) return { workspace, diff: null };
    return { workspace, diff: await session.rpc.workspaces.diff({ mode: "branch" }) };
  }

  /** The messages queued behind the running turn. */
  async queue(sessionId: string) {
    return (await this.open(sessionId)).session.rpc.queue.pendingItems();
  }

  /** Removes a queued message by its id. */
  async removeQueued(sessionId: string, id: string): Promise<void> {
    await (await this.open(sessionId)).session.rpc.queue.removeAt({ id });
  }

  /** The turns the session can be rewound to. */
  async rewindPoints(sessionId: string) {
    return (await this.open(sessionId)).session.rpc.history.listRewindPoints();
  }

  /** The files a rewind to `eventId` would restore. */
  async previewRewind(sessionId: string, eventId: string) {
    return (await this.open(sessionId)).session.rpc.history.previewRewind({ eventId });
  }

  /** Rewinds the conversation and the files to just before the user message `eventId`. */
  async rewind(sessionId: string, eventId: string) {
    return (await this.open(sessionId)).session.rpc.history.rewind({ eventId, mode: "conversation-and-files" });
  }

  /** Releases the session (if open) and deletes it from disk. */
  async delete(sessionId: string): Promise<void> {
    const opening = this.#open.get(sessionId);
    this.#open.delete(sessionId);
    this.#created.delete(sessionId);
    this.#forkNames.delete(sessionId);
    const open = opening ? await opening.catch(() => undefined) : undefined;
    if (open) {
      open.cancelAsks();
      await open.session.disconnect().catch(() => undefined);
    }
    await this.#client.deleteSession(sessionId);
  }

  #handlers(open: OpenSession) {
    return {
      // Every permission is left pending for a tab to answer (session.permissions.handlePendingPermissionRequest).
      onPermissionRequest: () => ({ kind: "no-result" as const }),
      onUserInputRequest: (request: { question: string; choices?: string[]; allowFreeform?: boolean }) =>
        new Promise<{ answer: string; wasFreeform: boolean }>((resolve) => {
          const ask: PendingAsk = { id: randomUUID(), question: request.question, choices: request.choices, allowFreeform: request.allowFreeform };
          open.asks.set(ask.id, { ...ask, resolve });
          open.broadcast({ kind: "ask", ask });
        }),
      onEvent: (event: SessionEvent) => open.onEvent(event),
      ...(this.#mcpServers ? { mcpServers: this.#mcpServers } : {}),
    };
  }
}

function addUsage(total: TurnUsage | undefined, usage: { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number }): TurnUsage {
  const base = total ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, modelCalls: 0 };
  return {
    inputTokens: base.inputTokens + (usage.inputTokens ?? 0),
    outputTokens: base.outputTokens + (usage.outputTokens ?? 0),
    cacheReadTokens: base.cacheReadTokens + (usage.cacheReadTokens ?? 0),
    modelCalls: base.modelCalls + 1,
  };
}

/** The session's model as the runtime reports it (undefined when it cannot say). */
async function currentModel(session: CopilotSession): Promise<string | undefined> {
  return (await session.rpc.model.getCurrent().catch(() => undefined))?.modelId;
}

/** The session's name, or the title of its first prompt (undefined for a session without either). */
async function sessionName(session: CopilotSession): Promise<string | undefined> {
  return (await session.rpc.name.get().catch(() => undefined))?.name ?? undefined;
}

/**
 * "<title> (fork)", within the runtime's 100 characters for a name.
 *
 * @example
 * forkName("Fix the bug"); // "Fix the bug (fork)"
 */
export function forkName(title: string): string {
  const suffix = " (fork)";
  const base = title.trim() || "Untitled session";
  return base.length + suffix.length <= 100 ? `${base}${suffix}` : `${base.slice(0, 99 - suffix.length)}…${suffix}`;
}

function cwdFromHistory(history: readonly SessionEvent[]): string | undefined {
  let cwd: string | undefined;
  for (const event of history) {
    if (event.type === "session.start" || event.type === "session.resume") cwd = event.data.context?.cwd ?? cwd;
  }
  return cwd;
}

function modelFromHistory(history: readonly SessionEvent[]): string | undefined {
  let model: string | undefined;
  for (const event of history) {
    if (event.type === "session.start") model = event.data.selectedModel ?? model;
    if (event.type === "session.model_change") model = event.data.newModel;
  }
  return model;
}
