/** How many clients may wait unauthenticated on a TCP runtime, and for how long. */
export interface AdmissionLimits {
  /** Unauthenticated connections one peer (an OS user on loopback, else an address) may hold at once. */
  perPeer: number;
  /** Unauthenticated connections of all other peers together (the runtime's own OS user is outside it). */
  total: number;
  /** How long a client has to authenticate (`connect` with the token) after connecting. */
  authTimeoutMs: number;
  /** Wrong tokens one peer may send at once before it is throttled ({@link GuessThrottle}'s burst). */
  guessBurst: number;
  /** Wrong tokens per second one peer may send after its burst. */
  guessesPerSecond: number;
}

/** The limits unless the environment says otherwise. */
export const defaultAdmissionLimits: AdmissionLimits = { perPeer: 16, total: 64, authTimeoutMs: 5000, guessBurst: 10, guessesPerSecond: 10 };

/**
 * Reads `TANDEM_TCP_MAX_UNAUTHENTICATED_PER_USER`, `TANDEM_TCP_MAX_UNAUTHENTICATED` and
 * `TANDEM_TCP_AUTH_TIMEOUT_MS`; a missing or invalid value (not a positive number) keeps the default.
 *
 * @example
 * admissionLimitsFromEnv({ TANDEM_TCP_MAX_UNAUTHENTICATED_PER_USER: "4" }).perPeer; // 4
 */
export function admissionLimitsFromEnv(env: NodeJS.ProcessEnv): AdmissionLimits {
  const positive = (value: string | undefined, fallback: number): number => {
    const number = Number(value);
    return value !== undefined && Number.isFinite(number) && number > 0 ? Math.floor(number) : fallback;
  };
  return {
    ...defaultAdmissionLimits,
    perPeer: positive(env.TANDEM_TCP_MAX_UNAUTHENTICATED_PER_USER, defaultAdmissionLimits.perPeer),
    total: positive(env.TANDEM_TCP_MAX_UNAUTHENTICATED, defaultAdmissionLimits.total),
    authTimeoutMs: positive(env.TANDEM_TCP_AUTH_TIMEOUT_MS, defaultAdmissionLimits.authTimeoutMs),
  };
}

/** A slot taken in {@link PendingConnections}; give it back once, when the connection is decided or closed. */
export interface PendingSlot {
  release(): void;
}

/**
 * Counts the connections that have not authenticated yet, per peer and in total, and refuses a
 * newcomer beyond either bound. The runtime's own OS user (`ownPeer`) is bounded only per peer (it
 * neither counts toward the total nor is refused by it), so a flood of other users never locks it out.
 *
 * @example
 * const slot = pending.take("uid 65534");
 * if ("refusal" in slot) return refuse(slot.refusal);
 * onDecided(() => slot.release());
 */
export class PendingConnections {
  private readonly byPeer = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly limits: Pick<AdmissionLimits, "perPeer" | "total">,
    private readonly ownPeer: string | undefined,
  ) {}

  /** A slot for one more unauthenticated connection of `peer`, or why there is none. */
  take(peer: string): PendingSlot | { refusal: string } {
    const held = this.byPeer.get(peer) ?? 0;
    if (held >= this.limits.perPeer) {
      return { refusal: `too many unauthenticated connections from ${peer} (limit ${this.limits.perPeer}); authenticate or close one first` };
    }
    if (peer !== this.ownPeer && this.total >= this.limits.total) {
      return { refusal: `too many unauthenticated connections in total (limit ${this.limits.total}); try again shortly` };
    }
    const counted = peer !== this.ownPeer;
    this.byPeer.set(peer, held + 1);
    if (counted) this.total += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        if (counted) this.total -= 1;
        const left = (this.byPeer.get(peer) ?? 1) - 1;
        if (left === 0) this.byPeer.delete(peer);
        else this.byPeer.set(peer, left);
      },
    };
  }

  /** Unauthenticated connections held now by peers other than this OS user. */
  get size(): number {
    return this.total;
  }
}
