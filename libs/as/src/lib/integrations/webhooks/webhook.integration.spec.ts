import type { ApplicationUpJson, ApplicationWebhook } from '@lorawan/api';
import type { WebhookStore } from './webhook.store';
import type { WebhookJob, WebhookJobQueue } from './delivery/webhook-job';
import { WebhookIntegration } from './webhook.integration';

const hook = (id: string, fields: Partial<ApplicationWebhook>): ApplicationWebhook => ({
  ids: { application_ids: { application_id: 'app1' }, webhook_id: id },
  base_url: 'https://h.example',
  format: 'json',
  ...fields,
});
const up: ApplicationUpJson = { end_device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } }, uplink_message: { f_port: 1 } };

function setUp(webhooks: ApplicationWebhook[]) {
  const store = { listActive: jest.fn(async () => webhooks) } as unknown as WebhookStore & { listActive: jest.Mock };
  const activeWebhooks = { get: (app: string) => store.listActive(app) };
  const enqueued: WebhookJob[][] = [];
  const queue = { enqueue: jest.fn(async (jobs: WebhookJob[]) => void enqueued.push(jobs)) } as unknown as WebhookJobQueue;
  return { integration: new WebhookIntegration(activeWebhooks, queue), store, enqueued };
}

describe('WebhookIntegration', () => {
  it('queues one job per webhook with the message kind enabled ({} included), reading the registry once', async () => {
    const { integration, store, enqueued } = setUp([
      hook('a', { uplink_message: { path: '/up' } }),
      hook('b', { uplink_message: {} }),
      hook('c', { join_accept: {} }),
      hook('d', {}),
    ]);
    await integration.publish(up);
    expect(store.listActive).toHaveBeenCalledTimes(1);
    expect(store.listActive).toHaveBeenCalledWith('app1');
    expect(enqueued).toHaveLength(1);
    expect(enqueued[0].map((j) => [j.ids.webhook_id, j.kind, j.attempt, j.up])).toEqual([
      ['a', 'uplink_message', 1, up],
      ['b', 'uplink_message', 1, up],
    ]);
  });

  it('queues nothing when no webhook wants the message', async () => {
    const { integration, enqueued } = setUp([hook('c', { join_accept: {} })]);
    await integration.publish(up);
    expect(enqueued).toHaveLength(0);
  });

  it('rejects when the queue does not accept the jobs', async () => {
    const { integration } = setUp([hook('a', { uplink_message: {} })]);
    (integration as unknown as { queue: WebhookJobQueue }).queue.enqueue = async () => {
      throw new Error('no ack');
    };
    await expect(integration.publish(up)).rejects.toThrow('no ack');
  });
});
