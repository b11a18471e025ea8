import { connect } from 'nats';
import { deleteWebhookStream, TEST_NATS_URL, uniqueSuffix } from '@lorawan/testing';
import { AckedPublisher } from './acked-publisher';
import { JetStreamJobQueue, webhookStreamName } from './jetstream-job-queue';
import { describeWebhookDeliveryConformance } from './webhook-delivery.conformance';
import type { WebhookJob, WebhookJobQueue } from './webhook-job';

describeWebhookDeliveryConformance(
  'JetStream (distributed)',
  async ({ ackWaitMs }) => {
    const subjectPrefix = `t${uniqueSuffix()}`;
    const open = () => JetStreamJobQueue.open({ url: TEST_NATS_URL, subjectPrefix, ackWaitMs, maxInFlight: 2000 });
    const queues: WebhookJobQueue[] = [await open()];
    return {
      queue: queues[0],
      reopen: async () => {
        const queue = await open();
        queues.push(queue);
        return queue;
      },
      remaining: async () => {
        const nc = await connect({ servers: TEST_NATS_URL });
        try {
          return (await (await nc.jetstreamManager()).streams.info(webhookStreamName(subjectPrefix))).state.messages;
        } finally {
          await nc.close();
        }
      },
      close: async () => {
        await Promise.all(queues.map((q) => q.close()));
        await deleteWebhookStream(subjectPrefix);
      },
    };
  },
  { redelivery: 'after-ack-wait' },
);

describe('AckedPublisher', () => {
  it('resolves on the stream ack and rejects when no stream takes the subject', async () => {
    const subjectPrefix = `t${uniqueSuffix()}`;
    const queue = await JetStreamJobQueue.open({ url: TEST_NATS_URL, subjectPrefix, ackWaitMs: 30_000, maxInFlight: 10 });
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const publisher = new AckedPublisher(nc, 2000);
      await expect(publisher.publish(`${subjectPrefix}.as.webhooks.deliver.app1.wh1`, new Uint8Array([123, 125]))).resolves.toBeUndefined();
      await expect(publisher.publish(`${subjectPrefix}.nothing.here`, new Uint8Array())).rejects.toThrow(/503|no responders/i);
      publisher.close();
    } finally {
      await nc.close();
      await queue.close();
      await deleteWebhookStream(subjectPrefix);
    }
  });
});

describe('JetStreamJobQueue bounds', () => {
  it('holds at most maxJobs jobs: beyond, enqueue fails with queue_full and the stream keeps what it had', async () => {
    const subjectPrefix = `t${uniqueSuffix()}`;
    const queue = await JetStreamJobQueue.open({ url: TEST_NATS_URL, subjectPrefix, ackWaitMs: 30_000, maxInFlight: 10, maxJobs: 3 });
    const job = (n: number): WebhookJob => ({
      ids: { application_ids: { application_id: 'app1' }, webhook_id: 'wh1' },
      up: { end_device_ids: { device_id: `dev${n}`, application_ids: { application_id: 'app1' } } } as WebhookJob['up'],
      kind: 'uplink_message',
      attempt: 1,
    });
    try {
      await queue.enqueue([job(1), job(2), job(3)]);
      await expect(queue.enqueue([job(4)])).rejects.toMatchObject({
        namespace: 'pkg/applicationserver/io/web',
        errorName: 'queue_full',
        attributes: { max_jobs: 3 },
      });
      expect(await queue.depth()).toBe(3);
    } finally {
      await queue.close();
      await deleteWebhookStream(subjectPrefix);
    }
  });
});
