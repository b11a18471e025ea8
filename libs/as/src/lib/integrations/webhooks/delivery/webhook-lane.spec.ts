import type { JobMessage } from './webhook-job';
import { WebhookLane } from './webhook-lane';

const message = () => ({}) as JobMessage;

describe('WebhookLane', () => {
  it('bounds requests in flight by the concurrency', () => {
    const lane = new WebhookLane(2, 3, 5);
    expect(lane.hasSlot).toBe(true);
    lane.started(0);
    lane.started(0);
    expect(lane.hasSlot).toBe(false);
    lane.completed(10, 10);
    expect(lane.hasSlot).toBe(true);
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

  it('is forgotten when idle for a while', () => {
    const lane = new WebhookLane(1, 1, 1);
    lane.started(0);
    lane.completed(1, 1);
    expect(lane.stale(1000)).toBe(false);
    expect(lane.stale(120_000)).toBe(true);
  });
});
