import type { JobMessage } from './webhook-job';
import { SLOW_ENDPOINT_MS } from './webhook-lag';

/** A lane may keep waiting what its endpoint can take in about this long. */
const TARGET_WAIT_MS = 1000;
/** Weight of the latest request in the latency average. */
const LATENCY_WEIGHT = 0.2;
/** An idle lane forgets its endpoint's latency after this long. */
const STALE_AFTER_MS = 60_000;
/**
 * Requests in flight and none answered for this long: the endpoint is taken as stuck, and that
 * time as its latency. Shorter pauses (the AS's or the endpoint's machine busy for a moment) do
 * not count: taken at once, a 300 ms pause cut a fast lane's wait list to a tenth and sent the
 * rest back to the queue for a second, the burst's deliveries then a second late.
 */
const STUCK_AFTER_MS = 1000;
/**
 * Requests in flight at most to an endpoint not shown to be fast (no answer yet, an average over
 * SLOW_ENDPOINT_MS, or stuck): a slow or tarpitting endpoint holds no more of the replica's
 * connections than this, whatever WEBHOOK_CONCURRENCY allows a fast one.
 */
export const SLOW_LANE_CONCURRENCY = 32;
/** A message handed back comes again after at least this long, and at most `MAX_RETRY_MS`. */
const MIN_RETRY_MS = 50;
export const MAX_RETRY_MS = 1000;

/**
 * One webhook's share of a replica: at most `concurrency` requests in flight (SLOW_LANE_CONCURRENCY
 * until its endpoint shows it is fast) and a local wait
 * list bounded by what the endpoint can take in about a second (its average latency, or how long
 * it has been stuck if longer), never less than `minWaiting`. A fast endpoint absorbs a large
 * batch; a slow or hanging one keeps only `concurrency + minWaiting` messages, the rest go back to
 * the queue for later, so it cannot take the replica's in-flight slots from the other webhooks.
 * Before the first response the endpoint is given the benefit of the doubt, up to
 * `maxWaitingUnknown`, shrinking as its first requests stay unanswered (past STUCK_AFTER_MS). A
 * message handed back comes again when the lane should reach it (`retryAfterMs`).
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

  /** Whether another request may start now (`slots`). */
  hasSlot(now: number): boolean {
    return this.running < this.slots(now);
  }

  /**
   * Requests in flight at most: `concurrency` to an endpoint that answers within SLOW_ENDPOINT_MS
   * on average, at most SLOW_LANE_CONCURRENCY to one that does not, has not answered yet, or is stuck.
   */
  slots(now: number): number {
    const fast = this.latencyMs !== undefined && this.latency(now) <= SLOW_ENDPOINT_MS;
    return fast ? this.concurrency : Math.min(this.concurrency, SLOW_LANE_CONCURRENCY);
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

  /**
   * When a message handed back from `position` in the wait list should come again (ms): about when
   * the lane reaches it at its endpoint's pace (`position + 1` requests, `concurrency` at a time),
   * from MIN_RETRY_MS (a fast lane full for a moment) to MAX_RETRY_MS (a slow or stuck endpoint:
   * its messages do not churn through the queue).
   */
  retryAfterMs(now: number, position = this.waiting.length): number {
    const paced = Math.ceil(((position + 1) * this.latency(now)) / this.slots(now));
    return Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, paced));
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
    const capacity = Math.max(this.minWaiting, Math.floor((this.slots(now) * TARGET_WAIT_MS) / this.latency(now)));
    return this.latencyMs === undefined ? Math.min(capacity, this.maxWaitingUnknown) : capacity;
  }

  /** The endpoint's pace (ms per request): its average, or how long it has been stuck once that is past STUCK_AFTER_MS and longer. */
  private latency(now: number): number {
    const stuck = this.running > 0 ? now - this.lastProgress : 0;
    return Math.max(this.latencyMs ?? 0, stuck >= STUCK_AFTER_MS ? stuck : 0, 1);
  }
}
