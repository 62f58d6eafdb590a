import { randomUUID } from "node:crypto";
import type { AgentMode, SessionSendParams } from "@tandem/protocol";
import { reportLoopError, runAgentLoop, type LoopHost, type LoopRun } from "../loop/agent-loop.js";
import type { SessionAgents } from "../agents/session-agents.js";
import type { McpManager } from "../mcp/manager.js";
import type { SessionEmitter } from "./emitter.js";
import { PendingAbandoned, type PendingRequests } from "./pending.js";
import type { SessionPersistence } from "./persistence.js";
import { dropAll, MessageQueueView, type QueuedCommand, type QueuedMessage } from "./message-queue.js";
import { failoverWarningType, failoverNoticeMessage, MAX_STORED_TRANSFORMED_CHARS, summaryOf, userConversationMessage, wrapPrompt } from "./user-message.js";
import { modelAcceptsImages, prepareAttachments } from "./attachments.js";
import { TurnEvents } from "./turn-events.js";
import { checkIdempotencyKey, heldMessage, SendKeys } from "./send-keys.js";
import { continuationFromStopHook, maxConsecutiveStopBlocks } from "../hooks/agent-stop.js";
import { ModeNotices } from "../plan/mode-notice.js";

/** How many times autopilot nudges the model to finish before it gives up for this message. */
export const maxAutopilotNudges = 3;

/** The message autopilot adds when the model stops without calling `task_complete`. */
export const autopilotNudge = [
  "You stopped without calling the task_complete tool, so the task is not finished yet.",
  "If you were still planning, stop planning and carry out the work now.",
  "Do not call task_complete while questions are open (decide and keep going), after an error you have not resolved, or while steps remain.",
  "Call task_complete with a short summary only when everything is done.",
].join(" ");

/** What {@link TurnRunner} needs from its session: the loop's host plus what a turn reads around it. */
export interface TurnHost extends LoopHost {
  readonly emitter: SessionEmitter;
  readonly workingDirectory: string;
  /** Whether the model's provider reads attached PDF documents. */
  readonly acceptsDocuments: boolean;
  readonly mode: AgentMode;
  /** The plan file (named in the notice of entering plan mode). */
  readonly planPath: string;
  /** The name the user gave the session (a named session gets no automatic title). */
  readonly name: string | undefined;
  /** The session's summary (its first prompt), once it has one. */
  readonly summary: string | undefined;
  readonly pending: PendingRequests;
  /** Failed writes: a message is refused until they are retried. */
  readonly persistence: Pick<SessionPersistence, "failed" | "ensureWritable">;
  readonly mcp: Pick<McpManager, "start">;
  readonly agents: Pick<SessionAgents, "ready" | "background">;
}

/**
 * The message and turn machinery of one session: the queue of user messages and slash commands,
 * steering (`immediate` sends and notices injected into the running loop), the loop that answers
 * each message (with autopilot's nudges), and abort / halt. The session owns one and delegates.
 *
 * @example
 * const runner = new TurnRunner(loop, false, (summary) => saveSummary(summary));
 * const messageId = await runner.send({ sessionId, prompt: "hello" });
 */
export class TurnRunner {
  /** `session.queue.*`: the waiting messages as the application sees them. */
  readonly pendingMessages: MessageQueueView;
  /** The `requestHeaders` of the message being answered. */
  private headers: Readonly<Record<string, string>> | undefined;
  private currentInteractionId: string | undefined;
  /** Notices (finished background work) waiting for the next run when the session was idle. */
  private readonly deferredNotices: string[] = [];
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
  /** Set while the loop waits for background agents before going idle; aborting it ends the wait. */
  private waitingForBackground: AbortController | undefined;
  /** What the model is told about the agent mode each user message is answered in. */
  private readonly modeNotices: ModeNotices;

  constructor(
    private readonly host: TurnHost,
    /** Whether the session already has its first prompt (resumed ones do). */
    hasFirstPrompt: boolean,
    /** The first recorded user message gives the session its summary. */
    private readonly onFirstPrompt: (summary: string) => void,
    /** The idempotency keys of the session's sends. */
    private readonly sendKeys: SendKeys = new SendKeys(),
  ) {
    this.pendingMessages = new MessageQueueView(this.queue, this.steering, host.emitter, () => this.host.mode);
    this.turnEvents = new TurnEvents(host.emitter, hasFirstPrompt, () => host.profile.runEnd);
    this.modeNotices = new ModeNotices(() => host.profile.deliversModeNotices, () => host.planPath);
  }

  /** The interaction id of the message being answered, while one is. */
  get interactionId(): string | undefined {
    return this.currentInteractionId;
  }

  /** The `requestHeaders` of the message being answered (sent with its model calls). */
  get turnHeaders(): Readonly<Record<string, string>> | undefined {
    return this.headers;
  }

  /** Whether the loop is running a turn (a queued command running alone may rewrite the history: `/clear`). */
  get busy(): boolean {
    return this.running !== undefined && !this.runningCommand;
  }

  /**
   * Queues a user message and returns its id; the loop runs in the background. After a failed
   * write, first writes what is held and refuses the message (`PersistenceFailed`) if it cannot.
   * `placement: "next"` puts it before the messages waiting (a slash command's own task).
   *
   * A message the idle session records at once (nothing waits ahead of it) is answered only once
   * its `user.message` is durable (committed, or written and synced), so an acknowledged send
   * survives the node; when that write fails (the disk, the database, or a lost lease) the send is
   * refused with that error. A message queued behind a running turn, or behind what a paused queue
   * kept, is answered when queued. A send carrying an
   * `idempotencyKey` already seen is answered with the original message id and not run again.
   */
  send(params: SessionSendParams, placement: "last" | "next" = "last"): Promise<string> {
    const key = params.idempotencyKey;
    if (key === undefined) return this.accept(params, placement);
    checkIdempotencyKey(key);
    const earlier = this.sendKeys.find(key);
    if (earlier) return earlier;
    const answer = this.accept(params, placement);
    this.sendKeys.remember(key, answer);
    return answer;
  }

  private async accept(params: SessionSendParams, placement: "last" | "next"): Promise<string> {
    const { host } = this;
    if (host.persistence.failed) await host.persistence.ensureWritable();
    const messageId = randomUUID();
    const agentMode = params.agentMode ?? host.mode;
    const recordedNow = this.running === undefined && placement === "last" && this.queue.length === 0;
    let recorded: Promise<void> | undefined;
    const entry: QueuedMessage = { messageId, params, agentMode };
    let answerSent: () => void = () => undefined;
    if (recordedNow) {
      entry.sendAnswered = new Promise<void>((resolve) => (answerSent = resolve));
      recorded = new Promise<void>((resolve, reject) => {
        // Told once: when recorded, or when it leaves the queue unanswered (whichever comes first).
        entry.recorded = (commit) => {
          entry.recorded = undefined;
          commit.then(resolve, reject);
        };
      });
    }
    if (params.mode === "immediate" && this.running) this.steering.push(entry);
    else if (placement === "next") this.queue.unshift(entry);
    else this.queue.push(entry);
    this.pendingMessages.changed();
    this.waitingForBackground?.abort();
    this.running ??= this.drainQueue();
    this.turnEvents.accepted(params.prompt, host.name);
    if (!recorded) return messageId;
    try {
      await recorded;
    } finally {
      // After the answer's own continuations (the dispatcher hands it to the connection in them).
      setImmediate(answerSent);
    }
    return messageId;
  }

  /** Queues `notice` as a system message that continues an interrupted turn (see `Session.continueInterruptedTurn`). */
  continueInterruptedTurn(notice: string): void {
    const { host } = this;
    this.queue.push({ messageId: randomUUID(), params: { sessionId: host.sessionId, prompt: "" }, agentMode: host.mode, source: "system", continuation: { notice } });
    this.running ??= this.drainQueue();
  }

  /**
   * Clears the conversation once the message being answered is done (at once when idle; before
   * the messages waiting), emitting `session.context_cleared`, then answers `prompt` as the first
   * message of the new conversation. Returns how many messages the conversation holds now.
   */
  clearContext(prompt: string): number {
    const { host } = this;
    const clear: QueuedCommand = {
      text: "",
      run: async () => {
        const messagesCleared = host.messages.length;
        host.messages.length = 0;
        host.emitter.emit("session.context_cleared", { messagesCleared, initialMessage: prompt });
        return undefined;
      },
      cancel: () => undefined,
    };
    this.queue.unshift(
      { messageId: randomUUID(), params: { sessionId: host.sessionId, prompt: "" }, source: "system", command: clear },
      { messageId: randomUUID(), params: { sessionId: host.sessionId, prompt }, agentMode: host.mode },
    );
    this.pendingMessages.changed();
    this.running ??= this.drainQueue();
    return host.messages.length;
  }

  /** Queues a slash command behind the waiting messages (`requestId` is its queue id). */
  enqueueCommand(requestId: string, command: QueuedCommand): void {
    this.queue.push({ messageId: requestId, params: { sessionId: this.host.sessionId, prompt: command.text }, agentMode: this.host.mode, command });
    this.pendingMessages.changed();
    this.running ??= this.drainQueue();
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
    this.steering.push({ messageId: randomUUID(), params: { sessionId: this.host.sessionId, prompt: text }, source: "system" });
  }

  /** Before each model call: records the steering messages sent while the loop ran. */
  async beforeModelCall(interactionId: string): Promise<void> {
    for (let next = this.steering.shift(); next; next = this.steering.shift()) {
      await this.recordUserMessage(next.params, interactionId, next.source, undefined, next.params.agentMode);
    }
  }

  /**
   * Cancels the running turn and everything queued; resolves once the loop is idle (the completions
   * of the interrupted tool calls written). `destroyed`: the session is closing, which the
   * interrupted calls' completions say instead of a user abort.
   */
  async abort(reason: "aborted" | "destroyed" = "aborted"): Promise<void> {
    dropAll(this.queue);
    dropAll(this.steering);
    this.currentRun?.abort(new PendingAbandoned(reason));
    this.waitingForBackground?.abort();
    // A command running in an application waits for its answer: stop waiting.
    this.host.pending.abandonAll("aborted", "command");
    await this.running;
  }

  /** Stops the running turn (its cancellation names the persistence failure) and drops queued messages; returns how many. */
  halt(): number {
    const dropped = dropAll(this.queue) + dropAll(this.steering);
    if (this.currentRun) {
      this.haltedRun = this.currentRun;
      this.currentRun.abort(new PendingAbandoned("aborted"));
    }
    return dropped;
  }

  /**
   * Answers queued messages until none is left, then goes idle. `running` is cleared in the same
   * synchronous step that emits `session.idle`, so a `send` that arrives after idle always starts a
   * new drain and one that arrives before it is always answered by this one.
   */
  private async drainQueue(): Promise<void> {
    let aborted = false;
    try {
      for (;;) {
        const ended = await this.answerQueued();
        aborted = ended === "aborted";
        // Background agents a turn started keep the session busy: their completion notices continue the conversation.
        if (ended !== "done" || !(await this.awaitBackgroundAgents())) break;
      }
    } finally {
      // What a failed drain leaves waits in memory: its sends are answered now.
      for (const waiting of [...this.queue, ...this.steering]) waiting.recorded?.(Promise.resolve());
      this.running = undefined;
      this.turnEvents.idle(this.host.mode, aborted);
      if (this.host.logger.enabled("info")) this.host.logger.info("session idle", { aborted });
    }
  }

  /**
   * While background agents run and nothing waits to be answered, waits for one to finish (its
   * notice arrives as steering) or for a message or an abort. True when there is something to
   * answer; false to go idle.
   */
  private async awaitBackgroundAgents(): Promise<boolean> {
    const { background } = this.host.agents;
    while (background.active && this.queue.length === 0 && this.steering.length === 0) {
      const waiting = new AbortController();
      this.waitingForBackground = waiting;
      await Promise.race([background.nextFinished(), new Promise((resolve) => waiting.signal.addEventListener("abort", resolve, { once: true }))]);
      this.waitingForBackground = undefined;
      if (waiting.signal.aborted && this.queue.length === 0 && this.steering.length === 0) return false;
    }
    this.queue.push(...this.steering.splice(0));
    return this.queue.length > 0;
  }

  /** Answers queued messages until none is left (or a command pauses the queue); how the last one ended. */
  private async answerQueued(): Promise<"aborted" | "paused" | "done"> {
    let aborted = false;
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      if (next.source === undefined) this.pendingMessages.changed();
      if (next.command) {
        this.runningCommand = true;
        const outcome = await next.command.run().finally(() => (this.runningCommand = false));
        // 1.0.x `stopProcessingQueue`: what still waits runs with the next send.
        if (outcome === "pause") return "paused";
      }
      aborted = next.command ? false : (await this.answerTelling(next)) === "aborted";
      // Steering that arrived after the last model call of that run is answered next.
      this.queue.unshift(...this.steering.splice(0));
    }
    return aborted ? "aborted" : "done";
  }

  /** Answers one message; a send waiting for it is refused when the turn failed before its message was recorded. */
  private async answerTelling(queued: QueuedMessage): Promise<"aborted" | undefined> {
    try {
      return await this.answer(queued);
    } catch (error) {
      queued.recorded?.(Promise.reject(error));
      throw error;
    } finally {
      queued.recorded?.(Promise.resolve());
    }
  }

  /**
   * Records a queued message's `user.message` and tells its send (when it waits, see `accept`)
   * the commit to wait for: the send is answered once the message is durable, refused when it is
   * not (naming the message held in memory).
   */
  private async recordQueued(queued: QueuedMessage, interactionId: string): Promise<boolean> {
    let recorded: boolean;
    try {
      recorded = await this.recordUserMessage(queued.params, interactionId, undefined, queued.messageId, queued.params.agentMode);
    } catch (error) {
      queued.recorded?.(Promise.reject(error));
      throw error;
    }
    queued.recorded?.(recorded ? this.host.emitter.committed().catch((error: unknown) => Promise.reject(heldMessage(error, queued.messageId))) : Promise.resolve());
    return recorded;
  }

  private async answer(queued: QueuedMessage): Promise<"aborted" | undefined> {
    const { host } = this;
    const controller = new AbortController();
    this.currentRun = controller;
    this.headers = queued.params.requestHeaders;
    const interactionId = randomUUID();
    this.currentInteractionId = interactionId;
    await Promise.all([host.mcp.start(), host.agents.ready()]);
    this.turnEvents.beforeUserMessage(host.model);
    for (let notice = this.deferredNotices.shift(); notice; notice = this.deferredNotices.shift()) {
      await this.recordUserMessage({ sessionId: host.sessionId, prompt: notice }, interactionId, "system");
    }
    if (queued.continuation) this.recordFailoverNotice(queued.continuation.notice);
    else if (!(await this.recordQueued(queued, interactionId))) {
      this.currentRun = undefined;
      this.currentInteractionId = undefined;
      return undefined;
    }
    if (queued.sendAnswered) await queued.sendAnswered;
    this.turnEvents.systemPrompt(await host.systemPrompt());
    let taskCompleted = false;
    const stopListening = host.emitter.addListener((event) => {
      if (event.type === "session.task_complete") taskCompleted = true;
    });
    // The abort is announced where the loop noticed it: before the interrupted turn is closed.
    let abortAnnounced = false;
    const announceAbort = (): void => {
      if (abortAnnounced) return;
      abortAnnounced = true;
      this.turnEvents.aborted(this.haltedRun === controller ? "persistence failure" : "user initiated");
    };
    const turns: LoopRun = { next: 0, onInterrupted: announceAbort };
    let nudges = 0;
    let stopBlocks = 0;
    try {
      for (;;) {
        const result = await runAgentLoop(host, interactionId, controller.signal, turns);
        if (result.end === "aborted") {
          const turnClosed = abortAnnounced;
          announceAbort();
          if (turnClosed) this.turnEvents.interruptedTurnClosed();
          return "aborted";
        }
        // A rejected tool call ends the run (without `aborted`), as the session's profile says.
        if (result.end === "completed" && result.rejected) {
          this.turnEvents.rejected();
          return undefined;
        }
        if (result.end === "failed") {
          reportLoopError(host, result.error);
          return undefined;
        }
        // An agentStop hook may keep the agent going, a bounded number of times per message.
        if (host.hooks.active && stopBlocks < maxConsecutiveStopBlocks) {
          const followUp = await continuationFromStopHook(host.hooks, { stopHookActive: stopBlocks > 0, transcriptLocation: host.emitter.log.location });
          if (followUp !== undefined) {
            stopBlocks++;
            await this.recordUserMessage({ sessionId: host.sessionId, prompt: followUp }, interactionId, "hook");
            continue;
          }
        }
        if (host.mode !== "autopilot" || taskCompleted || nudges >= maxAutopilotNudges) return undefined;
        nudges++;
        await this.recordUserMessage({ sessionId: host.sessionId, prompt: autopilotNudge }, interactionId, "autopilot");
      }
    } finally {
      stopListening();
      this.currentRun = undefined;
      this.currentInteractionId = undefined;
      await host.emitter.durable();
    }
  }

  /**
   * A failover's notice: its own `session.warning` event (stored, unlike the ephemeral
   * `session.info`), never a `user.message`, which a UI would show as a turn somebody typed; the
   * model reads it as a system note (see `failoverNoticeMessage`).
   */
  private recordFailoverNotice(notice: string): void {
    const event = this.host.emitter.emit("session.warning", { warningType: failoverWarningType, message: notice });
    this.host.messages.push(failoverNoticeMessage(event.data.message));
  }

  /**
   * Runs the userPromptSubmitted hook, emits `user.message` and adds the message to the
   * conversation. Returns false when the hook rejected the prompt.
   */
  // `agentMode`: the one the send named, else the session's mode as the message's turn runs (a
  // `/plan` queued before it has switched the mode by then).
  private async recordUserMessage(params: SessionSendParams, interactionId: string, source?: string, messageId?: string, agentMode?: string): Promise<boolean> {
    const { host } = this;
    const { attachments } = params;
    let prompt = params.prompt;
    if (host.hooks.active && source === undefined) {
      const output = await host.hooks.run("userPromptSubmitted", { prompt });
      if (output?.decision === "block" || output?.reject === true) {
        const reason = typeof output.reason === "string" ? output.reason : "no reason given";
        host.emitter.emit("session.warning", { warningType: "hook", message: `The prompt was rejected by the userPromptSubmitted hook: ${reason}` });
        return false;
      }
      if (typeof output?.modifiedPrompt === "string") prompt = output.modifiedPrompt;
      if (typeof output?.additionalContext === "string") prompt = `${prompt}\n\n${output.additionalContext}`;
    }
    const prepared = await prepareAttachments(attachments, host.workingDirectory, () => modelAcceptsImages(() => host.modelClient().listModels(), host.model), host.acceptsDocuments);
    // The user's own messages say the session's mode to the model (plan mode's mark and notice). A
    // message's own `agentMode` is recorded with it but tells the model nothing: the official 1.0.x
    // SDK's recordings of a send with `agentMode` show the prompt unchanged.
    const modeText = source === undefined ? this.modeNotices.forMessage(host.mode) : { prefix: "" };
    const modelPrompt = modeText.prefix + prompt;
    // A long prompt the hook left alone is stored once: the model's text is rebuilt from it.
    const storeTransformed = modelPrompt !== params.prompt || prompt.length <= MAX_STORED_TRANSFORMED_CHARS || prepared.prefix !== "";
    let transformedContent = storeTransformed ? prepared.prefix + wrapPrompt(modelPrompt, new Date().toISOString()) : undefined;
    if (host.hooks.active && source === undefined) {
      const transformedPrompt = transformedContent ?? wrapPrompt(modelPrompt, new Date().toISOString());
      const output = await host.hooks.run("userPromptTransformed", { prompt, transformedPrompt });
      // What the hook answers is exactly what the model reads for this message.
      if (typeof output?.modifiedTransformedPrompt === "string") transformedContent = output.modifiedTransformedPrompt;
    }
    const event = host.emitter.emit("user.message", {
      content: params.prompt,
      ...(transformedContent !== undefined ? { transformedContent } : {}),
      attachments: prepared.echoed,
      agentMode: agentMode ?? host.mode,
      interactionId,
      ...(messageId ? { messageId } : {}),
      ...(source ? { source } : {}),
      ...(params.idempotencyKey !== undefined ? { idempotencyKey: params.idempotencyKey } : {}),
    });
    if (modeText.noticed) host.emitter.emit("session.mode_notice_delivered", { mode: modeText.noticed });
    host.messages.push(userConversationMessage(event.data, event.timestamp));
    if (host.summary !== undefined) return true;
    this.onFirstPrompt(summaryOf(params.prompt));
    return true;
  }
}
