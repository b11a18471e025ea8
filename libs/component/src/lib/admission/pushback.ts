export interface PushbackOptions {
  /** How much each refusal of the peer raises the share refused at the door. */
  up?: number;
  /** How much each answer of the peer lowers it. */
  down?: number;
  /** The share refused at most: some work always reaches the peer, so its answers can bring the share down again. */
  max?: number;
  /** The share halves every this many ms on its own: it never outlives the refusals that raised it, however little work comes. */
  halfLifeMs?: number;
  now?: () => number;
}

/**
 * The share of new work to refuse at a component's door while the next stage refuses the work it
 * is handed for load (ResourceExhausted), found from the peer's answers: each refusal raises it by
 * `up`, each answer lowers it by `down`, and it halves every `halfLifeMs` by itself. Under a
 * steady overload it settles where the peer refuses a small part of what still reaches it (about
 * `down / (up + down)`, 1 in 11 with the defaults, less at a low rate where the decay does more of
 * the lowering); once the peer keeps up again, or the work stops, it is gone within a few
 * half-lives. Unlike an in-flight limit (`AdaptiveLimit`), it works for a peer that refuses at
 * once: refusals take no time in flight. Work refused at the door costs nothing of what the
 * peer's refusal would have wasted.
 */
export class Pushback {
  private share = 0;
  private at = 0;
  private readonly up: number;
  private readonly down: number;
  private readonly max: number;
  private readonly halfLifeMs: number;
  private readonly now: () => number;

  constructor(o: PushbackOptions = {}) {
    this.up = o.up ?? 0.02;
    this.down = o.down ?? 0.002;
    this.max = o.max ?? 0.95;
    this.halfLifeMs = o.halfLifeMs ?? 500;
    this.now = o.now ?? Date.now;
  }

  /** The share (0..max) refused at the door now. */
  get current(): number {
    if (this.share === 0) return 0;
    const now = this.now();
    this.share *= 0.5 ** (Math.max(0, now - this.at) / this.halfLifeMs);
    this.at = now;
    if (this.share < 0.001) this.share = 0;
    return this.share;
  }

  /** The peer refused work for load. */
  refused(): void {
    const share = this.current;
    this.at = this.now();
    this.share = Math.min(this.max, share + this.up);
  }

  /** The peer took work (any answer but a refusal for load). */
  answered(): void {
    if (this.share > 0) this.share = Math.max(0, this.current - this.down);
  }

  /** Whether to refuse one more piece of work now; `draw` is uniform in [0, 1). */
  refuse(draw = Math.random()): boolean {
    return this.share > 0 && draw < this.current;
  }
}
