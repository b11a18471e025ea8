import { Inject, Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';

/** A lane's worst wait counts for this long: without new measures the lane is taken as keeping up. */
const WINDOW_MS = 500;
/** The lag over lanes is computed again at most this often (it looks at every lane that sent lately). */
const RECOMPUTE_MS = 50;
/** How often the event loop's utilization is sampled, and over how long. */
const UTILIZATION_SAMPLE_MS = 250;
/** A webhook whose requests take longer than this on average is slow by itself: its waits are not measured. */
export const SLOW_ENDPOINT_MS = 250;
/** Below this event-loop utilization the replica is not what holds the deliveries back: no refusal. */
export const BUSY_UTILIZATION = 0.8;

/** The event loop's utilization (0..1) over the last sample, from Node's `performance.eventLoopUtilization`. */
export type UtilizationSource = () => number;
/** Injection token of a UtilizationSource other than the process's own (tests). */
export const UTILIZATION_SOURCE = Symbol('UTILIZATION_SOURCE');

/**
 * How far this replica's webhook deliveries are behind because the replica cannot keep up, for
 * the AS's admission (issue 31: the AS sheds at its door, before decoding, what its webhooks
 * could only deliver late). The worker records, for each first attempt it sends to an endpoint
 * that answers within `SLOW_ENDPOINT_MS` on average, how long after the AS received the message it
 * is sent (the queue, the lane, hand-backs for a full lane). The
 * lag is the smallest, over the webhooks that sent in the last half second, of each one's worst
 * wait: when the replica (or every replica: the queue is shared) cannot send as fast as it
 * queues, every webhook waits; when one endpoint is slow, only its own lane does, and the others
 * keep the lag low. And only while the replica's event loop is busy (utilization at least
 * `BUSY_UTILIZATION` over the last quarter second) does the lag count at all: a replica waiting on
 * slow endpoints is idle, and refusing uplinks would not make them faster.
 *
 * The AS then refuses a share of new data uplinks at its door (`refuse`): none while the lag is
 * under AS_WEBHOOK_LAG_SHED_MS, every one from twice it on, in proportion between, so the queue
 * drains and what is delivered stays on time.
 */
@Injectable()
export class WebhookLag implements OnModuleDestroy {
  private readonly thresholdMs: number;
  private readonly lanes = new Map<string, { worstMs: number; at: number }>();
  private computed = { lagMs: 0, at: -Infinity };
  private readonly utilization: UtilizationSource;
  private readonly sampler?: NodeJS.Timeout;

  constructor(@Inject(STACK_CONFIG) config: Pick<StackConfig, 'as'>, @Optional() @Inject(UTILIZATION_SOURCE) utilization?: UtilizationSource) {
    this.thresholdMs = config.as.webhookLagShedMs;
    if (utilization) this.utilization = utilization;
    else {
      let last = performance.eventLoopUtilization();
      let value = 0;
      this.sampler = setInterval(() => {
        const now = performance.eventLoopUtilization();
        value = performance.eventLoopUtilization(now, last).utilization;
        last = now;
      }, UTILIZATION_SAMPLE_MS);
      this.sampler.unref();
      this.utilization = () => value;
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.sampler);
  }

  /** A first attempt of webhook `lane` sent `waitedMs` after the AS received its message. */
  record(lane: string, waitedMs: number, now = Date.now()): void {
    const entry = this.lanes.get(lane);
    if (!entry) this.lanes.set(lane, { worstMs: waitedMs, at: now });
    else if (now - entry.at > WINDOW_MS || waitedMs >= entry.worstMs) {
      entry.worstMs = waitedMs;
      entry.at = now;
    }
  }

  /** The smallest worst wait (ms) over the webhooks that sent in the last half second; 0 when none did. */
  lagMs(now = Date.now()): number {
    if (now - this.computed.at < RECOMPUTE_MS) return this.computed.lagMs;
    let lag = Infinity;
    for (const [lane, entry] of this.lanes) {
      if (now - entry.at > WINDOW_MS) this.lanes.delete(lane);
      else lag = Math.min(lag, entry.worstMs);
    }
    this.computed = { lagMs: Number.isFinite(lag) ? lag : 0, at: now };
    return this.computed.lagMs;
  }

  /** Whether to refuse one more data uplink now; `draw` is uniform in [0, 1). */
  refuse(now = Date.now(), draw = Math.random()): boolean {
    if (this.thresholdMs <= 0 || this.utilization() < BUSY_UTILIZATION) return false;
    const over = (this.lagMs(now) - this.thresholdMs) / this.thresholdMs;
    return over > 0 && draw < over;
  }
}
