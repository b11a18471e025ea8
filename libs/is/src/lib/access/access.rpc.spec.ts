import { Module, type Provider } from '@nestjs/common';
import {
  ACCESS_INVALIDATION_SUBJECT,
  type AccessInvalidation,
  type CallerIdentity,
  type EntityRef,
  type RpcContext,
  type RpcName,
  rightsOfKind,
  sortRights,
} from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import type { ErrorDetails } from '@lorawan/errors';
import { recordEvents, rpcContext, startTestComponent, type TestComponent } from '@lorawan/testing';
import { decode, InProcessBroker } from '@lorawan/transport';
import { IDENTITY_DIRECTORY } from '../identity.contracts';
import { InMemoryApiKeyStore, InMemoryIdentityDirectory } from './access-fixtures.conformance';
import { API_KEY_STORE } from './api-key.model';
import { ACCESS_CONTROLLERS, ACCESS_PROVIDERS } from './index';

const ADMIN_KEY = 'rpc-spec-admin-key-0123456789';

/**
 * The access side as the gateway reaches it: the real providers and handlers in a component on
 * an in-process transport, the RPC server's decoding and rights checks in front, the stores
 * replaced by test doubles. Calls go in as the gateway sends them, with the caller Authorize gave.
 */
describe('IS access RPCs over the transport', () => {
  const broker = new InProcessBroker();
  const store = new InMemoryApiKeyStore();
  const directory = new InMemoryIdentityDirectory()
    .addUser('admin', { admin: true })
    .addUser('alice')
    .addEntity({ kind: 'application', id: 'app1' }, { admin: ['RIGHT_ALL'] })
    .addEntity({ kind: 'application', id: 'app2' }, { alice: ['RIGHT_APPLICATION_ALL'] })
    .addEntity({ kind: 'gateway', id: 'gtw1' }, { admin: ['RIGHT_ALL'] });
  const invalidations: AccessInvalidation[] = [];
  const output: string[] = [];
  const secrets: string[] = [];
  const events = recordEvents(broker);
  /** The context of the last call (correlation ID `rpc:/ttn.lorawan.v3.<Service>/<Method>:<id>`). */
  let last: RpcContext;
  let component: TestComponent;

  beforeAll(async () => {
    for (const stream of [process.stdout, process.stderr]) {
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => output.push(String(chunk)) > 0);
    }
    const providers = (ACCESS_PROVIDERS as Provider[]).filter((p) => !(typeof p === 'object' && 'provide' in p && p.provide === API_KEY_STORE));
    @Module({
      controllers: ACCESS_CONTROLLERS,
      providers: [...providers, { provide: API_KEY_STORE, useValue: store }, { provide: IDENTITY_DIRECTORY, useValue: directory }],
    })
    class AccessTestModule {}
    component = await startTestComponent(AccessTestModule, { component: 'is', config: loadConfig({ ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'debug' }), broker });
    broker.subscribe(ACCESS_INVALIDATION_SUBJECT, (payload) => invalidations.push(decode(payload)));
  });
  afterAll(async () => {
    await component.close();
    jest.restoreAllMocks();
  });

  async function call(name: RpcName, body: object, caller?: CallerIdentity): Promise<{ ok?: Record<string, unknown>; total?: number; error?: ErrorDetails }> {
    last = rpcContext(name, caller);
    const reply = await component.call(name, body, last);
    return 'error' in reply ? { error: reply.error } : { ok: reply.ok as Record<string, unknown>, total: reply.total };
  }

  async function authorize(token: string, entity?: EntityRef): Promise<CallerIdentity> {
    const res = await call('EntityAccess.Authorize', { authorization: `Bearer ${token}`, entity });
    if (!res.ok) throw new Error(`authorize: ${JSON.stringify(res.error)}`);
    return res.ok as unknown as CallerIdentity;
  }

  async function createKey(path: 'application_ids' | 'gateway_ids' | 'user_ids', id: string, rights: string[], caller: CallerIdentity) {
    const field = { application_ids: 'application_id', gateway_ids: 'gateway_id', user_ids: 'user_id' }[path];
    const name = ({ application_ids: 'ApplicationAccess', gateway_ids: 'GatewayAccess', user_ids: 'UserAccess' } as const)[path];
    const res = await call(`${name}.CreateAPIKey`, { [path]: { [field]: id }, name: 'k', rights }, caller);
    if (!res.ok) throw new Error(`create: ${JSON.stringify(res.error)}`);
    secrets.push(String(res.ok.key).split('.')[2]);
    return res.ok as { id: string; key: string };
  }

  it('the admin key creates an application key; that key authorizes on its application only', async () => {
    const admin = await authorize(ADMIN_KEY, { kind: 'application', id: 'app1' });
    const key = await createKey('application_ids', 'app1', ['RIGHT_APPLICATION_ALL'], admin);
    expect(key.key).toMatch(/^NNSXS\.[A-Z2-7]{39}\.[A-Z2-7]{52}$/);
    expect((await authorize(key.key, { kind: 'application', id: 'app1' })).rights).toEqual(sortRights(rightsOfKind('application')));
    expect((await authorize(key.key, { kind: 'application', id: 'app2' })).rights).toEqual([]);
  });

  it('a full round with an application key: list, get, update, rights, auth_info, delete; invalidations published', async () => {
    const admin = await authorize(ADMIN_KEY, { kind: 'application', id: 'app1' });
    const key = await createKey(
      'application_ids',
      'app1',
      ['RIGHT_APPLICATION_SETTINGS_API_KEYS', 'RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ'],
      admin,
    );
    const me = await authorize(key.key, { kind: 'application', id: 'app1' });

    const list = await call('ApplicationAccess.ListAPIKeys', { application_ids: { application_id: 'app1' }, order: '-created_at', limit: 1 }, me);
    expect(list.total).toBe(2);
    expect(list.ok).toEqual({ api_keys: [expect.objectContaining({ id: key.id })] });

    const got = await call('ApplicationAccess.GetAPIKey', { application_ids: { application_id: 'app1' }, key_id: key.id }, me);
    expect(got.ok).toMatchObject({ id: key.id, name: 'k' });
    expect(got.ok).not.toHaveProperty('key');

    // Rename, with the key itself.
    const updated = await call(
      'ApplicationAccess.UpdateAPIKey',
      { application_ids: { application_id: 'app1' }, api_key: { id: key.id, name: 'renamed' }, field_mask: { paths: ['name'] } },
      me,
    );
    expect(updated.ok).toMatchObject({ id: key.id, name: 'renamed' });
    // Escalation refused: DEVICES_WRITE is not the key's.
    const escalate = await call(
      'ApplicationAccess.CreateAPIKey',
      { application_ids: { application_id: 'app1' }, rights: ['RIGHT_APPLICATION_DEVICES_WRITE'] },
      me,
    );
    expect(escalate.error).toMatchObject({
      namespace: 'pkg/auth/rights',
      name: 'insufficient_application_rights',
      attributes: { uid: 'app1', missing: ['RIGHT_APPLICATION_DEVICES_WRITE'] },
    });

    expect((await call('ApplicationAccess.ListRights', { application_id: 'app1' }, me)).ok).toEqual({
      rights: ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_SETTINGS_API_KEYS'],
    });
    expect((await call('EntityAccess.AuthInfo', {}, await authorize(key.key))).ok).toMatchObject({
      api_key: { entity_ids: { application_ids: { application_id: 'app1' } }, api_key: { id: key.id, name: 'renamed' } },
    });

    expect((await call('ApplicationAccess.DeleteAPIKey', { application_ids: { application_id: 'app1' }, key_id: key.id }, me)).ok).toEqual({});
    const gone = await call('EntityAccess.Authorize', { authorization: `Bearer ${key.key}` });
    expect(gone.error).toMatchObject({ namespace: 'pkg/identityserver', name: 'api_key_not_found', code: 16 });
    expect(invalidations).toEqual([{ api_key_id: key.id }, { api_key_id: key.id }]);
  });

  it('the RPC server checks the table’s rights before the handler: another application, a missing right', async () => {
    const admin = await authorize(ADMIN_KEY, { kind: 'application', id: 'app1' });
    const key = await createKey('application_ids', 'app1', ['RIGHT_APPLICATION_INFO'], admin);
    const onOther = await authorize(key.key, { kind: 'application', id: 'app2' });
    expect((await call('ApplicationAccess.ListAPIKeys', { application_ids: { application_id: 'app2' } }, onOther)).error).toMatchObject({
      name: 'no_application_rights',
      code: 7,
    });
    const onOwn = await authorize(key.key, { kind: 'application', id: 'app1' });
    expect((await call('ApplicationAccess.ListAPIKeys', { application_ids: { application_id: 'app1' } }, onOwn)).error).toMatchObject({
      name: 'insufficient_application_rights',
      attributes: { missing: ['RIGHT_APPLICATION_SETTINGS_API_KEYS'] },
    });
  });

  it('admins get 404 for a missing application, others 403', async () => {
    const admin = await authorize(ADMIN_KEY, { kind: 'application', id: 'ghost' });
    expect((await call('ApplicationAccess.ListAPIKeys', { application_ids: { application_id: 'ghost' } }, admin)).error).toMatchObject({
      name: 'application_not_found',
      code: 5,
    });
    const appKey = await createKey('application_ids', 'app1', ['RIGHT_APPLICATION_ALL'], await authorize(ADMIN_KEY, { kind: 'application', id: 'app1' }));
    const other = await authorize(appKey.key, { kind: 'application', id: 'ghost' });
    expect((await call('ApplicationAccess.ListAPIKeys', { application_ids: { application_id: 'ghost' } }, other)).error).toMatchObject({
      name: 'no_application_rights',
      code: 7,
    });
  });

  it('an admin hands out another user’s user rights, not the user’s reach', async () => {
    const admin = await authorize(ADMIN_KEY, { kind: 'user', id: 'alice' });
    const refused = await call('UserAccess.CreateAPIKey', { user_ids: { user_id: 'alice' }, rights: ['RIGHT_USER_INFO', 'RIGHT_ALL'] }, admin);
    expect(refused.error).toMatchObject({ name: 'insufficient_user_rights', code: 7, attributes: { uid: 'alice', missing: ['RIGHT_ALL'] } });
    await expect(createKey('user_ids', 'alice', ['RIGHT_USER_INFO'], admin)).resolves.toMatchObject({ key: expect.any(String) });
  });

  it('gateway and user keys', async () => {
    const admin = await authorize(ADMIN_KEY, { kind: 'gateway', id: 'gtw1' });
    const gtwKey = await createKey('gateway_ids', 'gtw1', ['RIGHT_GATEWAY_LINK'], admin);
    expect((await authorize(gtwKey.key, { kind: 'gateway', id: 'gtw1' })).rights).toEqual(['RIGHT_GATEWAY_INFO', 'RIGHT_GATEWAY_LINK']);
    const adminSelf = await authorize(ADMIN_KEY, { kind: 'user', id: 'admin' });
    const userKey = await createKey('user_ids', 'admin', ['RIGHT_ALL'], adminSelf);
    const viaUserKey = await authorize(userKey.key, { kind: 'application', id: 'app1' });
    expect(viaUserKey).toMatchObject({
      kind: 'api-key',
      owner: { kind: 'user', id: 'admin' },
      is_admin: true,
      rights: sortRights(rightsOfKind('application')),
    });
    const list = await call('UserAccess.ListAPIKeys', { user_ids: { user_id: 'admin' } }, adminSelf);
    expect(list.total).toBe(1);
  });

  it('rejects a malformed token with 400 and an unsupported scheme with 401', async () => {
    expect((await call('EntityAccess.Authorize', { authorization: 'Bearer NNSXS.ABC.DEF' })).error).toMatchObject({
      namespace: 'pkg/auth',
      name: 'token',
      code: 3,
    });
    expect((await call('EntityAccess.Authorize', { authorization: 'Basic abc' })).error).toMatchObject({ name: 'unsupported_authorization', code: 16 });
  });

  it('API key handlers hand the request’s context on: create, update, delete each publish once with the call’s correlation ID; a refused call none', async () => {
    const admin = await authorize(ADMIN_KEY, { kind: 'gateway', id: 'gtw1' });
    const appKey = await createKey('application_ids', 'app2', ['RIGHT_APPLICATION_INFO'], await authorize(ADMIN_KEY, { kind: 'application', id: 'app2' }));
    const stranger = await authorize(appKey.key, { kind: 'gateway', id: 'gtw1' });
    await events.take();
    const published = async () => (await events.take()).map((e) => [e.name, e.identifiers, e.correlation_ids, (e.data as { id?: string } | undefined)?.id]);
    const gtw1 = [{ gateway_ids: { gateway_id: 'gtw1' } }];

    const key = await createKey('gateway_ids', 'gtw1', ['RIGHT_GATEWAY_INFO'], admin);
    expect(await published()).toEqual([['gateway.api-key.create', gtw1, last.correlation_ids, key.id]]);
    expect(last.correlation_ids[0]).toMatch(/^rpc:\/ttn\.lorawan\.v3\.GatewayAccess\/CreateAPIKey:[0-9A-Z]{26}$/);
    expect(
      (
        await call(
          'GatewayAccess.UpdateAPIKey',
          { gateway_ids: { gateway_id: 'gtw1' }, api_key: { id: key.id, name: 'renamed' }, field_mask: { paths: ['name'] } },
          admin,
        )
      ).ok,
    ).toBeDefined();
    expect(await published()).toEqual([['gateway.api-key.update', gtw1, last.correlation_ids, key.id]]);
    expect((await call('GatewayAccess.DeleteAPIKey', { gateway_ids: { gateway_id: 'gtw1' }, key_id: key.id }, admin)).ok).toEqual({});
    expect(await published()).toEqual([['gateway.api-key.delete', gtw1, last.correlation_ids, undefined]]);

    expect((await call('GatewayAccess.DeleteAPIKey', { gateway_ids: { gateway_id: 'gtw1' }, key_id: key.id }, admin)).error).toMatchObject({
      name: 'api_key_not_found',
    });
    expect((await call('GatewayAccess.CreateAPIKey', { gateway_ids: { gateway_id: 'gtw1' }, rights: ['RIGHT_GATEWAY_INFO'] }, stranger)).error).toMatchObject({
      code: 7,
    });
    expect(await published()).toEqual([]);
  });

  it('no event carries a secret', () => {
    expect(events.all.length).toBeGreaterThan(5);
    const published = JSON.stringify(events.all);
    for (const s of secrets) expect(published).not.toContain(s);
    expect(published).not.toContain(ADMIN_KEY);
    expect(published).not.toMatch(/"key"|secret_hash|PBKDF2/);
  });

  it('no response but a Create’s and no log line carries a secret', () => {
    expect(secrets.length).toBeGreaterThan(3);
    const logged = output.join('');
    expect(logged).toContain('serving rpc.is.EntityAccess.Authorize');
    for (const s of secrets) expect(logged).not.toContain(s);
    expect(logged).not.toContain(ADMIN_KEY);
  });
});
