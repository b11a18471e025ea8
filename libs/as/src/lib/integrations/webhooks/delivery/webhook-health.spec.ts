import type { Logger } from '@nestjs/common';
import type { ApplicationWebhook } from '@lorawan/api';
import type { WebhookStore } from '../webhook.store';
import type { DeliveryErrorDetails } from './delivery.errors';
import { WebhookHealthRecorder } from './webhook-health';

const hook = (health_status?: Record<string, unknown>): ApplicationWebhook => ({
  ids: { application_ids: { application_id: 'app1' }, webhook_id: 'wh1' },
  health_status,
});
const details = {
  namespace: 'pkg/applicationserver/io/web/sink',
  name: 'request',
  message_format: 'request',
  correlation_id: 'x',
  code: 14,
} as DeliveryErrorDetails;

function setUp(fail = false) {
  const writes: Array<Record<string, unknown> | undefined> = [];
  const store = {
    setHealthStatus: async (_a: string, _w: string, status: Record<string, unknown> | undefined) => {
      writes.push(status);
      if (fail) throw new Error('database down');
      return true;
    },
  } as unknown as WebhookStore;
  const logger = { warn: jest.fn() } as unknown as Logger & { warn: jest.Mock };
  return { recorder: new WebhookHealthRecorder(store, logger), writes, logger };
}

describe('WebhookHealthRecorder', () => {
  it('counts failures from the snapshot, then from what it knows, and writes healthy once', async () => {
    const { recorder, writes } = setUp();
    const at = new Date('2026-11-22T08:00:00Z');
    recorder.failed(hook({ unhealthy: { failed_attempts: '3' } }), details, at);
    await recorder.flush();
    recorder.failed(hook({ unhealthy: { failed_attempts: '3' } }), details, at);
    await recorder.flush();
    recorder.succeeded(hook({ unhealthy: { failed_attempts: '3' } }));
    await recorder.flush();
    recorder.succeeded(hook({ unhealthy: { failed_attempts: '3' } }));
    await recorder.flush();
    expect(writes).toEqual([
      { unhealthy: { failed_attempts: '4', last_failed_attempt_at: '2026-11-22T08:00:00.000Z', last_failed_attempt_details: details } },
      { unhealthy: { failed_attempts: '5', last_failed_attempt_at: '2026-11-22T08:00:00.000Z', last_failed_attempt_details: details } },
      { healthy: {} },
    ]);
  });

  it('writes nothing on success of a webhook it does not know as unhealthy', async () => {
    const { recorder, writes } = setUp();
    recorder.succeeded(hook());
    recorder.succeeded(hook({ healthy: {} }));
    await recorder.flush();
    expect(writes).toEqual([]);
  });

  it('collapses writes while one is pending into the latest', async () => {
    const { recorder, writes } = setUp();
    for (let i = 0; i < 5; i++) recorder.failed(hook(), details);
    await recorder.flush();
    expect(writes.map((w) => (w?.unhealthy as Record<string, unknown>).failed_attempts)).toEqual(['1', '5']);
  });

  it('logs a failed write and carries on', async () => {
    const { recorder, logger } = setUp(true);
    recorder.failed(hook(), details);
    await recorder.flush();
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('database down'));
  });
});
