import { errorMessage } from "../errors.js";
import { importOnce } from "../import-once.js";
import type { Logger } from "../log.js";
import type { ConversationMessage } from "../ports/conversation.js";
import { withRetries, type RetryPolicy } from "../loop/retry.js";
import type { ModelClient, ModelResponse, ModelUsage } from "../providers/types.js";
import type { EventEmitterPort } from "../ports/events.js";
import type { CheckpointStore } from "./checkpoints.js";
import type { CompactionSettings } from "./config.js";
import { planCut } from "./plan.js";
import { cutToTokens, summaryMessageText, summaryRequest, summarySystemPrompt, taskOf } from "./summary-text.js";
import { TokenEstimator, type ToolTokenCache } from "./tokens.js";
import type { CompactionResult, ContextManager, ContextUsage, RequestFrame } from "./types.js";
import type { ContextWindow } from "./window.js";

/** What a compactor needs from the conversation it manages (a session or a sub-agent run). */
export interface CompactionHost {
  readonly sessionId: string;
  readonly messages: ConversationMessage[];
  readonly emitter: EventEmitterPort;
  readonly logger: Logger;
  readonly retryPolicy: RetryPolicy;
  readonly model: string;
  modelClient(): ModelClient;
  recordModelCall(model: string, response: ModelResponse, durationMs: number): void;
  /** A short title for checkpoint files (the session's first prompt). */
  checkpointTitle(): string;
}

/** What a compactor is built with. */
export interface CompactorOptions {
  settings: CompactionSettings;
  window: ContextWindow;
  checkpoints: CheckpointStore;
  /** How long one summary call may take before it counts as failed. */
  timeoutMs: number;
  /** Set for a sub-agent's compactor (named in its checkpoint files). */
  agentName?: string;
  /** Tool estimates shared by the runtime's sessions. */
  toolTokens?: ToolTokenCache;
}

/**
 * The transcript a summary call sends: loaded ahead of the first background compaction (see
 * {@link transcriptLoadShare}), else with the first summary; a session whose history stays small
 * does not parse it.
 */
const loadTranscript = importOnce(() => import("./transcript.js"));
type TranscriptModule = Awaited<ReturnType<typeof loadTranscript>>;

/** Shares of the window that shape a compaction (see the README). */
const keptTailShare = 0.25;
const summaryShare = 0.15;
const transcriptShare = 0.6;
/**
 * Share of the background threshold past which a model call first loads the transcript code. A
 * background compaction's summary call then leaves as the compaction starts: a load at that
 * moment would run beside the loop, which may use up its room below the exhaustion threshold (and
 * wait) before the call has even left.
 */
const transcriptLoadShare = 0.5;
/** Summaries never aim past this many tokens, however large the window. */
const maxSummaryTargetTokens = 3_000;
/** After the k-th failure in a row, automatic compaction skips 4·2^(k-1) model calls (at most 64). */
const backoffBaseCalls = 4;
const backoffMaxCalls = 64;

/** Messages estimated per slice by `measureHistory` (~0.5 ms of work each: a slice delays whatever else is waiting, such as the drain of a large `getMessages` answer). */
const measureSliceMessages = 1_000;

type Outcome = { kind: "compacted"; tokensRemoved: number; messagesRemoved: number } | { kind: "nothing" } | { kind: "failed"; error: string };

/** How a compaction began: on its own (thresholds, a context-length refusal) or asked for (`compact`). */
export type CompactionKind = "background" | "manual";

/** The reason a cancelled compaction gives (`session.compaction_complete` with `success: false`). */
export const compactionCancelledMessage = "the compaction was cancelled";

/**
 * Keeps a conversation inside its model's window. Before each model call it estimates the request
 * (anchored on the provider's last reported input tokens); above the background threshold it
 * starts a compaction that runs while the loop keeps working, above the exhaustion threshold the
 * call waits for it. A compaction is one call on the session's own provider and model that
 * summarizes the older part of the history (sent as a plain transcript, bounded to fit); the
 * history becomes the summary (with the user's original request kept verbatim) followed by the
 * most recent turns unchanged, and the summary is saved as a numbered checkpoint file.
 *
 * No loops: one compaction at a time; automatic compaction needs a model call since the last one
 * and something other than a summary to remove; a compaction that could not get under the
 * threshold is not retried until the history grew by a tenth of the window; failures back off
 * (4, 8, 16 … model calls); a context-length refusal compacts and retries once per model call.
 *
 * @example
 * await compactor.prepare({ system, tools }, signal); // before each model call
 */
export class SessionCompactor implements ContextManager {
  private readonly estimator: TokenEstimator;
  private job: Promise<Outcome> | undefined;
  /** How the running job began, and its own cancellation. */
  private jobControl: { kind: CompactionKind; abort: AbortController } | undefined;
  private readonly jobAbort = new AbortController();
  private lastFrame: RequestFrame = { system: "", tools: [] };
  /** The provider's input tokens for the history's first `length` messages (cleared by a compaction). */
  private anchor: { length: number; tokens: number; frameTokens: number } | undefined;
  private callsSinceCompaction = 0;
  private consecutiveFailures = 0;
  private backoffCalls = 0;
  /** Tokens right after the last compaction, when it could not get under the background threshold. */
  private stuckAt: number | undefined;
  private disposed = false;
  /** Counts applied compactions, so usage reported for a request made before one is ignored. */
  private epoch = 0;
  private epochAtPrepare = 0;
  /** The transcript code, once loaded (see {@link transcriptLoadShare}). */
  private transcript: TranscriptModule | undefined;

  constructor(
    private readonly host: CompactionHost,
    private options: CompactorOptions,
  ) {
    this.estimator = new TokenEstimator(options.toolTokens);
  }

  /** Takes new settings (resume with a new config); a compaction under way finishes as it began. */
  reconfigure(options: CompactorOptions): void {
    this.options = options;
  }

  /** The current prompt limit of the host's model. */
  get tokenLimit(): number {
    return this.options.window.limit(this.host.model);
  }

  async prepare(frame: RequestFrame, signal: AbortSignal): Promise<void> {
    await this.options.window.ready(this.host.model);
    this.lastFrame = frame;
    this.epochAtPrepare = this.epoch;
    this.callsSinceCompaction++;
    if (this.backoffCalls > 0) this.backoffCalls--;
    if (!this.options.settings.enabled) return;
    const limit = this.tokenLimit;
    const tokens = this.currentTokens(frame);
    const { backgroundThreshold, exhaustionThreshold } = this.options.settings;
    if (!this.transcript && tokens >= transcriptLoadShare * backgroundThreshold * limit) await this.transcriptCode();
    if (!this.job && tokens >= backgroundThreshold * limit && this.mayStartAutomatically(tokens, limit)) this.start("background");
    if (this.job && tokens >= exhaustionThreshold * limit) await abortable(this.job, signal);
  }

  usage(frame: RequestFrame): ContextUsage {
    const currentTokens = this.currentTokens(frame);
    const systemTokens = this.estimator.system(frame.system);
    const toolDefinitionsTokens = this.estimator.tools(frame.tools);
    return {
      tokenLimit: this.tokenLimit,
      currentTokens,
      messagesLength: this.host.messages.length,
      systemTokens,
      conversationTokens: Math.max(0, currentTokens - systemTokens - toolDefinitionsTokens),
      toolDefinitionsTokens,
      isInitial: false,
    };
  }

  recordUsage(usage: ModelUsage, historyLength: number): void {
    // A compaction applied during the call changed the history the count was for.
    if (usage.inputTokens === undefined || usage.inputTokens <= 0 || this.epoch !== this.epochAtPrepare) return;
    this.anchor = { length: historyLength, tokens: usage.inputTokens, frameTokens: this.frameTokens(this.lastFrame) };
  }

  async recoverFromOverflow(frame: RequestFrame, message: string, signal: AbortSignal): Promise<boolean> {
    if (!this.options.settings.enabled) return false;
    await this.options.window.learnFromRefusal(this.host.model, message, this.currentTokens(frame));
    this.anchor = undefined;
    if (!this.job) {
      if (this.backoffCalls > 0) return false;
      this.start("background");
    }
    const outcome = await abortable(this.job as Promise<Outcome>, signal);
    return outcome.kind === "compacted";
  }

  /** `session.compaction.compact`: compacts now (or joins the compaction under way). */
  async compactNow(): Promise<CompactionResult> {
    const outcome = await (this.job ?? this.start("manual"));
    if (outcome.kind === "compacted") return { success: true, tokensRemoved: outcome.tokensRemoved, messagesRemoved: outcome.messagesRemoved };
    return { success: outcome.kind === "nothing", tokensRemoved: 0, messagesRemoved: 0 };
  }

  /** Estimated tokens of the request `frame` would make with the current history. */
  currentTokens(frame: RequestFrame = this.lastFrame): number {
    const messages = this.host.messages;
    const anchor = this.anchor;
    if (anchor && anchor.length <= messages.length) {
      return anchor.tokens + this.estimator.messages(messages, anchor.length) + this.frameTokens(frame) - anchor.frameTokens;
    }
    return this.frameTokens(frame) + this.estimator.messages(messages);
  }

  /**
   * Estimates every message of the history ahead of need, {@link measureSliceMessages} at a time
   * with a turn of the event loop between slices, so other requests are not held up (a resumed
   * history of 100k events is ~40 ms of work) and `usage()` afterwards reads remembered counts.
   * False when the compactor was disposed meanwhile.
   */
  async measureHistory(): Promise<boolean> {
    for (let from = 0; ; from += measureSliceMessages) {
      if (this.disposed) return false;
      const messages = this.host.messages;
      if (from >= messages.length) return true;
      this.estimator.messages(messages, from, Math.min(messages.length, from + measureSliceMessages));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Cancels the compaction under way when it began as `kind`; true when one was cancelled. The
   * history is left as it was and `session.compaction_complete` reports the cancellation;
   * automatic compaction starts again only once the history has grown by a tenth of the window.
   */
  cancel(kind: CompactionKind): boolean {
    const control = this.jobControl;
    if (!control || control.kind !== kind || control.abort.signal.aborted) return false;
    control.abort.abort(new Error(compactionCancelledMessage));
    return true;
  }

  /**
   * A summary of the whole conversation for someone (or another agent) taking it over: one model
   * call over the transcript; the history is not changed. Empty when there is no conversation.
   */
  async handoffSummary(): Promise<string> {
    const { host } = this;
    if (host.messages.length === 0) return "";
    const limit = this.tokenLimit;
    const messages = host.messages.slice();
    const { renderTranscript } = await this.transcriptCode();
    const transcript = renderTranscript(messages, Math.floor(transcriptShare * limit));
    const { response } = await this.callModel(summaryRequest(transcript, Math.floor(this.summaryTargetTokens(limit) * 0.75), "handoff"), this.jobAbort.signal);
    return response.text.trim();
  }

  /** Stops a compaction under way (session closing); nothing more is emitted. */
  dispose(): void {
    this.disposed = true;
    this.jobAbort.abort(new Error("the session closed"));
  }

  private async transcriptCode(): Promise<TranscriptModule> {
    this.transcript ??= await loadTranscript();
    return this.transcript;
  }

  private frameTokens(frame: RequestFrame): number {
    return this.estimator.system(frame.system) + this.estimator.tools(frame.tools);
  }

  private mayStartAutomatically(tokens: number, limit: number): boolean {
    if (this.backoffCalls > 0 || this.callsSinceCompaction < 1) return false;
    if (this.stuckAt !== undefined && tokens < this.stuckAt + 0.1 * limit) return false;
    return true;
  }

  /**
   * How many tokens of recent turns to keep verbatim: half the room left under the background
   * threshold once the system prompt, tools and a summary are in, at most a quarter of the window.
   * (A fixed share would leave a session whose prompt and tools fill half the window compacting
   * every few turns.)
   */
  private keepBudget(limit: number): number {
    const room = this.options.settings.backgroundThreshold * limit - this.frameTokens(this.lastFrame) - this.summaryTargetTokens(limit);
    return Math.floor(Math.max(0, Math.min(keptTailShare * limit, room / 2)));
  }

  private summaryTargetTokens(limit: number): number {
    return Math.max(200, Math.min(maxSummaryTargetTokens, Math.floor(summaryShare * limit)));
  }

  private start(kind: CompactionKind): Promise<Outcome> {
    const control = { kind, abort: new AbortController() };
    const job = this.run(control.abort.signal).finally(() => {
      if (this.job !== job) return;
      this.job = undefined;
      this.jobControl = undefined;
    });
    this.job = job;
    this.jobControl = control;
    return job;
  }

  private async run(cancelled: AbortSignal): Promise<Outcome> {
    const { host } = this;
    const limit = this.tokenLimit;
    const cut = planCut(host.messages, this.estimator, this.keepBudget(limit));
    if (cut === 0) return { kind: "nothing" };
    const prefix = host.messages.slice(0, cut);
    host.emitter.emit("session.compaction_start", {});
    try {
      const { summary, response } = await this.summarize(prefix, limit, cancelled);
      if (this.disposed) return { kind: "failed", error: "the session closed" };
      if (cancelled.aborted) throw cancelled.reason;
      return await this.apply(prefix, summary, response, limit, cancelled);
    } catch (error) {
      const message = this.disposed ? "the session closed" : errorMessage(error);
      if (this.disposed) return { kind: "failed", error: message };
      if (cancelled.aborted) {
        // Not started again on its own until the history has grown (as after one that could not help).
        this.stuckAt = this.currentTokens();
        host.emitter.emit("session.compaction_complete", { success: false, error: compactionCancelledMessage });
        return { kind: "failed", error: compactionCancelledMessage };
      }
      this.consecutiveFailures++;
      this.backoffCalls = Math.min(backoffMaxCalls, backoffBaseCalls * 2 ** (this.consecutiveFailures - 1));
      host.logger.warn(`compaction failed (${this.consecutiveFailures} in a row; automatic compaction pauses for ${this.backoffCalls} model calls): ${message}`);
      host.emitter.emit("session.compaction_complete", { success: false, error: message });
      return { kind: "failed", error: message };
    }
  }

  /** The summary call: one request on the host's provider and model, bounded by a timeout. */
  private async summarize(prefix: readonly ConversationMessage[], limit: number, cancelled: AbortSignal): Promise<{ summary: string; response: ModelResponse }> {
    const targetTokens = this.summaryTargetTokens(limit);
    // Loaded already, the call leaves without a turn of the event loop in between.
    const { renderTranscript } = this.transcript ?? (await this.transcriptCode());
    const transcript = renderTranscript(prefix, Math.floor(transcriptShare * limit));
    const { response } = await this.callModel(summaryRequest(transcript, Math.floor(targetTokens * 0.75)), AbortSignal.any([this.jobAbort.signal, cancelled]));
    const summary = cutToTokens(response.text.trim(), Math.floor(2 * targetTokens));
    if (!summary) throw new Error("the model answered the summary request with no text");
    return { summary, response };
  }

  /** One summary request (`request` is its only message) on the host's provider and model, bounded by a timeout. */
  private async callModel(request: string, stop: AbortSignal): Promise<{ response: ModelResponse }> {
    const { host } = this;
    const client = host.modelClient();
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = AbortSignal.any([stop, timeout]);
    const started = performance.now();
    let response: ModelResponse;
    try {
      response = await withRetries(
        host.retryPolicy,
        signal,
        () =>
          client.generate(
            { model: host.model, system: summarySystemPrompt, messages: [{ role: "user", content: request }], tools: [], stream: false, signal, origin: { agentId: host.sessionId, interactionType: "conversation-compaction" } },
            () => undefined,
          ),
        (error, delayMs, attempt) => host.logger.warn(`compaction call failed (attempt ${attempt}); retrying in ${Math.round(delayMs)} ms: ${error.message}`),
      );
    } catch (error) {
      if (timeout.aborted && !stop.aborted) throw new Error(`the summary call timed out after ${Math.round(this.options.timeoutMs / 1000)} s`);
      throw error;
    }
    host.recordModelCall(host.model, response, Math.round(performance.now() - started));
    return { response };
  }

  /** Replaces the summarized prefix (if it is still the history's start) and reports it. */
  private async apply(prefix: readonly ConversationMessage[], summary: string, response: ModelResponse, limit: number, cancelled: AbortSignal): Promise<Outcome> {
    const { host } = this;
    const task = taskOf(prefix);
    const title = host.checkpointTitle();
    const provisional = summaryMessageText(summary, 0, "000-checkpoint.md", task);
    const preTokens = this.currentTokens();
    const postEstimate = preTokens - this.estimator.messages(prefix) + this.estimator.message({ role: "user", content: provisional });
    if (!startsWith(host.messages, prefix)) throw new Error("the history changed while it was being summarized");
    const checkpoint = await this.options.checkpoints.write({
      title,
      summary,
      sessionId: host.sessionId,
      messagesSummarized: prefix.length,
      preCompactionTokens: preTokens,
      postCompactionTokens: Math.max(0, postEstimate),
      ...(this.options.agentName ? { agentName: this.options.agentName } : {}),
    });
    if (this.disposed) return { kind: "failed", error: "the session closed" };
    if (cancelled.aborted) throw cancelled.reason;
    if (!startsWith(host.messages, prefix)) throw new Error("the history changed while it was being summarized");
    // From here to the event, nothing awaits: the history and the event log change together.
    const preMessages = host.messages.length;
    const before = this.currentTokens();
    host.messages.splice(0, prefix.length, { role: "user", content: summaryMessageText(summary, checkpoint.number, checkpoint.file, task) });
    this.anchor = undefined;
    this.epoch++;
    const after = this.currentTokens();
    this.callsSinceCompaction = 0;
    this.consecutiveFailures = 0;
    this.stuckAt = after >= this.options.settings.backgroundThreshold * limit ? after : undefined;
    host.emitter.emit("session.compaction_complete", {
      success: true,
      preCompactionTokens: before,
      postCompactionTokens: after,
      preCompactionMessagesLength: preMessages,
      messagesRemoved: prefix.length,
      tokensRemoved: Math.max(0, before - after),
      summaryContent: summary,
      checkpointNumber: checkpoint.number,
      checkpointPath: checkpoint.path,
      compactionTokensUsed: { input: response.usage.inputTokens ?? 0, output: response.usage.outputTokens ?? 0, cachedInput: response.usage.cacheReadTokens ?? 0 },
      ...(response.providerCallId ? { requestId: response.providerCallId } : {}),
    });
    host.emitter.emit("session.usage_info", this.usage(this.lastFrame));
    return { kind: "compacted", tokensRemoved: Math.max(0, before - after), messagesRemoved: prefix.length };
  }
}

function startsWith(messages: readonly ConversationMessage[], prefix: readonly ConversationMessage[]): boolean {
  if (messages.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (messages[index] !== prefix[index]) return false;
  return true;
}

/** Waits for `promise`, or stops waiting (without cancelling it) when `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
