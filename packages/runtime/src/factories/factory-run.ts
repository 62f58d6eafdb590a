import type { FactoryLimits, FactoryMeta, FactoryRunResult, FactoryRunStatus, FactoryRunSummary } from "@tandem/protocol";
import { Semaphore } from "../agents/semaphore.js";

/** Statuses a run never leaves. */
const terminalStatuses: ReadonlySet<FactoryRunStatus> = new Set(["completed", "halted", "cancelled", "error"]);

/** Whether `status` is terminal (completed, halted, cancelled or error). */
export function isTerminal(status: FactoryRunStatus): boolean {
  return terminalStatuses.has(status);
}

/** One progress line of a run, as recorded. */
export type ProgressRecord = {
  seq: number;
  attempt: number;
  phaseId: string | null;
  recordedAt: number;
  kind: "log" | "phase";
  text: string;
};

/** One phase of a run: declared in the factory's meta, or first named by the body. */
export type PhaseRecord = {
  id: string;
  ordinal: number | null;
  title: string;
  detail?: string;
  entryCount: number;
  lastEnteredRunAttempt: number;
  startedAt?: number;
  completedAt?: number;
  accumulatedActiveMs: number;
  totalAgentCount: number;
  liveAgentCount: number;
};

/** One sub-agent a run started. */
export type AgentRecord = {
  agentId: string;
  toolCallId: string;
  phaseId: string | null;
  label: string;
  agentType: string;
  status: "running" | "completed" | "failed" | "cancelled";
  requestedModel?: string;
  startedAt: number;
  completedAt?: number;
};

/**
 * The state of one factory run: identity, arguments, status and result, the attempts made, the
 * journal of memoised steps (kept across attempts), progress lines, phases and sub-agents. The
 * revision grows with every change; `factory.run_updated` carries it.
 */
export class FactoryRun {
  status: FactoryRunStatus = "pending";
  revision = 0;
  readonly createdAt = Date.now();
  startedAt: number | null = null;
  updatedAt = this.createdAt;
  completedAt: number | null = null;
  /** Attempts started (the first run is attempt 1; each resume adds one). */
  attempt = 0;
  /** The token of the attempt under way; requests carrying another one are refused. */
  executionToken: string | undefined;
  /** Aborts the attempt under way (its sub-agents stop). */
  controller = new AbortController();
  /** Bounds the attempt's sub-agents running at once (`maxConcurrentSubagents`), when limited. */
  agentSlots: Semaphore | undefined;
  result: unknown;
  error: string | undefined;
  reason: string | undefined;
  failure: Record<string, unknown> | undefined;
  /** Active time of finished attempts, plus the start of the attempt under way. */
  activeMs = 0;
  activeSince: number | null = null;
  readonly journal = new Map<string, unknown>();
  readonly progress: ProgressRecord[] = [];
  readonly phases: PhaseRecord[];
  readonly agents: AgentRecord[] = [];
  /** The sub-agents still running, to wait for when an attempt ends. */
  readonly liveAgents = new Set<Promise<unknown>>();
  currentPhaseId: string | null = null;
  private nextSeq = 1;

  constructor(
    readonly runId: string,
    readonly meta: FactoryMeta,
    readonly args: unknown,
    readonly limits: FactoryLimits,
  ) {
    this.phases = meta.phases.map((phase, ordinal) => ({
      id: `phase-${ordinal + 1}`,
      ordinal,
      title: phase.title,
      ...(phase.detail !== undefined ? { detail: phase.detail } : {}),
      entryCount: 0,
      lastEnteredRunAttempt: 0,
      accumulatedActiveMs: 0,
      totalAgentCount: 0,
      liveAgentCount: 0,
    }));
  }

  /** The run changed: a new revision. */
  touch(): number {
    this.revision++;
    this.updatedAt = Date.now();
    return this.revision;
  }

  /** Records progress lines of the attempt under way; a `phase` line enters that phase. */
  record(lines: ReadonlyArray<{ kind: "log" | "phase"; text: string }>): void {
    const now = Date.now();
    for (const line of lines) {
      if (line.kind === "phase") this.enterPhase(line.text, now);
      this.progress.push({ seq: this.nextSeq++, attempt: this.attempt, phaseId: this.currentPhaseId, recordedAt: now, kind: line.kind, text: line.text });
    }
  }

  private enterPhase(title: string, now: number): void {
    this.closePhase(now);
    let phase = this.phases.find((candidate) => candidate.title === title);
    if (!phase) {
      phase = { id: `phase-added-${this.phases.length + 1}`, ordinal: null, title, entryCount: 0, lastEnteredRunAttempt: 0, accumulatedActiveMs: 0, totalAgentCount: 0, liveAgentCount: 0 };
      this.phases.push(phase);
    }
    phase.entryCount++;
    phase.lastEnteredRunAttempt = this.attempt;
    phase.startedAt = now;
    delete phase.completedAt;
    this.currentPhaseId = phase.id;
  }

  /** Closes the current phase (a new one entered, or the attempt ended). */
  closePhase(now: number): void {
    const current = this.phases.find((phase) => phase.id === this.currentPhaseId);
    if (!current) return;
    current.completedAt = now;
    current.accumulatedActiveMs += now - (current.startedAt ?? now);
    this.currentPhaseId = null;
  }

  /** The envelope `session.factory.run` / `getRun` / `cancel` answer. */
  envelope(): FactoryRunResult {
    return {
      runId: this.runId,
      status: this.status,
      ...(this.status === "completed" && this.result !== undefined ? { result: this.result } : {}),
      ...(this.error !== undefined ? { error: this.error } : {}),
      ...(this.reason !== undefined ? { reason: this.reason } : {}),
      ...(this.failure !== undefined ? { failure: this.failure } : {}),
    };
  }

  /** The run as `session.factory.listRuns` lists it. */
  summary(): FactoryRunSummary {
    const now = Date.now();
    const current = this.phases.find((phase) => phase.id === this.currentPhaseId);
    return {
      runId: this.runId,
      factoryName: this.meta.name,
      description: this.meta.description,
      status: this.status,
      revision: this.revision,
      createdAt: this.createdAt,
      startedAt: this.startedAt,
      updatedAt: this.updatedAt,
      completedAt: this.completedAt,
      currentPhase: current ? { id: current.id, ordinal: current.ordinal } : null,
      declaredPhaseCount: this.meta.phases.length,
      liveAgentCount: this.agents.filter((agent) => agent.status === "running").length,
      totalSpawnedAgentCount: this.agents.length,
      consumed: { activeMs: this.activeMs + (this.activeSince !== null ? now - this.activeSince : 0), subagents: this.agents.length, nanoAiu: 0 },
      declaredLimits: this.meta.limits ?? {},
      approved: this.limits,
      observedAt: now,
      activeSegmentStartedAt: this.activeSince,
      terminal: isTerminal(this.status)
        ? {
            ...(this.reason !== undefined ? { reason: this.reason } : {}),
            ...(this.error !== undefined ? { error: this.error } : {}),
            ...(this.status === "completed" ? { resultPreview: preview(this.result) } : {}),
          }
        : null,
    };
  }
}

/** A bounded one-line preview of a result. */
function preview(result: unknown): string {
  const text = result === undefined ? "" : (JSON.stringify(result) ?? "");
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
