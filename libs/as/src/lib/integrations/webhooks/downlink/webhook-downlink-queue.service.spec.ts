import { type ApplicationWebhook, type RpcContext, type WebhookDownlinkQueueRequest } from '@lorawan/api';
import { Code, StackError } from '@lorawan/errors';
import type { WebhookStore } from '../webhook.store';
import type { DownlinkQueue } from '../../../downlinks/downlink-queue.service';
import { WebhookDownlinkQueue } from './webhook-downlink-queue.service';
import { errorOf } from '../../../testing/as-test-kit';

const ctx: RpcContext = {
  request_id: 'r',
  correlation_ids: [],
  caller: { kind: 'api-key', id: 'k', is_admin: false, key_rights: [], universal: false, rights: [] },
};
const webhook = (paused?: boolean): ApplicationWebhook =>
  ({
    ids: { application_ids: { application_id: 'app1' }, webhook_id: 'wh1' },
    base_url: 'http://127.0.0.1:9/',
    ...(paused ? { paused } : {}),
  }) as ApplicationWebhook;
const request = (webhook_id = 'wh1'): WebhookDownlinkQueueRequest =>
  ({
    application_ids: { application_id: 'app1' },
    webhook_id,
    device_id: 'dev1',
    downlinks: [{ f_port: 15, frm_payload: 'AQID' }],
  }) as WebhookDownlinkQueueRequest;

describe('WebhookDownlinkQueue', () => {
  let stored: ApplicationWebhook | undefined;
  let queue: { push: jest.Mock; replace: jest.Mock };
  let service: WebhookDownlinkQueue;
  beforeEach(() => {
    stored = webhook();
    queue = { push: jest.fn().mockResolvedValue({}), replace: jest.fn().mockResolvedValue({}) };
    const store = { get: jest.fn(async (a: string, w: string) => (a === 'app1' && w === 'wh1' ? stored : undefined)) } as unknown as WebhookStore;
    service = new WebhookDownlinkQueue(store, queue as unknown as DownlinkQueue);
  });

  it('pushes to the device of the webhook application, as AppAs does', async () => {
    await expect(service.push(request(), ctx)).resolves.toEqual({});
    expect(queue.push).toHaveBeenCalledWith(
      { end_device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } }, downlinks: [{ f_port: 15, frm_payload: 'AQID' }] },
      ctx,
    );
    expect(queue.replace).not.toHaveBeenCalled();
  });

  it('replaces the queue', async () => {
    await expect(service.replace(request(), ctx)).resolves.toEqual({});
    expect(queue.replace).toHaveBeenCalledWith(
      { end_device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } }, downlinks: [{ f_port: 15, frm_payload: 'AQID' }] },
      ctx,
    );
  });

  it('answers webhook_not_found (404) for a missing webhook and queues nothing', async () => {
    const err = await errorOf(service.push(request('other'), ctx));
    expect(err).toBeInstanceOf(StackError);
    expect(`${err.namespace}:${err.errorName}`).toBe('pkg/applicationserver/io/web:webhook_not_found');
    expect(err.code).toBe(Code.NotFound);
    expect(queue.push).not.toHaveBeenCalled();
  });

  it('answers webhook_paused (the 406 of the gateway) for a paused webhook and queues nothing', async () => {
    stored = webhook(true);
    for (const op of [service.push.bind(service), service.replace.bind(service)]) {
      const err = await errorOf(op(request(), ctx));
      expect(`${err.namespace}:${err.errorName}`).toBe('pkg/applicationserver/io/web:webhook_paused');
    }
    expect(queue.push).not.toHaveBeenCalled();
    expect(queue.replace).not.toHaveBeenCalled();
  });
});
