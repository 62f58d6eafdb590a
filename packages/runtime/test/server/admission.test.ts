/**
 * The bounds on TCP clients that have not authenticated: unauthenticated connections per peer and in
 * total, and token guesses per peer (a token bucket on a clock the test moves).
 */
import { describe, expect, it } from "vitest";
import { GuessThrottle } from "../../src/server/admission/guess-throttle.js";
import { admissionLimitsFromEnv, defaultAdmissionLimits, PendingConnections } from "../../src/server/admission/limits.js";

describe("PendingConnections", () => {
  it("refuses a peer's newcomer beyond its share, and anyone's beyond the total except this OS user's", () => {
    const pending = new PendingConnections({ perPeer: 2, total: 3 }, "uid 1000");
    const first = pending.take("uid 65534");
    const second = pending.take("uid 65534");
    expect("release" in first && "release" in second).toBe(true);
    expect(pending.take("uid 65534")).toEqual({ refusal: expect.stringMatching(/too many unauthenticated connections from uid 65534 \(limit 2\)/) });

    expect("release" in pending.take("uid 42")).toBe(true);
    expect(pending.take("uid 43")).toEqual({ refusal: expect.stringMatching(/too many unauthenticated connections in total \(limit 3\)/) });
    // The runtime's own user is bounded only by its share, and is not counted in the total.
    expect("release" in pending.take("uid 1000")).toBe(true);
    expect("release" in pending.take("uid 1000")).toBe(true);
    expect("refusal" in pending.take("uid 1000")).toBe(true);
    expect(pending.size).toBe(3);

    if ("release" in first) {
      first.release();
      first.release();
    }
    expect(pending.size).toBe(2);
    expect("release" in pending.take("uid 43")).toBe(true);
    expect("refusal" in pending.take("uid 44")).toBe(true);
  });

  it("reads its bounds from the environment, keeping the defaults for missing or invalid values", () => {
    expect(admissionLimitsFromEnv({})).toEqual(defaultAdmissionLimits);
    expect(admissionLimitsFromEnv({ TANDEM_TCP_MAX_UNAUTHENTICATED_PER_USER: "4", TANDEM_TCP_MAX_UNAUTHENTICATED: "9", TANDEM_TCP_AUTH_TIMEOUT_MS: "1500" })).toMatchObject({
      perPeer: 4,
      total: 9,
      authTimeoutMs: 1500,
    });
    expect(admissionLimitsFromEnv({ TANDEM_TCP_MAX_UNAUTHENTICATED_PER_USER: "-1", TANDEM_TCP_AUTH_TIMEOUT_MS: "soon" })).toEqual(defaultAdmissionLimits);
  });
});

describe("GuessThrottle", () => {
  it("lets a burst of wrong guesses through, then one per 1/rate seconds; other peers are not slowed", () => {
    let now = 0;
    const throttle = new GuessThrottle(3, 10, () => now);
    for (let guess = 0; guess < 3; guess += 1) {
      const allowed = throttle.begin("uid 65534");
      if (!("failed" in allowed)) throw new Error(`guess ${guess} was throttled`);
      allowed.failed();
    }
    expect(throttle.begin("uid 65534")).toEqual({ retryAfterMs: 100 });
    expect("failed" in throttle.begin("uid 0")).toBe(true);

    now = 100;
    const next = throttle.begin("uid 65534");
    expect("failed" in next).toBe(true);
    expect(throttle.begin("uid 65534")).toEqual({ retryAfterMs: 100 });
  });

  it("counts guesses still being checked, so parallel connections cannot overrun the budget; a right token costs nothing", () => {
    let now = 0;
    const throttle = new GuessThrottle(2, 10, () => now);
    const first = throttle.begin("uid 65534");
    const second = throttle.begin("uid 65534");
    expect(throttle.begin("uid 65534")).toEqual({ retryAfterMs: 100 });
    if (!("settled" in first) || !("settled" in second)) throw new Error("throttled too early");
    first.settled();
    second.settled();
    second.failed(); // once settled, a guess is not charged again
    expect("settled" in throttle.begin("uid 65534")).toBe(true);
  });
});
