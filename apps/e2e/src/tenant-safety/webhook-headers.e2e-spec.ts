/**
 * Tenant safety, finding 5 of issue 29, in both run modes: a webhook's header values (often the
 * receiver's secret) are shown, like its `downlink_api_key`, only to keys with
 * `RIGHT_APPLICATION_SETTINGS_BASIC` (the probe read them with `…_TRAFFIC_READ` or `…_LINK` keys),
 * in Get and List; and Set refuses headers an HTTP request cannot or must not carry (CR/LF/NUL and
 * other controls in values, names that are no tokens, hop-by-hop headers, `Host`,
 * `Content-Length`) with a 400 naming the header, instead of storing them (the probe's `Host`
 * override was honoured on delivery). Delivery leaving such headers out (rows stored before) is
 * the AS's unit spec `webhook-request.spec.ts`.
 * Rules: docs/integrations.md "Webhook registry".
 */
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Access, bearer, type CreatedKey, freshId } from '../access';
import { Api, createApplications, expectValidationError } from '../http-client';

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'as'] })],
  ['embedded', () => startEmbeddedStack()],
];

const SECRET_HEADERS = { Authorization: 'Bearer receiver-secret-42', 'X-Api-Key': 'k-0123456789' };
const webhooksPath = (app: string) => `/api/v3/as/webhooks/${app}`;
const webhookPath = (app: string, id: string) => `${webhooksPath(app)}/${id}`;

describe.each(MODES)('tenant safety: webhook headers (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const access = new Access(api);
  const app = freshId('ts-wh-app');
  const keys: Record<'writer' | 'reader' | 'linker', CreatedKey> = {} as never;

  const setWebhook = (id: string, webhook: Record<string, unknown>, paths: string[], key = keys.writer) =>
    api.put(webhookPath(app, id), { webhook, field_mask: { paths } }, bearer(key.token));

  beforeAll(async () => {
    stack = await start();
    await createApplications(api, [app]);
    keys.writer = await access.createKey('application', app, [
      'RIGHT_APPLICATION_SETTINGS_BASIC',
      'RIGHT_APPLICATION_TRAFFIC_READ',
      'RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE',
    ]);
    keys.reader = await access.createKey('application', app, ['RIGHT_APPLICATION_TRAFFIC_READ']);
    keys.linker = await access.createKey('application', app, ['RIGHT_APPLICATION_LINK']);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('shows header values only to keys with RIGHT_APPLICATION_SETTINGS_BASIC, as the downlink API key', async () => {
    const secrets = { headers: SECRET_HEADERS, downlink_api_key: 'NNSXS.DOWNLINK-SECRET' };
    const set = await setWebhook('wh-secret', { base_url: 'https://receiver.example/hook', ...secrets }, ['base_url', 'headers', 'downlink_api_key']);
    expect([set.status, set.json?.headers]).toEqual([200, SECRET_HEADERS]);
    const mask = '?field_mask=headers,downlink_api_key,base_url';
    const byWriter = await api.get(`${webhookPath(app, 'wh-secret')}${mask}`, bearer(keys.writer.token));
    expect([byWriter.status, byWriter.json]).toEqual([200, expect.objectContaining(secrets)]);
    for (const who of ['reader', 'linker'] as const) {
      for (const path of [`${webhookPath(app, 'wh-secret')}${mask}`, `${webhooksPath(app)}${mask}`]) {
        const res = await api.get(path, bearer(keys[who].token));
        if (res.status !== 200) throw new Error(`${mode}: GET ${path} with the ${who} key: HTTP ${res.status} ${res.text}`);
        for (const secret of [...Object.values(SECRET_HEADERS), 'DOWNLINK-SECRET']) {
          if (res.text.includes(secret)) throw new Error(`${mode}: GET ${path} with the ${who} key shows a secret: ${res.text}`);
        }
        const webhook = path.includes('wh-secret')
          ? res.json
          : res.json.webhooks.find((w: { ids: { webhook_id: string } }) => w.ids.webhook_id === 'wh-secret');
        expect(webhook).toMatchObject({ base_url: 'https://receiver.example/hook' });
        expect(webhook).not.toHaveProperty('headers');
      }
    }
  });

  it.each([
    ['a CR LF in a value (header injection)', { 'X-Secret': 'a\r\nHost: evil.example' }, 'X-Secret'],
    ['a LF in a value', { 'X-Secret': 'a\nb' }, 'X-Secret'],
    ['a NUL in a value', { 'X-Secret': 'a\u0000b' }, 'X-Secret'],
    ['another control character in a value', { 'X-Secret': 'a\u0007b' }, 'X-Secret'],
    ['a name that is no token', { 'X Secret': 'v' }, 'X Secret'],
    ['Host', { Host: 'evil.example' }, 'Host'],
    ['host in another case', { hOST: 'evil.example' }, 'hOST'],
    ['Content-Length', { 'Content-Length': '0' }, 'Content-Length'],
    ['Transfer-Encoding', { 'Transfer-Encoding': 'chunked' }, 'Transfer-Encoding'],
    ['Connection', { Connection: 'close' }, 'Connection'],
    ['Keep-Alive', { 'Keep-Alive': 'timeout=5' }, 'Keep-Alive'],
    ['Proxy-Connection', { 'Proxy-Connection': 'keep-alive' }, 'Proxy-Connection'],
    ['TE', { TE: 'trailers' }, 'TE'],
    ['Trailer', { Trailer: 'X-Checksum' }, 'Trailer'],
    ['Upgrade', { Upgrade: 'websocket' }, 'Upgrade'],
  ])('Set refuses %s with 400 naming the header, storing nothing', async (_what, headers, header) => {
    const id = freshId('wh-bad').toLowerCase();
    const res = await setWebhook(id, { base_url: 'https://receiver.example/hook', headers: { ...SECRET_HEADERS, ...headers } }, ['base_url', 'headers']);
    const leaf = expectValidationError(res, `headers[${header}]`);
    expect(String(leaf.attributes?.reason)).toContain(`\`${header}\``);
    const got = await api.get(webhookPath(app, id));
    expect(got.status).toBe(404);
    // An existing webhook is not changed either.
    const existing = await setWebhook(`${id}-ok`, { base_url: 'https://receiver.example/hook', headers: SECRET_HEADERS }, ['base_url', 'headers']);
    expect(existing.status).toBe(200);
    expectValidationError(await setWebhook(`${id}-ok`, { headers: { ...SECRET_HEADERS, ...headers } }, ['headers']), `headers[${header}]`);
    const kept = await api.get(`${webhookPath(app, `${id}-ok`)}?field_mask=headers`);
    expect(kept.json?.headers).toEqual(SECRET_HEADERS);
  });
});
