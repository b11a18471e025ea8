/**
 * Embedded mode keeps its webhook jobs in the AS's SQLite database: the all-in-one process killed
 * (SIGKILL, nothing flushed or closed) in the middle of deliveries to a slow receiver, or while
 * its receiver is down and the jobs wait out their retry backoff, delivers every accepted message
 * after it starts again on the same DATA_DIR. At least once: duplicates (requests in flight when it
 * died) are counted and allowed, losses are not.
 */
import { startEmbeddedStack, type StackUnderTest, WebhookReceiver } from '@lorawan/testing';
import { Api, createApplications } from './http-client';
import { abpAsDevice, expectOk, isDevicesPath, randomDevAddr, randomEui, randomKey, Registries, uid } from './devices';
import { LPP, WEBHOOK_ENV } from './webhook-env';

const fCntsOf = (requests: Array<{ json: { uplink_message?: { f_cnt?: number } } }>) => new Set(requests.map((r) => r.json?.uplink_message?.f_cnt));
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('webhook deliveries survive a crash of the embedded process', () => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const reg = new Registries(api);
  const app = uid('durable-app');
  let dev = '';

  /** Simulate uplink: `{}` once its webhook jobs are committed to the queue. */
  const simulate = async (fCnt: number) => {
    const res = await api.post(`/api/v3/as/applications/${app}/devices/${dev}/up/simulate`, { uplink_message: { f_port: 1, f_cnt: fCnt, frm_payload: LPP } });
    expectOk(res, `simulate f_cnt ${fCnt}`);
    expect(res.json).toEqual({});
  };
  const webhook = async (id: string, baseUrl: string) => {
    expectOk(await api.put(`/api/v3/as/webhooks/${app}/${id}`, { webhook: { base_url: baseUrl }, field_mask: { paths: ['base_url'] } }), `set webhook ${id}`);
  };
  const deleteWebhook = async (id: string) => expectOk(await api.delete(`/api/v3/as/webhooks/${app}/${id}`), `delete webhook ${id}`);
  const crash = async () => {
    if (!stack.restart) throw new Error('the embedded stack must support restart');
    await stack.restart('stack');
  };

  beforeAll(async () => {
    stack = await startEmbeddedStack({ env: WEBHOOK_ENV });
    await createApplications(api, [app]);
    dev = uid('dev');
    const ids = { device_id: dev, dev_eui: randomEui(), join_eui: randomEui() };
    expectOk(await api.post(isDevicesPath(app), { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 'IS create');
    const as = abpAsDevice(ids, randomDevAddr(), randomKey());
    await reg.setOk('as', app, dev, { ...as.device, formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } }, [...as.paths, 'formatters.up_formatter']);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('killed in the middle of deliveries to a slow receiver: every accepted uplink is delivered after the restart', async () => {
    // 150 ms per request and 4 at a time: 60 deliveries take about 2 s, so the kill lands mid-way, with requests in flight.
    const receiver = await new WebhookReceiver(() => ({ delayMs: 150 })).start();
    try {
      await webhook('slow', `${receiver.url}/slow`);
      const total = 60;
      await Promise.all(range(total).map((fCnt) => simulate(fCnt)));
      await receiver.waitFor(() => receiver.to('/slow/up').length >= 8, 10000, 'the first deliveries');
      const beforeKill = fCntsOf(receiver.to('/slow/up')).size;
      expect(beforeKill).toBeLessThan(total);
      await crash();
      await receiver.waitFor(() => fCntsOf(receiver.to('/slow/up')).size === total, 60000, `all ${total} uplinks after the restart`);
      const requests = receiver.to('/slow/up');
      expect(fCntsOf(requests)).toEqual(new Set(range(total)));
      const duplicates = requests.length - total;
      console.log(`embedded crash with a slow receiver: ${beforeKill} delivered before the kill, ${total} after, ${duplicates} duplicates, 0 lost`);
      // Sent twice: at most the requests in flight at the kill (4) and those answered whose ack was not committed yet.
      expect(duplicates).toBeLessThanOrEqual(8);
      expect(stack.logs()).toContain('--- stack restarted');
      await deleteWebhook('slow');
    } finally {
      await receiver.stop();
    }
  });

  it('killed while its receiver is down and the jobs wait out their backoff: every one is delivered once the receiver is back', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      await webhook('down', `${receiver.url}/down`);
      await receiver.stop();
      const total = 20;
      for (const fCnt of range(total)) await simulate(fCnt);
      // Let every job fail at least once, so the queue holds retries with a time in the future.
      await new Promise((res) => setTimeout(res, 1000));
      expect(receiver.requests).toHaveLength(0);
      await crash();
      await receiver.start();
      await receiver.waitFor(() => fCntsOf(receiver.to('/down/up')).size === total, 60000, `all ${total} uplinks after the restart`);
      const requests = receiver.to('/down/up');
      expect(fCntsOf(requests)).toEqual(new Set(range(total)));
      console.log(`embedded crash with the receiver down: ${total} delivered after the restart, ${requests.length - total} duplicates, 0 lost`);
      await deleteWebhook('down');
    } finally {
      await receiver.stop();
    }
  });
});
