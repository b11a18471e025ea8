import { type ApplicationWebhook, decodeMessage, Right, type RpcContext, SetApplicationWebhookRequest } from '@lorawan/api';
import { StackError } from '@lorawan/errors';
import { WebhookRegistryService } from './webhook-registry.service';
import type { WebhookStore } from './webhook.store';
import { errorOf } from '../../testing/as-test-kit';

class MemoryWebhookStore implements WebhookStore {
  readonly rows = new Map<string, ApplicationWebhook>();
  private key = (a: string, w: string) => `${a}/${w}`;
  async get(a: string, w: string) {
    const found = this.rows.get(this.key(a, w));
    return found ? structuredClone(found) : undefined;
  }
  async list(a: string) {
    return [...this.rows.values()].filter((w) => w.ids.application_ids.application_id === a).map((w) => structuredClone(w));
  }
  async listActive(a: string) {
    return (await this.list(a)).filter((w) => !w.paused);
  }
  async put(w: ApplicationWebhook) {
    this.rows.set(this.key(w.ids.application_ids.application_id, w.ids.webhook_id), structuredClone(w));
  }
  async setHealthStatus() {
    return false;
  }
  async delete(a: string, w: string) {
    return this.rows.delete(this.key(a, w));
  }
}

const callerWith = (rights: Right[]): RpcContext => ({
  request_id: 'r',
  correlation_ids: [],
  caller: { kind: 'api-key', id: 'k', is_admin: false, key_rights: [], universal: false, rights },
});
const writer = callerWith([Right.RIGHT_APPLICATION_SETTINGS_BASIC, Right.RIGHT_APPLICATION_TRAFFIC_READ, Right.RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE]);
const reader = callerWith([Right.RIGHT_APPLICATION_TRAFFIC_READ]);
const ids = (webhook_id = 'wh1') => ({ application_ids: { application_id: 'app1' }, webhook_id });

function setRequest(webhook: Record<string, unknown>, paths: string[]): SetApplicationWebhookRequest {
  return decodeMessage(SetApplicationWebhookRequest, { webhook: { ids: ids(), ...webhook }, field_mask: { paths } });
}

describe('WebhookRegistryService', () => {
  let store: MemoryWebhookStore;
  let service: WebhookRegistryService;
  beforeEach(() => {
    store = new MemoryWebhookStore();
    service = new WebhookRegistryService(store);
  });

  it('lists the formats it delivers: JSON only', () => {
    expect(service.getFormats()).toEqual({ formats: { json: 'JSON' } });
  });

  it('creates a webhook with only a base URL: json, uplinks to /up and join-accepts to /join', async () => {
    const created = await service.set(setRequest({ base_url: 'https://example.com/hook' }, ['base_url']), writer);
    expect(created).toEqual({
      ids: ids(),
      base_url: 'https://example.com/hook',
      format: 'json',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(created.created_at).toEqual(created.updated_at);
    expect(await store.get('app1', 'wh1')).toMatchObject({ uplink_message: { path: '/up' }, join_accept: { path: '/join' }, format: 'json' });
  });

  it('keeps the message kinds a new webhook enables, without the defaults', async () => {
    await service.set(setRequest({ base_url: 'http://example.com', uplink_message: {} }, ['base_url', 'uplink_message']), writer);
    const stored = await store.get('app1', 'wh1');
    expect(stored?.uplink_message).toEqual({});
    expect(stored?.join_accept).toBeUndefined();
  });

  it('updates only the masked paths of an existing webhook and keeps created_at', async () => {
    const created = await service.set(setRequest({ base_url: 'https://a.example', headers: { A: '1' } }, ['base_url', 'headers']), writer);
    const updated = await service.set(setRequest({ base_url: 'https://ignored.example', paused: true }, ['paused']), writer);
    expect(updated).toMatchObject({ base_url: 'https://a.example', paused: true, created_at: created.created_at });
    expect(await store.get('app1', 'wh1')).toMatchObject({ headers: { A: '1' }, paused: true });
  });

  it('refuses to change the ids of an existing webhook (read_only_field)', async () => {
    await service.set(setRequest({ base_url: 'https://a.example' }, ['base_url']), writer);
    expect((await errorOf(service.set(setRequest({}, ['ids.webhook_id']), writer))).errorName).toBe('read_only_field');
  });

  it('resets health_status when it is set to null', async () => {
    await service.set(
      setRequest({ base_url: 'https://a.example', health_status: { unhealthy: { failed_attempts: '3' } } }, ['base_url', 'health_status']),
      writer,
    );
    await service.set(setRequest({ health_status: null }, ['health_status']), writer);
    expect((await store.get('app1', 'wh1'))?.health_status).toBeUndefined();
  });

  it.each([
    ['no base URL', {}, ['headers']],
    ['a relative base URL', { base_url: '/hooks' }, ['base_url']],
    ['a non-http scheme', { base_url: 'ftp://example.com' }, ['base_url']],
    ['an unknown format', { base_url: 'https://a.example', format: 'protobuf' }, ['base_url', 'format']],
  ])('rejects %s with 400 and stores nothing', async (_name, webhook, paths) => {
    const error = await errorOf(service.set(setRequest(webhook, paths), writer));
    expect(error.code).toBe(3);
    expect(store.rows.size).toBe(0);
  });

  it('rejects too many headers and bad IDs when decoding the request', () => {
    const headers = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`h${i}`, 'v']));
    expect(() => setRequest({ base_url: 'https://a.example', headers }, ['headers'])).toThrow(StackError);
    expect(() => decodeMessage(SetApplicationWebhookRequest, { webhook: { ids: { ...ids(), webhook_id: 'Bad_ID' } } })).toThrow(StackError);
  });

  it('rejects field-mask paths outside the allowed list', async () => {
    expect((await errorOf(service.set(setRequest({}, ['nope']), writer))).errorName).toBe('field_mask_paths');
  });

  it('answers Get with the default paths plus the mask, and not found as pkg/redis:not_found', async () => {
    await service.set(setRequest({ base_url: 'https://a.example', paused: true }, ['base_url', 'paused']), writer);
    expect(await service.get({ ids: ids() }, reader)).toEqual({
      ids: ids(),
      base_url: 'https://a.example',
      format: 'json',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await service.get({ ids: ids(), field_mask: { paths: ['paused'] } }, reader)).toMatchObject({ paused: true });
    const missing = await errorOf(service.get({ ids: ids('nope') }, reader));
    expect([missing.namespace, missing.errorName, missing.code]).toEqual(['pkg/redis', 'not_found', 5]);
  });

  it('returns the downlink API key and the headers only to callers who could set the webhook', async () => {
    const headers = { Authorization: 'Bearer receiver-secret', 'X-Tenant': 'a' };
    const secrets = { downlink_api_key: 'NNSXS.SECRET', headers };
    const created = await service.set(setRequest({ base_url: 'https://a.example', ...secrets }, ['base_url', 'downlink_api_key', 'headers']), writer);
    expect(created).toMatchObject(secrets);
    const mask = { paths: ['downlink_api_key', 'headers'] };
    expect(await service.get({ ids: ids(), field_mask: mask }, writer)).toMatchObject(secrets);
    const all = ['RIGHT_APPLICATION_ALL', 'RIGHT_APPLICATION_SETTINGS_BASIC', 'RIGHT_APPLICATION_TRAFFIC_READ'] as Right[];
    expect(await service.get({ ids: ids(), field_mask: mask }, callerWith(all))).toMatchObject(secrets);
    const internal: RpcContext = {
      request_id: 'r',
      correlation_ids: [],
      caller: { kind: 'internal', id: 'as', is_admin: false, key_rights: [], universal: true, rights: [] },
    };
    expect(await service.get({ ids: ids(), field_mask: mask }, internal)).toMatchObject(secrets);
    // Readers of traffic (TRAFFIC_READ, LINK: everything but basic settings) see neither.
    const linker = callerWith([
      Right.RIGHT_APPLICATION_LINK,
      Right.RIGHT_APPLICATION_INFO,
      Right.RIGHT_APPLICATION_TRAFFIC_READ,
      Right.RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE,
    ]);
    for (const who of [reader, linker, callerWith([]), { request_id: 'r', correlation_ids: [] }]) {
      const got = await service.get({ ids: ids(), field_mask: mask }, who);
      expect(got).not.toHaveProperty('downlink_api_key');
      expect(got).not.toHaveProperty('headers');
      const listed = (await service.list({ application_ids: { application_id: 'app1' }, field_mask: mask }, who)).body.webhooks?.[0];
      expect(listed).toMatchObject({ ids: ids() });
      expect(JSON.stringify(listed)).not.toMatch(/receiver-secret|NNSXS|X-Tenant/);
    }
    // Not from the stored webhook, though.
    expect(await store.get('app1', 'wh1')).toMatchObject(secrets);
  });

  it.each<[string, Record<string, string>, string, string]>([
    ['CR LF (header injection)', { 'X-Secret': 'a\r\nHost: evil.example' }, 'X-Secret', 'HTTP field value'],
    ['LF', { 'X-Secret': 'a\nb' }, 'X-Secret', 'HTTP field value'],
    ['NUL', { 'X-Secret': 'a\u0000b' }, 'X-Secret', 'HTTP field value'],
    ['another control character (ESC)', { 'X-Secret': 'a\u001bb' }, 'X-Secret', 'HTTP field value'],
    ['DEL', { 'X-Secret': 'a\u007fb' }, 'X-Secret', 'HTTP field value'],
    ['a character beyond Latin-1', { 'X-Secret': 'a\u2028b' }, 'X-Secret', 'HTTP field value'],
    ['a name with a space', { 'Bad Header': 'x' }, 'Bad Header', 'HTTP token'],
    ['a name with a colon', { 'X-A:b': 'x' }, 'X-A:b', 'HTTP token'],
    ['Host', { Host: 'evil.example' }, 'Host', 'set by the HTTP client'],
    ['host (any case)', { hOsT: 'evil.example' }, 'hOsT', 'set by the HTTP client'],
    ['Content-Length', { 'Content-Length': '0' }, 'Content-Length', 'set by the HTTP client'],
    ...['Connection', 'Keep-Alive', 'Proxy-Connection', 'Transfer-Encoding', 'TE', 'Trailer', 'Upgrade'].map(
      (h): [string, Record<string, string>, string, string] => [`hop-by-hop ${h}`, { [h]: 'x' }, h, 'set by the HTTP client'],
    ),
  ])('refuses a header with %s (400 naming it), storing nothing', async (_name, headers, header, reason) => {
    const error = await errorOf(
      service.set(setRequest({ base_url: 'https://a.example', headers: { Fine: 'ok', ...headers } }, ['base_url', 'headers']), writer),
    );
    expect(error.toDetails()).toMatchObject({
      namespace: 'pkg/errors',
      name: 'validation',
      code: 3,
      attributes: { field: `headers[${header}]`, name: 'ApplicationWebhookValidationError', reason: expect.stringContaining(reason) },
    });
    expect(error.toDetails().attributes?.reason).toContain(`\`${header}\``);
    expect(store.rows.size).toBe(0);
  });

  it('takes header values with spaces, tabs and Latin-1 text, and any other header name', async () => {
    const headers = { Authorization: 'Basic dXNlcjpwYXNz', 'X-Note': 'caf\u00e9 \t ok', "X-!#$%&'*+-.^_`|~": 'v', 'X-Empty': '' };
    await service.set(setRequest({ base_url: 'https://a.example', headers }, ['base_url', 'headers']), writer);
    expect((await store.get('app1', 'wh1'))?.headers).toEqual(headers);
  });

  it('lists with a total, {} when there are none', async () => {
    expect(await service.list({ application_ids: { application_id: 'app1' } }, reader)).toEqual({ body: {}, total: 0 });
    await service.set(setRequest({ base_url: 'https://a.example' }, ['base_url']), writer);
    const listed = await service.list({ application_ids: { application_id: 'app1' } }, reader);
    expect([listed.total, listed.body.webhooks?.length]).toEqual([1, 1]);
  });

  it('deletes idempotently', async () => {
    await service.set(setRequest({ base_url: 'https://a.example' }, ['base_url']), writer);
    expect(await service.delete(ids())).toEqual({});
    expect(await service.delete(ids())).toEqual({});
    expect(store.rows.size).toBe(0);
  });
});
