/**
 * The Application Server's webhook registry (ApplicationWebhookRegistry under /api/v3/as/webhooks)
 * over HTTP, end to end, in both run modes. Seed: device-registry-api.md (webhook delivery
 * defaults); wire contract §8.1.
 */
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Api, createApplications, expectTtsError } from './http-client';

type Start = () => Promise<StackUnderTest>;

const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'as'] })],
  ['embedded', () => startEmbeddedStack({})],
];

const webhooksPath = (app: string) => `/api/v3/as/webhooks/${app}`;
const webhookPath = (app: string, id: string) => `${webhooksPath(app)}/${id}`;

describe.each(MODES)('webhook registry over HTTP (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const app = `wh-app-${Date.now().toString(36)}`;

  beforeAll(async () => {
    stack = await start();
    await createApplications(api, [app]);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('lists the formats: JSON', async () => {
    const res = await api.call('GET', '/api/v3/as/webhook-formats');
    expect([res.status, res.json]).toEqual([200, { formats: { json: 'JSON' } }]);
  });

  it('creates with PUT (defaults /up and /join), reads, updates, lists and deletes', async () => {
    const put = await api.call('PUT', webhookPath(app, 'wh1'), {
      body: { webhook: { base_url: 'https://example.com/hook', downlink_api_key: 'NNSXS.SECRET' }, field_mask: { paths: ['base_url', 'downlink_api_key'] } },
    });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({
      ids: { application_ids: { application_id: app }, webhook_id: 'wh1' },
      base_url: 'https://example.com/hook',
      format: 'json',
      downlink_api_key: 'NNSXS.SECRET',
    });

    const got = await api.call('GET', `${webhookPath(app, 'wh1')}?field_mask=uplink_message,join_accept,paused`);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ uplink_message: { path: '/up' }, join_accept: { path: '/join' } });
    expect(got.json.downlink_api_key).toBeUndefined();

    const post = await api.call('POST', webhooksPath(app), {
      body: { webhook: { ids: { webhook_id: 'wh1' }, paused: true }, field_mask: { paths: ['paused'] } },
    });
    expect([post.status, post.json.paused, post.json.created_at]).toEqual([200, true, put.json.created_at]);

    const list = await api.call('GET', `${webhooksPath(app)}?field_mask=paused`);
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('1');
    expect(list.json.webhooks.map((w: { ids: { webhook_id: string } }) => w.ids.webhook_id)).toEqual(['wh1']);

    const del = await api.call('DELETE', webhookPath(app, 'wh1'));
    expect([del.status, del.json]).toEqual([200, {}]);
    const again = await api.call('DELETE', webhookPath(app, 'wh1'));
    expect([again.status, again.json]).toEqual([200, {}]);
    expectTtsError(await api.call('GET', webhookPath(app, 'wh1')), 404, 5, 'pkg/redis', 'not_found');
    expect((await api.call('GET', webhooksPath(app))).json).toEqual({});
  });

  it('refuses to change the ids of an existing webhook', async () => {
    await api.call('PUT', webhookPath(app, 'wh-ro'), { body: { webhook: { base_url: 'https://example.com' }, field_mask: { paths: ['base_url'] } } });
    const res = await api.call('PUT', webhookPath(app, 'wh-ro'), { body: { webhook: {}, field_mask: { paths: ['ids.webhook_id'] } } });
    expectTtsError(res, 400, 3, 'pkg/applicationserver', 'read_only_field');
  });

  it.each([
    ['a relative base URL', { base_url: '/hook' }, ['base_url']],
    ['a non-http scheme', { base_url: 'ftp://example.com' }, ['base_url']],
    ['an unknown format', { base_url: 'https://example.com', format: 'protobuf' }, ['base_url', 'format']],
    [
      'too many headers',
      { base_url: 'https://example.com', headers: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`h${i}`, 'v'])) },
      ['base_url', 'headers'],
    ],
  ])('answers 400 to %s and stores nothing', async (_name, webhook, paths) => {
    const res = await api.call('PUT', webhookPath(app, 'wh-bad'), { body: { webhook, field_mask: { paths } } });
    expect(res.status).toBe(400);
    expect((await api.call('GET', webhookPath(app, 'wh-bad'))).status).toBe(404);
  });

  it('answers 400 to an invalid webhook ID', async () => {
    const res = await api.call('PUT', webhookPath(app, 'Bad_ID'), {
      body: { webhook: { base_url: 'https://example.com' }, field_mask: { paths: ['base_url'] } },
    });
    expect(res.status).toBe(400);
  });
});
