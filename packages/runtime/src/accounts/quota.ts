import type { CopilotQuotaEntry, CopilotUser } from "./github-users.js";

/** One quota of `account.getQuota`, in the protocol's terms. */
export type QuotaSnapshot = {
  isUnlimitedEntitlement: boolean;
  /** Requests included per period; -1 when unlimited. */
  entitlementRequests: number;
  usedRequests: number;
  usageAllowedWithExhaustedQuota: boolean;
  remainingPercentage: number;
  overage: number;
  overageAllowedWithExhaustedQuota: boolean;
  resetDate?: string;
};

/**
 * The quotas of a Copilot user, by kind (`chat`, `completions`, `premium_interactions`…). Used
 * requests are derived from the entitlement and the percentage remaining; the reset date is the
 * user's (`quota_reset_date_utc`, else `quota_reset_date`), else the time the snapshot was taken.
 *
 * @example
 * quotaSnapshotsOf({ quota_snapshots: { chat: { entitlement: 100, percent_remaining: 75 } } }).chat?.usedRequests; // 25
 */
export function quotaSnapshotsOf(user: CopilotUser): Record<string, QuotaSnapshot> {
  const snapshots: Record<string, QuotaSnapshot> = {};
  const resetDate = user.quota_reset_date_utc ?? user.quota_reset_date;
  for (const [kind, entry] of Object.entries(user.quota_snapshots ?? {})) {
    if (!entry || typeof entry !== "object") continue;
    snapshots[kind] = snapshotOf(entry, resetDate);
  }
  return snapshots;
}

function snapshotOf(entry: CopilotQuotaEntry, userResetDate: string | undefined): QuotaSnapshot {
  const unlimited = entry.unlimited === true;
  const entitlement = finite(entry.entitlement) ?? 0;
  const remainingPercentage = unlimited ? 100 : (finite(entry.percent_remaining) ?? 100);
  const overagePermitted = entry.overage_permitted === true;
  const resetDate = userResetDate ?? entry.timestamp_utc;
  return {
    isUnlimitedEntitlement: unlimited,
    entitlementRequests: unlimited ? -1 : entitlement,
    usedRequests: unlimited ? 0 : Math.max(0, Math.round((entitlement * (100 - remainingPercentage)) / 100)),
    usageAllowedWithExhaustedQuota: unlimited || overagePermitted,
    remainingPercentage,
    overage: finite(entry.overage_count) ?? 0,
    overageAllowedWithExhaustedQuota: overagePermitted,
    ...(resetDate !== undefined ? { resetDate } : {}),
  };
}

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
