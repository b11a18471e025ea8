import type { JobMessage } from './webhook-job';

/** A lane may keep waiting what its endpoint can take in about this long. */
const TARGET_WAIT_MS = 1000;
/** Weight of the latest request in the latency average. */
const LATENCY_WEIGHT = 0.2;
/** An idle lane forgets its endpoint's latency after this long. */
const STALE_AFTER_MS = 60_000;

/**
 * One webhook's share of a replica: at most `concurrency` requests in flight and a local wait
 * list bounded by what the endpoint can take in about a second (its average latency, or how long
 * it has been stuck if longer), never less than `minWaiting`. A fast endpoint absorbs a large
 * batch; a slow or hanging one keeps only `concurrency + minWaiting` messages, the rest go back to
 * the queue for later, so it cannot take the replica's in-flight slots from the other webhooks.
 * Before the first response the endpoint is given the benefit of the doubt, up to
 * `maxWaitingUnknown`, shrinking as its first requests stay unanswered.
 */
export class WebhookLane {
  running = 0;
  readonly waiting: JobMessage[] = [];
  private latencyMs?: number;
  /** The last completion, or when the lane became busy after being idle. */
  private lastProgress = 0;

  constructor(
    private readonly concurrency: number,
    private readonly minWaiting: number,
    private readonly maxWaitingUnknown: number,
  ) {}

  get hasSlot(): boolean {
    return this.running < this.concurrency;
  }

  get idle(): boolean {
    return this.running === 0 && this.waiting.length === 0;
  }

  canWait(now: number): boolean {
    return this.waiting.length < this.capacity(now);
  }

  started(now: number): void {
    if (this.running === 0) this.lastProgress = Math.max(this.lastProgress, now);
    this.running++;
  }

  completed(durationMs: number, now: number): void {
    this.running--;
    this.latencyMs = this.latencyMs === undefined ? durationMs : this.latencyMs + LATENCY_WEIGHT * (durationMs - this.latencyMs);
    this.lastProgress = now;
  }

  /** Takes the waiting messages beyond the lane's current capacity (its endpoint got slower). */
  takeExcess(now: number): JobMessage[] {
    const capacity = this.capacity(now);
    return this.waiting.length > capacity ? this.waiting.splice(capacity) : [];
  }

  /** The endpoint's average request time (ms), undefined before its first response. */
  get averageLatencyMs(): number | undefined {
    return this.latencyMs;
  }

  /** Idle long enough that its latency no longer says anything. */
  stale(now: number): boolean {
    return this.idle && now - this.lastProgress > STALE_AFTER_MS;
  }

  private capacity(now: number): number {
    const stuck = this.running > 0 ? now - this.lastProgress : 0;
    const latency = Math.max(this.latencyMs ?? 0, stuck, 1);
    const capacity = Math.max(this.minWaiting, Math.floor((this.concurrency * TARGET_WAIT_MS) / latency));
    return this.latencyMs === undefined ? Math.min(capacity, this.maxWaitingUnknown) : capacity;
  }
}
