import type { SessionEventData } from "@tandem/protocol";
import type { ModelUsage } from "../providers/types.js";

type ModelTotals = {
  requests: { count: number; cost: number };
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
};

/** Usage totals of a session, reported in `session.shutdown`. */
export class SessionMetrics {
  private readonly perModel = new Map<string, ModelTotals>();
  private apiDurationMs = 0;
  private requests = 0;

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
  }

  /** The `session.shutdown` payload. */
  shutdownData(currentModel: string): SessionEventData<"session.shutdown"> {
    return {
      shutdownType: "routine",
      totalPremiumRequests: this.requests,
      totalApiDurationMs: this.apiDurationMs,
      sessionStartTime: this.startTime.getTime(),
      codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [] },
      modelMetrics: Object.fromEntries(this.perModel),
      currentModel,
    };
  }
}
