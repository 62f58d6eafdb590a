import { randomUUID } from "node:crypto";
import type { FactoryAgentOptions, FactoryLimits, FactoryMeta, FactoryProgressPage, FactoryRunDetail, FactoryRunResult, FactoryRunSummary } from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { errorMessage, invalidParams, TandemError } from "../errors.js";
import type { Logger } from "../log.js";
import type { ClientPort } from "../ports/clients.js";
import { Semaphore } from "../agents/semaphore.js";
import { FactoryRun, isTerminal, type ProgressRecord } from "./factory-run.js";

/** A factory a connected client (an extension) declared, with that client. */
export interface DeclaredFactory {
  readonly owner: ClientPort;
  readonly meta: FactoryMeta;
}

/** What {@link SessionFactories} needs from its session. */
export interface FactoryHost {
  readonly sessionId: string;
  readonly logger: Logger;
  /** The factories the connected clients declared (the most recently registered client last). */
  declaredFactories(): DeclaredFactory[];
  /** Announces a change of a run (`factory.run_updated`, ephemeral). */
  runUpdated(runId: string, revision: number): void;
  /** Runs one sub-agent to its final answer (the named agent when the session knows it). */
  runAgent(request: { prompt: string; agentName?: string; model?: string; toolCallId: string; displayName: string; signal: AbortSignal }): Promise<string>;
}

/** Why a run cannot be resumed: the SDK turns `data.code` into a `FactoryResumeError`. */
export type ResumeRefusal = "not_found" | "non_resumable" | "already_active";

/** How many progress lines a page holds unless asked otherwise, and at most. */
const defaultPageSize = 200;
const maxPageSize = 500;

/**
 * The agent-factory runs of one session. `run` starts a factory an extension declared: the run is
 * recorded, its body executed in that extension (`factory.execute`, with a fresh execution token
 * per attempt), and the answer settles it (`completed` with the body's result, `error` with its
 * failure). Progress lines, journal entries and sub-agents come from the body while its attempt is
 * under way (a request with a stale token is refused). A failed, halted or cancelled run can be
 * resumed: a new attempt with the same name, arguments and journal. `cancel` stops a run: its
 * body is asked to abort (`factory.abort`) and its sub-agents are stopped. When an attempt ends,
 * sub-agents its body left running are stopped and waited for before the run settles. Every change
 * is announced with `factory.run_updated`.
 *
 * Runs live as long as the session is open in this runtime (they are not written to disk).
 *
 * @example
 * const started = factories.run("summarise", { path: "README.md" });   // { runId, status: "running" }
 * const latest = factories.getRun(started.runId);
 */
export class SessionFactories {
  private readonly runs = new Map<string, FactoryRun>();

  constructor(private readonly host: FactoryHost) {}

  /** Starts a declared factory; answers the run's envelope (running, or already settled). */
  run(name: string, args: unknown, limits: FactoryLimits | undefined): FactoryRunResult {
    const declared = this.declared(name);
    const run = new FactoryRun(randomUUID(), declared.meta, args, { ...(declared.meta.limits ?? {}), ...(limits ?? {}) });
    this.runs.set(run.runId, run);
    this.startAttempt(run, declared.owner);
    return run.envelope();
  }

  /** Runs a failed, halted or cancelled run again (same name, arguments and journal). */
  resume(runId: string, limits: FactoryLimits | undefined): { factoryName: string; run: FactoryRunResult } {
    const run = this.runs.get(runId);
    if (!run) throw resumeRefused("not_found", runId, `No factory run ${runId} exists in this session`);
    if (run.status === "completed") throw resumeRefused("non_resumable", runId, `Factory run ${runId} completed; only failed, halted or cancelled runs can be resumed`);
    if (!isTerminal(run.status)) throw resumeRefused("already_active", runId, `Factory run ${runId} is still ${run.status}`);
    const declared = this.declared(run.meta.name);
    if (limits) Object.assign(run.limits, limits);
    run.result = undefined;
    run.error = undefined;
    run.reason = undefined;
    run.failure = undefined;
    run.completedAt = null;
    this.startAttempt(run, declared.owner);
    return { factoryName: run.meta.name, run: run.envelope() };
  }

  /** A run's envelope. */
  getRun(runId: string): FactoryRunResult {
    return this.find(runId).envelope();
  }

  /** The session's runs, oldest first (at most `limit`, after `afterSeq` / before `beforeSeq` in creation order, 1-based). */
  listRuns(page: { afterSeq?: number; beforeSeq?: number; limit?: number }): FactoryRunSummary[] {
    const all = [...this.runs.values()];
    const from = page.afterSeq ?? 0;
    const to = page.beforeSeq !== undefined ? page.beforeSeq - 1 : all.length;
    const window = all.slice(Math.max(0, from), Math.max(0, to));
    const size = Math.min(page.limit ?? defaultPageSize, maxPageSize);
    const chosen = page.beforeSeq !== undefined && page.afterSeq === undefined ? window.slice(-size) : window.slice(0, size);
    return chosen.map((run) => run.summary());
  }

  /** A run's summary with its phases, sub-agents and latest progress lines. */
  getRunDetail(runId: string): FactoryRunDetail {
    const run = this.find(runId);
    const now = Date.now();
    const phases = run.phases.map((phase) => {
      const active = phase.id === run.currentPhaseId;
      const agents = run.agents.filter((agent) => agent.phaseId === phase.id);
      const reachedLater = run.phases.some((later) => later.entryCount > 0 && (later.ordinal ?? Infinity) > (phase.ordinal ?? Infinity));
      const status: FactoryRunDetail["phases"][number]["status"] = active ? "active" : phase.entryCount > 0 ? "completed" : reachedLater || isTerminal(run.status) ? "skipped" : "pending";
      return {
        ...phase,
        status,
        currentActiveMs: active && phase.startedAt !== undefined ? now - phase.startedAt : 0,
        totalAgentCount: agents.length,
        liveAgentCount: agents.filter((agent) => agent.status === "running").length,
      };
    });
    const agents = run.agents.map(({ completedAt, ...agent }) => ({
      ...agent,
      ...(completedAt !== undefined ? { completedAt } : {}),
      runId,
      activeMs: (completedAt ?? now) - agent.startedAt,
    }));
    return { ...run.summary(), phases, agents, progress: this.getRunProgress(runId, {}) };
  }

  /** A page of a run's progress lines: forward from `afterSeq`, backward from `beforeSeq`, else the latest. */
  getRunProgress(
    runId: string,
    page: { phaseId?: string; afterSeq?: number; beforeSeq?: number; limit?: number },
  ): FactoryProgressPage {
    const run = this.find(runId);
    const size = Math.min(page.limit ?? defaultPageSize, maxPageSize);
    const scoped = page.phaseId === undefined ? run.progress : run.progress.filter((record) => record.phaseId === page.phaseId);
    let records: ProgressRecord[];
    if (page.afterSeq !== undefined) records = scoped.filter((record) => record.seq > page.afterSeq!).slice(0, size);
    else if (page.beforeSeq !== undefined) records = scoped.filter((record) => record.seq < page.beforeSeq!).slice(-size);
    else records = scoped.slice(-size);
    const oldestSeq = records[0]?.seq ?? null;
    const newestSeq = records.at(-1)?.seq ?? null;
    return {
      records: records.map((record) => ({ ...record })),
      oldestSeq,
      newestSeq,
      hasMoreOlder: oldestSeq !== null && scoped.some((record) => record.seq < oldestSeq),
      hasMoreNewer: newestSeq !== null && scoped.some((record) => record.seq > newestSeq),
      revision: run.revision,
    };
  }

  /** Stops a run: its body is asked to abort and its sub-agents are stopped; answers the terminal envelope. */
  async cancel(runId: string): Promise<FactoryRunResult> {
    const run = this.find(runId);
    if (isTerminal(run.status)) return run.envelope();
    const executionToken = run.executionToken;
    run.executionToken = undefined;
    run.controller.abort(new Error("The factory run was cancelled"));
    this.abortBody(run, executionToken);
    await this.drainAgents(run);
    this.finish(run, { status: "cancelled", reason: "Cancelled through session.factory.cancel" });
    return run.envelope();
  }

  /** Progress lines from the attempt under way. */
  log(runId: string, executionToken: string, lines: ReadonlyArray<{ kind: "log" | "phase"; text: string }>): void {
    const run = this.attemptOf(runId, executionToken);
    run.record(lines);
    this.announce(run);
  }

  /** A memoised step result of the run (kept across attempts), if recorded. */
  journalGet(runId: string, executionToken: string, key: string): { hit: boolean; resultJson?: unknown } {
    const run = this.attemptOf(runId, executionToken);
    if (!run.journal.has(key)) return { hit: false };
    return { hit: true, resultJson: run.journal.get(key) };
  }

  /** Records a step result for the run. */
  journalPut(runId: string, executionToken: string, key: string, resultJson: unknown): void {
    const run = this.attemptOf(runId, executionToken);
    run.journal.set(key, resultJson);
    this.announce(run);
  }

  /**
   * Runs one sub-agent for the attempt under way and answers its final text (or, with `schema`, the
   * JSON value it replied with). Options: `agent` names a custom agent of the session (an agent the
   * session does not know runs as the general-purpose agent), `model` its model, `label` its name in
   * the run's detail; `reasoningEffort` and `contextTier` are accepted, not applied. The run's
   * `maxTotalSubagents` refuses sub-agents past it; `maxConcurrentSubagents` makes the others wait.
   */
  async agent(runId: string, executionToken: string, prompt: string, options: FactoryAgentOptions): Promise<{ result?: unknown }> {
    const run = this.attemptOf(runId, executionToken);
    const { maxTotalSubagents } = run.limits;
    if (maxTotalSubagents !== undefined && run.agents.length >= maxTotalSubagents) {
      throw new TandemError(ErrorCodes.InvalidRequest, `Factory run ${runId} reached its limit of ${maxTotalSubagents} sub-agent(s) (maxTotalSubagents)`, { code: "factory_limit_reached", kind: "maxTotalSubagents" });
    }
    const toolCallId = `factory_${randomUUID()}`;
    const record = {
      agentId: `${this.host.sessionId}/${toolCallId}`,
      toolCallId,
      phaseId: run.currentPhaseId,
      label: options.label ?? `agent ${run.agents.length + 1}`,
      agentType: options.agent ?? "general-purpose",
      status: "running" as "running" | "completed" | "failed" | "cancelled",
      ...(options.model !== undefined ? { requestedModel: options.model } : {}),
      startedAt: Date.now(),
      completedAt: undefined as number | undefined,
    };
    run.agents.push(record);
    this.announce(run);
    const fullPrompt = options.schema === undefined ? prompt : `${prompt}\n\nReply with only a JSON value (no prose, no code fence) that matches this JSON Schema:\n${JSON.stringify(options.schema)}`;
    const start = (): Promise<string> => this.host.runAgent({
      prompt: fullPrompt,
      ...(options.agent !== undefined ? { agentName: options.agent } : {}),
      ...(options.model !== undefined ? { model: options.model } : {}),
      toolCallId,
      displayName: record.label,
      signal: run.controller.signal,
    });
    const work = run.agentSlots ? run.agentSlots.run(start) : start();
    run.liveAgents.add(work);
    try {
      const text = await work;
      record.status = "completed";
      if (options.schema === undefined) return { result: text };
      return { result: parseJsonAnswer(text) };
    } catch (error) {
      record.status = run.controller.signal.aborted ? "cancelled" : "failed";
      throw error;
    } finally {
      record.completedAt = Date.now();
      run.liveAgents.delete(work);
      this.announce(run);
    }
  }

  private startAttempt(run: FactoryRun, owner: ClientPort): void {
    const executionToken = randomUUID();
    run.attempt++;
    run.executionToken = executionToken;
    run.controller = new AbortController();
    const { maxConcurrentSubagents } = run.limits;
    run.agentSlots = maxConcurrentSubagents !== undefined ? new Semaphore(maxConcurrentSubagents) : undefined;
    run.status = "running";
    run.startedAt ??= Date.now();
    run.activeSince = Date.now();
    this.announce(run);
    const params = { sessionId: this.host.sessionId, name: run.meta.name, runId: run.runId, executionToken, args: run.args };
    const timeoutSeconds = run.limits.timeoutSeconds;
    const timer = timeoutSeconds !== undefined ? setTimeout(() => void this.timedOut(run, executionToken, timeoutSeconds), Math.max(0, timeoutSeconds * 1000 - run.activeMs)) : undefined;
    timer?.unref();
    owner
      .sendRequest<{ result?: unknown } | null | undefined>("factory.execute", params)
      .then(
        (answer) => this.attemptEnded(run, executionToken, { status: "completed", result: answer?.result }),
        (error: unknown) => this.attemptEnded(run, executionToken, { status: "error", error: owner.isOpen ? errorMessage(error) : `The extension that declares factory "${run.meta.name}" disconnected before the run settled` }),
      )
      .finally(() => clearTimeout(timer))
      .catch((error: unknown) => this.host.logger.error(`factory run ${run.runId} could not settle`, error));
  }

  /** The body of an attempt answered: its sub-agents are stopped and waited for, then the run settles (unless it already did). */
  private async attemptEnded(run: FactoryRun, executionToken: string, outcome: { status: "completed" | "error"; result?: unknown; error?: string }): Promise<void> {
    if (run.executionToken !== executionToken) return;
    run.executionToken = undefined;
    run.controller.abort(new Error("The factory body returned"));
    await this.drainAgents(run);
    this.finish(run, outcome);
  }

  private async timedOut(run: FactoryRun, executionToken: string, timeoutSeconds: number): Promise<void> {
    if (run.executionToken !== executionToken) return;
    run.executionToken = undefined;
    run.controller.abort(new Error("The factory run reached its time limit"));
    this.abortBody(run, executionToken);
    await this.drainAgents(run);
    this.finish(run, {
      status: "error",
      error: `Factory run reached its time limit of ${timeoutSeconds} s (timeoutSeconds)`,
      failure: { type: "factory_limit_reached", kind: "timeoutSeconds", value: timeoutSeconds, runId: run.runId },
    });
  }

  private finish(run: FactoryRun, outcome: { status: "completed" | "error" | "cancelled"; result?: unknown; error?: string; reason?: string; failure?: Record<string, unknown> }): void {
    const now = Date.now();
    run.closePhase(now);
    if (run.activeSince !== null) run.activeMs += now - run.activeSince;
    run.activeSince = null;
    run.status = outcome.status;
    run.result = outcome.result;
    run.error = outcome.error;
    run.reason = outcome.reason;
    run.failure = outcome.failure;
    run.completedAt = now;
    this.announce(run);
  }

  /** Asks the declaring extension to stop the body of the attempt `executionToken` (`factory.abort`); its answer is not awaited. */
  private abortBody(run: FactoryRun, executionToken: string | undefined): void {
    const owner = this.ownerOf(run.meta.name);
    if (!owner?.isOpen || executionToken === undefined) return;
    const runId = run.runId;
    void owner
      .sendRequest("factory.abort", { sessionId: this.host.sessionId, runId, executionToken })
      .catch((error: unknown) => this.host.logger.debug(`factory.abort for run ${runId} was not answered: ${errorMessage(error)}`));
  }

  private async drainAgents(run: FactoryRun): Promise<void> {
    await Promise.allSettled([...run.liveAgents]);
  }

  private announce(run: FactoryRun): void {
    this.host.runUpdated(run.runId, run.touch());
  }

  private declared(name: string): DeclaredFactory {
    const matches = this.host.declaredFactories().filter((candidate) => candidate.meta.name === name);
    const declared = matches.at(-1);
    if (!declared) {
      const known = [...new Set(this.host.declaredFactories().map((candidate) => candidate.meta.name))];
      throw invalidParams(`No factory named "${name}" is declared in this session (declared: ${known.join(", ") || "none"})`, { code: "factory_not_found", name });
    }
    return declared;
  }

  private ownerOf(name: string): ClientPort | undefined {
    return this.host.declaredFactories().filter((candidate) => candidate.meta.name === name).at(-1)?.owner;
  }

  private find(runId: string): FactoryRun {
    const run = this.runs.get(runId);
    if (!run) throw invalidParams(`No factory run ${runId} exists in this session`, { code: "not_found", runId });
    return run;
  }

  /** The run, when `executionToken` is its attempt under way. */
  private attemptOf(runId: string, executionToken: string): FactoryRun {
    const run = this.find(runId);
    if (run.executionToken !== executionToken) {
      throw invalidParams(`The execution token is not that of factory run ${runId}'s attempt under way (the attempt ended, or the run was cancelled)`, { code: "stale_execution_token", runId });
    }
    return run;
  }
}

function resumeRefused(code: ResumeRefusal, runId: string, message: string): TandemError {
  return invalidParams(message, { code, runId });
}

/** A sub-agent's reply as the JSON value a schema asked for. */
function parseJsonAnswer(text: string): unknown {
  const trimmed = text.trim().replace(/^```(?:json)?\s*/i, "").replace(/\s*```$/, "");
  try {
    return JSON.parse(trimmed);
  } catch {
    throw new TandemError(ErrorCodes.InvalidRequest, `The sub-agent did not reply with JSON as its schema asked (its reply began: ${JSON.stringify(text.slice(0, 120))})`, { code: "factory_agent_not_json" });
  }
}
