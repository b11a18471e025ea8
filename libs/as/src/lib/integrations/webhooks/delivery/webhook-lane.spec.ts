import type { JobMessage } from './webhook-job';
import { MAX_RETRY_MS, SLOW_LANE_CONCURRENCY, WebhookLane } from './webhook-lane';

const message = () => ({}) as JobMessage;

describe('WebhookLane', () => {
  it('bounds requests in flight by the concurrency', () => {
    const lane = new WebhookLane(2, 3, 5);
    expect(lane.hasSlot(0)).toBe(true);
    lane.started(0);
    lane.started(0);
    expect(lane.hasSlot(0)).toBe(false);
    lane.completed(10, 10);
    expect(lane.hasSlot(10)).toBe(true);
  });

  it('gives WEBHOOK_CONCURRENCY only to an endpoint that shows it is fast: an unknown, slow or stuck one gets SLOW_LANE_CONCURRENCY', () => {
    const lane = new WebhookLane(128, 64, 500);
    expect(lane.slots(0)).toBe(SLOW_LANE_CONCURRENCY);
    lane.started(0);
    lane.completed(30, 30);
    expect(lane.slots(30)).toBe(128);
    // No answer for more than a second with requests in flight: stuck.
    lane.started(40);
    expect(lane.slots(1500)).toBe(SLOW_LANE_CONCURRENCY);
    // Answering, but slower than SLOW_ENDPOINT_MS on average.
    for (let i = 0; i < 20; i++) {
      lane.started(1600 + i);
      lane.completed(2000, 1600 + i);
    }
    expect(lane.slots(1700)).toBe(SLOW_LANE_CONCURRENCY);
  });

  it('before the first response, keeps up to maxWaitingUnknown, down to minWaiting as the first requests hang', () => {
    const lane = new WebhookLane(2, 3, 5);
    lane.started(0);
    for (let i = 0; i < 5; i++) {
      expect(lane.canWait(0)).toBe(true);
      lane.waiting.push(message());
    }
    expect(lane.canWait(0)).toBe(false);
    expect(lane.takeExcess(100)).toHaveLength(0);
    expect(lane.takeExcess(2000)).toHaveLength(2);
  });

  it('lets a fast endpoint keep about a second of work waiting', () => {
    const lane = new WebhookLane(4, 3, 5);
    lane.started(0);
    lane.completed(2, 2);
    lane.waiting.push(...Array.from({ length: 1999 }, message));
    expect(lane.canWait(2)).toBe(true);
    lane.waiting.push(message());
    expect(lane.canWait(2)).toBe(false);
  });

  it('hands back what waits beyond minWaiting once its endpoint hangs', () => {
    const lane = new WebhookLane(4, 3, 5);
    lane.started(0);
    lane.completed(2, 2);
    lane.started(10);
    lane.waiting.push(...Array.from({ length: 100 }, message));
    expect(lane.takeExcess(20)).toHaveLength(0);
    expect(lane.takeExcess(5000)).toHaveLength(97);
    expect(lane.waiting).toHaveLength(3);
  });

  it('keeps a fast lane whole through a pause shorter than a second with requests in flight', () => {
    const lane = new WebhookLane(32, 64, 500);
    lane.started(0);
    lane.completed(30, 30);
    lane.started(40);
    lane.waiting.push(...Array.from({ length: 600 }, message));
    // 300 ms without an answer (the machine busy for a moment): not a stuck endpoint.
    expect(lane.takeExcess(340)).toHaveLength(0);
    expect(lane.canWait(340)).toBe(true);
    // Past a second it is: the wait list shrinks to what it takes in about a second at that pace (21), at least minWaiting.
    expect(lane.takeExcess(1540)).toHaveLength(600 - 64);
  });

  it('hands a message back until about when the lane would reach it: soon on a fast lane, a second on a slow or stuck one', () => {
    const fast = new WebhookLane(32, 64, 500);
    fast.started(0);
    fast.completed(30, 30);
    fast.waiting.push(...Array.from({ length: 500 }, message));
    // 501 requests, 32 at a time, 30 ms each.
    expect(fast.retryAfterMs(30)).toBe(Math.ceil((501 * 30) / 32));
    expect(fast.retryAfterMs(30, 0)).toBe(50);

    const slow = new WebhookLane(4, 3, 5);
    slow.started(0);
    slow.completed(2000, 2000);
    expect(slow.retryAfterMs(2000, 3)).toBe(MAX_RETRY_MS);
    slow.started(3000);
    expect(slow.retryAfterMs(10_000, 0)).toBe(MAX_RETRY_MS);
  });

  it('is forgotten when idle for a while', () => {
    const lane = new WebhookLane(1, 1, 1);
    lane.started(0);
    lane.completed(1, 1);
    expect(lane.stale(1000)).toBe(false);
    expect(lane.stale(120_000)).toBe(true);
  });
});
