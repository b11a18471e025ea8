import type { ApplicationUpJson } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { WebhookDeliveryWorker, type WebhookWorkerConfig } from './webhook-delivery.worker';
import type { JobMessage, WebhookJob, WebhookJobQueue } from './webhook-job';
import { BUSY_UTILIZATION, SLOW_ENDPOINT_MS, WebhookLag } from './webhook-lag';

const lagOf = (ms: string, utilization = () => 1) => new WebhookLag(loadConfig({ AS_WEBHOOK_LAG_SHED_MS: ms }), utilization);

describe('WebhookLag', () => {
  it("is, over the webhooks that sent in the last half second, the smallest of each one's worst wait", () => {
    const lag = lagOf('100');
    expect(lag.lagMs(1000)).toBe(0);
    lag.record('a/fast', 80, 1000);
    lag.record('a/fast', 300, 1100);
    lag.record('a/fast', 120, 1200);
    expect(lag.lagMs(1200)).toBe(300);
    // A second webhook keeping up: the replica is not behind, only the first webhook's endpoint.
    lag.record('b/hook', 20, 1260);
    expect(lag.lagMs(1260)).toBe(20);
    // Half a second on, the first webhook's 300 ms no longer count: its next wait replaces them.
    lag.record('a/fast', 150, 1700);
    lag.record('b/hook', 180, 1700);
    expect(lag.lagMs(1700)).toBe(150);
    // Nothing sent for half a second: no lag.
    expect(lag.lagMs(2300)).toBe(0);
  });

  it('refuses none up to the threshold, every one from twice it, in proportion between', () => {
    const share = (waitMs: number) => {
      const lag = lagOf('100');
      lag.record('a/hook', waitMs, 0);
      const draws = Array.from({ length: 100 }, (_, i) => i / 100);
      return draws.filter((draw) => lag.refuse(0, draw)).length / draws.length;
    };
    expect(share(50)).toBe(0);
    expect(share(100)).toBe(0);
    expect(share(125)).toBe(0.25);
    expect(share(150)).toBe(0.5);
    expect(share(200)).toBe(1);
    expect(share(5000)).toBe(1);
  });

  it(`refuses nothing while the event loop is less than ${BUSY_UTILIZATION * 100} % busy (it waits on slow endpoints), nor when turned off (0)`, () => {
    let utilization = BUSY_UTILIZATION - 0.01;
    const lag = lagOf('100', () => utilization);
    lag.record('a/hook', 10_000, 0);
    expect(lag.refuse(0, 0)).toBe(false);
    utilization = BUSY_UTILIZATION;
    expect(lag.refuse(0, 0)).toBe(true);
    const off = lagOf('0');
    off.record('a/hook', 10_000, 0);
    expect(off.refuse(0, 0)).toBe(false);
  });

  it("samples the process's own event loop when not given a source", () => {
    const lag = new WebhookLag(loadConfig({}));
    lag.record('a/hook', 10_000);
    // An idle test process: its loop is far from busy.
    expect(lag.refuse(Date.now(), 0)).toBe(false);
    lag.onModuleDestroy();
  });
});

describe('WebhookDeliveryWorker → WebhookLag', () => {
  const config: WebhookWorkerConfig = {
    publicUrl: 'https://stack.example.com/api/v3',
    webhooks: {
      allowPrivateNetworks: true,
      timeoutMs: 1000,
      maxAttempts: 3,
      retryBaseMs: 10,
      retryMaxMs: 20,
      concurrency: 1,
      ackWaitMs: 30_000,
      queueMaxJobs: 1000,
    },
  };

  function job(receivedAgoMs: number, attempt = 1, webhookId = 'wh'): WebhookJob {
    const up = {
      end_device_ids: { device_id: 'dev', application_ids: { application_id: 'app' } },
      received_at: new Date(Date.now() - receivedAgoMs).toISOString(),
      uplink_message: {},
    };
    return {
      ids: { application_ids: { application_id: 'app' }, webhook_id: webhookId },
      up: up as unknown as ApplicationUpJson,
      kind: 'uplink_message',
      attempt,
    };
  }

  /** A worker on a queue the test feeds (`push`), with the active webhooks `get` gives, recording into `recorded`. */
  function startWorker(get: () => Promise<never[]>) {
    let handler: (m: JobMessage) => void = () => undefined;
    const queue = {
      start: (h: (m: JobMessage) => void) => (handler = h),
      stop: async () => undefined,
      close: async () => undefined,
    } as unknown as WebhookJobQueue;
    const recorded: Array<[string, number]> = [];
    const worker = new WebhookDeliveryWorker(
      queue,
      {} as never,
      { publish: () => undefined as never },
      config,
      { get },
      {
        record: (lane, ms) => void recorded.push([lane, ms]),
      },
    );
    worker.start();
    const push = (j: WebhookJob) => handler({ job: j, ack: () => undefined, nak: () => undefined, working: () => undefined });
    return { worker, recorded, push };
  }

  it('records, by webhook, the wait of each first attempt when it is sent (the queue and its lane), not of retries', async () => {
    // No active webhook: a job sent is dropped (acked) without a request; a lane's slot is taken until then.
    let release: () => void = () => undefined;
    const gate = new Promise<never[]>((res) => (release = () => res([])));
    const { worker, recorded, push } = startWorker(() => gate);

    push(job(400));
    expect(recorded).toHaveLength(1);
    expect(recorded[0][0]).toBe('app/wh');
    expect(recorded[0][1]).toBeGreaterThanOrEqual(400);
    expect(recorded[0][1]).toBeLessThan(1400);
    // The lane (concurrency 1) is busy: this one waits in it, measured when it is sent.
    push(job(50));
    // Another webhook's first attempt is measured; a retry is not.
    push(job(50, 1, 'other'));
    push(job(50, 2, 'third'));
    expect(recorded.map(([lane]) => lane)).toEqual(['app/wh', 'app/other']);
    // The first one done, the waiting one is sent: measured then.
    release();
    await new Promise((res) => setTimeout(res, 20));
    expect(recorded.map(([lane]) => lane)).toEqual(['app/wh', 'app/other', 'app/wh']);
    expect(recorded[2][1]).toBeGreaterThanOrEqual(50);
    await worker.stop();
  });

  it(`does not measure an endpoint slow by itself (requests over ${SLOW_ENDPOINT_MS} ms on average)`, async () => {
    // Each "request" (here: the look-up of the active webhooks) takes longer than a fast endpoint's.
    const { worker, recorded, push } = startWorker(() => new Promise<never[]>((res) => setTimeout(() => res([]), SLOW_ENDPOINT_MS + 50)));
    push(job(10));
    push(job(10));
    await new Promise((res) => setTimeout(res, 2 * SLOW_ENDPOINT_MS + 200));
    // The first, before the endpoint's speed was known; not the second, sent after a slow request.
    expect(recorded.map(([lane]) => lane)).toEqual(['app/wh']);
    await worker.stop();
  });
});
