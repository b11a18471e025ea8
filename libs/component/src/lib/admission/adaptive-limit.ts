export interface AdaptiveLimitOptions {
  /** The limit never goes below this (the calls a healthy peer always gets). */
  min: number;
  /** Nor above this (and starts here). */
  max: number;
  /** The factor a refusal multiplies the limit by (0..1). */
  backoff?: number;
  /**
   * The limit is lowered at most once in this many ms (about the time the peer takes to answer):
   * the refusals of one congested moment arrive together and must not cut it once each.
   */
  decreaseIntervalMs?: number;
  now?: () => number;
}

/**
 * How many calls to a peer may be in flight at once, found by additive increase and
 * multiplicative decrease (as TCP's congestion window, or Netflix's concurrency-limits): every
 * answered call raises the limit by 1/limit (about one per limit's worth of calls), every call the
 * peer refused because it was overloaded lowers it by `backoff` (at most once per
 * `decreaseIntervalMs`, as TCP halves its window once per round trip). A caller that finds the limit
 * reached does not make the call: when the peer sheds load, its callers shed it before spending
 * anything on it, and take the peer's capacity back as soon as it answers again.
 */
export class AdaptiveLimit {
  private limit: number;
  private active = 0;
  private readonly backoff: number;
  private readonly decreaseIntervalMs: number;
  private readonly now: () => number;
  private lastDecrease = -Infinity;

  constructor(private readonly o: AdaptiveLimitOptions) {
    this.limit = o.max;
    this.backoff = o.backoff ?? 0.9;
    this.decreaseIntervalMs = o.decreaseIntervalMs ?? 100;
    this.now = o.now ?? Date.now;
  }

  get inFlight(): number {
    return this.active;
  }

  get current(): number {
    return Math.floor(this.limit);
  }

  /** Takes a place for a call: false when the limit is reached (the call is not to be made). */
  tryAcquire(): boolean {
    if (this.active >= Math.floor(this.limit)) return false;
    this.active++;
    return true;
  }

  /** Gives the place back with the call's outcome: `overloaded` when the peer refused it for load, `answered` for any other answer, `failed` for no answer. */
  release(outcome: 'answered' | 'overloaded' | 'failed'): void {
    this.active--;
    if (outcome === 'answered') this.limit = Math.min(this.o.max, this.limit + 1 / this.limit);
    else if (outcome === 'overloaded') {
      const now = this.now();
      if (now - this.lastDecrease < this.decreaseIntervalMs) return;
      this.lastDecrease = now;
      this.limit = Math.max(this.o.min, this.limit * this.backoff);
    }
  }
}
