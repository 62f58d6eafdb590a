import { describe, expect, it } from "vitest";
import { quotaSnapshotsOf } from "../../src/accounts/quota.js";

describe("quotaSnapshotsOf", () => {
  it("derives used requests from the entitlement and the percentage left, and takes the user's reset date over the snapshot time", () => {
    const snapshots = quotaSnapshotsOf({
      quota_reset_date: "2026-12-01",
      quota_snapshots: { premium_interactions: { entitlement: 50, percent_remaining: 12.5, overage_count: 1, overage_permitted: true, timestamp_utc: "2026-11-20T00:00:00Z" } },
    });
    expect(snapshots).toEqual({
      premium_interactions: {
        isUnlimitedEntitlement: false,
        entitlementRequests: 50,
        usedRequests: 44,
        usageAllowedWithExhaustedQuota: true,
        remainingPercentage: 12.5,
        overage: 1,
        overageAllowedWithExhaustedQuota: true,
        resetDate: "2026-12-01",
      },
    });
  });

  it("reads missing or malformed numbers as none used, skips entries that are not objects, and answers {} without snapshots", () => {
    const snapshots = quotaSnapshotsOf({ quota_snapshots: { chat: { entitlement: Number.NaN, percent_remaining: "lots" as unknown as number }, broken: null as unknown as undefined } });
    expect(snapshots).toEqual({
      chat: { isUnlimitedEntitlement: false, entitlementRequests: 0, usedRequests: 0, usageAllowedWithExhaustedQuota: false, remainingPercentage: 100, overage: 0, overageAllowedWithExhaustedQuota: false },
    });
    expect(quotaSnapshotsOf({ login: "nobody" })).toEqual({});
  });
});
