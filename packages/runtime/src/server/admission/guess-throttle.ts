/** One token guess let through by {@link GuessThrottle}: report how it ended, once. */
export interface Guess {
  /** The token was wrong: it uses up one of the peer's guesses. */
  failed(): void;
  /** The token was right (or the connection went before it was checked): nothing is used up. */
  settled(): void;
}

interface Budget {
  /** Guesses left, refilled continuously up to the burst. */
  level: number;
  updatedAt: number;
  /** Guesses let through and not yet decided. */
  inFlight: number;
}

/** Peers remembered at most; beyond, those with a full budget and nothing in flight are forgotten. */
const MAX_REMEMBERED_PEERS = 4096;

/**
 * Throttles connection-token guessing per peer (an OS user on loopback, else an address): a token
 * bucket of `burst` wrong guesses, refilled at `perSecond`. A guess is let through only if the
 * peer's budget covers it and every guess of that peer still being checked, so parallel
 * connections cannot overrun it; a right token costs nothing. Peers have separate budgets, so one
 * user's guessing never slows another user down.
 *
 * @example
 * const guess = throttle.begin("uid 65534");
 * if ("retryAfterMs" in guess) return refuse(`retry in ${guess.retryAfterMs} ms`);
 * (await tokenMatches(token, given)) ? guess.settled() : guess.failed();
 */
export class GuessThrottle {
  private readonly budgets = new Map<string, Budget>();

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Lets one guess of `peer` through, or says how long until one would be. */
  begin(peer: string): Guess | { retryAfterMs: number } {
    const budget = this.refilled(peer);
    const available = budget.level - budget.inFlight;
    if (available < 1) return { retryAfterMs: Math.ceil(((1 - available) * 1000) / this.perSecond) };
    budget.inFlight += 1;
    let done = false;
    const finish = (cost: number): void => {
      if (done) return;
      done = true;
      const current = this.refilled(peer);
      current.inFlight -= 1;
      current.level -= cost;
    };
    return { failed: () => finish(1), settled: () => finish(0) };
  }

  private refilled(peer: string): Budget {
    const now = this.now();
    const budget = this.budgets.get(peer);
    if (!budget) {
      this.forgetIdlePeers();
      const fresh = { level: this.burst, updatedAt: now, inFlight: 0 };
      this.budgets.set(peer, fresh);
      return fresh;
    }
    budget.level = Math.min(this.burst, budget.level + ((now - budget.updatedAt) * this.perSecond) / 1000);
    budget.updatedAt = now;
    return budget;
  }

  private forgetIdlePeers(): void {
    if (this.budgets.size < MAX_REMEMBERED_PEERS) return;
    const now = this.now();
    for (const [peer, budget] of this.budgets) {
      const level = budget.level + ((now - budget.updatedAt) * this.perSecond) / 1000;
      if (budget.inFlight === 0 && level >= this.burst) this.budgets.delete(peer);
    }
  }
}
