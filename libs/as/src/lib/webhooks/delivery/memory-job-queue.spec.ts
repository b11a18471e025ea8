import { MemoryJobQueue } from './memory-job-queue';
import type { JobMessage, WebhookJob } from './webhook-job';

const job = (n: number) => ({ attempt: n }) as WebhookJob;
const tick = () => new Promise((res) => setImmediate(res));

describe('MemoryJobQueue', () => {
  it('hands out at most maxInFlight unsettled messages, more as they are settled', async () => {
    const queue = new MemoryJobQueue(2);
    const got: JobMessage[] = [];
    queue.start((m) => got.push(m));
    await queue.enqueue([job(1), job(2), job(3)]);
    await tick();
    expect(got.map((m) => m.job.attempt)).toEqual([1, 2]);
    got[0].ack();
    got[0].ack();
    await tick();
    expect(got.map((m) => m.job.attempt)).toEqual([1, 2, 3]);
    expect(queue.size).toBe(2);
    await queue.close();
  });

  it('hands a nak-ed message out again after its delay', async () => {
    jest.useFakeTimers();
    try {
      const queue = new MemoryJobQueue(10);
      const got: JobMessage[] = [];
      queue.start((m) => got.push(m));
      await queue.enqueue([job(1)]);
      jest.runOnlyPendingTimers();
      expect(got).toHaveLength(1);
      got[0].nak(500);
      jest.advanceTimersByTime(499);
      expect(got).toHaveLength(1);
      jest.advanceTimersByTime(1);
      jest.runOnlyPendingTimers();
      expect(got).toHaveLength(2);
      expect(queue.size).toBe(1);
      await queue.close();
    } finally {
      jest.useRealTimers();
    }
  });

  it('refuses jobs beyond maxJobs (queue_full), all of a batch or none, and takes them again once there is room', async () => {
    const queue = new MemoryJobQueue(1, 3);
    const got: JobMessage[] = [];
    queue.start((m) => got.push(m));
    await queue.enqueue([job(1), job(2)]);
    await expect(queue.enqueue([job(3), job(4)])).rejects.toMatchObject({
      namespace: 'pkg/applicationserver/io/web',
      errorName: 'queue_full',
      attributes: { max_jobs: 3 },
    });
    expect(queue.size).toBe(2);
    await tick();
    got[0].ack();
    await queue.enqueue([job(3), job(4)]);
    expect(queue.size).toBe(3);
    await queue.close();
  });
});
