import type { SessionEventData } from "@tandem/protocol";
import type { ModelUsage } from "../providers/types.js";

type ModelTotals = {
  requests: { count: number; cost: number };
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
};

/** Why a session ended, as `session.shutdown` reports it. */
export interface SessionEnding {
  type: "routine" | "error";
  reason?: string;
}

/** Usage totals of a session, reported in `session.shutdown`. */
export class SessionMetrics {
  private readonly perModel = new Map<string, ModelTotals>();
  private apiDurationMs = 0;
  private requests = 0;
  private linesAdded = 0;
  private linesRemoved = 0;
  private readonly filesModified = new Set<string>();
  private lastCall = { inputTokens: 0, outputTokens: 0 };

  constructor(private readonly startTime: Date) {}

  /** Adds one model call. */
  recordModelCall(model: string, usage: ModelUsage, durationMs: number): void {
    this.requests++;
    this.apiDurationMs += durationMs;
    const totals = this.perModel.get(model) ?? {
      requests: { count: 0, cost: 0 },
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
    totals.requests.count++;
    totals.requests.cost++;
    totals.usage.inputTokens += usage.inputTokens ?? 0;
    totals.usage.outputTokens += usage.outputTokens ?? 0;
    totals.usage.cacheReadTokens += usage.cacheReadTokens ?? 0;
    totals.usage.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
    this.perModel.set(model, totals);
    this.lastCall = { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 };
  }

  /** Adds a file change: counts the `+` and `-` lines of its unified diff. */
  recordFileChange(change: { path: string; diff: string }): void {
    this.filesModified.add(change.path);
    for (const line of change.diff.split("\n")) {
      if (line.startsWith("+") && !line.startsWith("+++")) this.linesAdded++;
      else if (line.startsWith("-") && !line.startsWith("---")) this.linesRemoved++;
    }
  }

  /**
   * `session.usage.getMetrics`: the totals so far. Tandem does not price requests: the cost of a
   * request is counted as 1, as in `session.shutdown`.
   */
  usageMetrics(currentModel: string, userRequests: number) {
    return {
      totalPremiumRequestCost: this.requests,
      totalUserRequests: userRequests,
      totalApiDurationMs: this.apiDurationMs,
      sessionStartTime: this.startTime.toISOString(),
      codeChanges: { linesAdded: this.linesAdded, linesRemoved: this.linesRemoved, filesModifiedCount: this.filesModified.size, filesModified: [...this.filesModified] },
      modelMetrics: Object.fromEntries([...this.perModel].map(([model, totals]) => [model, { requests: { ...totals.requests }, usage: { ...totals.usage } }])),
      currentModel,
      lastCallInputTokens: this.lastCall.inputTokens,
      lastCallOutputTokens: this.lastCall.outputTokens,
    };
  }

  /** The `session.shutdown` payload; `ending` says why the session ended (routine unless an error ended it). */
  shutdownData(currentModel: string, ending: SessionEnding = { type: "routine" }): SessionEventData<"session.shutdown"> {
    return {
      shutdownType: ending.type,
      ...(ending.reason !== undefined ? { errorReason: ending.reason } : {}),
      totalPremiumRequests: this.requests,
      totalApiDurationMs: this.apiDurationMs,
      sessionStartTime: this.startTime.getTime(),
      codeChanges: { linesAdded: this.linesAdded, linesRemoved: this.linesRemoved, filesModified: [...this.filesModified] },
      modelMetrics: Object.fromEntries(this.perModel),
      currentModel,
    };
  }
}
