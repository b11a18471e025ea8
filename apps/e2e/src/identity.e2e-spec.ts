/**
 * The Identity Server's entities and access end to end, in both run modes: applications, gateways
 * and users, their API keys, the flow application → key → device, rights that cannot be
 * escalated, key secrets that never come back (nor reach a log), key changes that take effect at
 * once despite the gateway's cache, bad input, and the application and gateway registries.
 * Rules: wire contract §1.3, §5, §6; docs/identity-and-access.md.
 */
import { type Right } from '@lorawan/api';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import {
  Access,
  ADMIN,
  apiKeysPath,
  bearer,
  type CreatedKey,
  entityPath,
  expectHttp,
  freshId,
  KINDS,
  type Kind,
  missingOf,
  randomEui,
  secretForms,
  TOKEN_PATTERN,
  wrongSecretToken,
} from './access';
import { isDevicePath, isDevicesPath, otaaIds, randomKey, type Registry, registryDevicePath, sampleDevice } from './devices';
import { Api, type ApiResponse, type CallOptions, expectTtsError, expectValidationError, sleep } from './http-client';

/**
 * A long cache, so that only the IS's invalidation can make a changed or deleted key take effect
 * at once; the most verbose logging, so that a secret written to any log would show.
 */
const ENV = { AUTH_CACHE_TTL_MS: '60000', LOG_LEVEL: 'verbose' };

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'js', 'ns', 'as'], env: ENV })],
  ['embedded', () => startEmbeddedStack({ env: ENV })],
];

const R = {
  APP_ALL: 'RIGHT_APPLICATION_ALL',
  APP_INFO: 'RIGHT_APPLICATION_INFO',
  APP_SETTINGS_BASIC: 'RIGHT_APPLICATION_SETTINGS_BASIC',
  APP_API_KEYS: 'RIGHT_APPLICATION_SETTINGS_API_KEYS',
  DEVICES_READ: 'RIGHT_APPLICATION_DEVICES_READ',
  DEVICES_WRITE: 'RIGHT_APPLICATION_DEVICES_WRITE',
  READ_KEYS: 'RIGHT_APPLICATION_DEVICES_READ_KEYS',
  WRITE_KEYS: 'RIGHT_APPLICATION_DEVICES_WRITE_KEYS',
  USER_ALL: 'RIGHT_USER_ALL',
  USER_INFO: 'RIGHT_USER_INFO',
  GATEWAY_INFO: 'RIGHT_GATEWAY_INFO',
  ORGANIZATION_INFO: 'RIGHT_ORGANIZATION_INFO',
} as const satisfies Record<string, Right>;

/** A right of each kind to give the keys of the secret tests. */
const INFO_RIGHT: Record<Kind, Right> = { application: R.APP_INFO, gateway: R.GATEWAY_INFO, user: R.USER_INFO, organization: R.ORGANIZATION_INFO };

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

describe.each(MODES)('Identity Server: entities, API keys and rights (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const access = new Access(api);
  /** Wrong secrets sent in this suite: none may reach a log either. */
  const wrongSecrets: string[] = [];

  beforeAll(async () => {
    stack = await start();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const ok = (res: ApiResponse, what: string) => expectHttp(res, 200, `${mode}: ${what}`);
  const jsSet = (app: string, dev: string, device: Record<string, unknown>, paths: string[], options?: CallOptions) =>
    api.put(registryDevicePath('js', app, dev), { end_device: device, field_mask: { paths } }, options);
  const registryGet = (c: Registry, app: string, dev: string, paths: string[], options?: CallOptions) =>
    api.get(`${registryDevicePath(c, app, dev)}?field_mask=${paths.join(',')}`, options);

  function expectInsufficient(res: ApiResponse, kind: Kind, uid: string, missing: readonly string[]): void {
    expectTtsError(res, 403, 7, 'pkg/auth/rights', `insufficient_${kind}_rights`, { uid });
    expect(missingOf(res)).toEqual(expect.arrayContaining([...missing]));
  }

  // ------------------------------------------------------------------------------------------
  describe('application → API key → device', () => {
    const app = freshId('flow-app');
    const otherApp = freshId('flow-other');
    const dev = freshId('dev');
    const ids = otaaIds(dev);
    const appKey = randomKey();
    let key: CreatedKey;

    beforeAll(async () => {
      await access.createApplication(app);
      await access.createApplication(otherApp);
      key = await access.createKey('application', app, [R.APP_ALL]);
    });

    it('the admin creates an application and a key with RIGHT_APPLICATION_ALL', () => {
      expect(key.response.json.rights).toEqual([R.APP_ALL]);
    });

    it('with that key: registers a device in IS, JS, NS and AS, reads it back with its keys, and deletes it', async () => {
      const as = bearer(key.token);
      ok(await api.post(isDevicesPath(app), { end_device: { ids, name: 'Flow device', join_server_address: 'js.example.com' } }, as), 'IS create');
      ok(await jsSet(app, dev, { ids, root_keys: { app_key: { key: appKey } } }, ['root_keys.app_key.key'], as), 'JS set');
      const ns = sampleDevice('ns', ids);
      ok(await api.put(registryDevicePath('ns', app, dev), { end_device: ns.device, field_mask: { paths: ns.paths } }, as), 'NS set');
      const asd = sampleDevice('as', ids);
      ok(await api.put(registryDevicePath('as', app, dev), { end_device: asd.device, field_mask: { paths: asd.paths } }, as), 'AS set');

      const isGet = await api.get(`${isDevicePath(app, dev)}?field_mask=name,join_server_address`, as);
      ok(isGet, 'IS get');
      expect(isGet.json).toMatchObject({
        ids: { device_id: dev, application_ids: { application_id: app } },
        name: 'Flow device',
        join_server_address: 'js.example.com',
      });
      const jsGet = await registryGet('js', app, dev, ['root_keys.app_key.key'], as);
      ok(jsGet, 'JS get with keys');
      expect(jsGet.json.root_keys?.app_key?.key).toBe(appKey);
      const nsGet = await registryGet('ns', app, dev, ns.paths, as);
      ok(nsGet, 'NS get');
      expect(nsGet.json).toMatchObject(ns.expected);
      const asGet = await registryGet('as', app, dev, asd.paths, as);
      ok(asGet, 'AS get');
      expect(asGet.json).toMatchObject(asd.expected);
      const list = await api.get(`${isDevicesPath(app)}?field_mask=name`, as);
      ok(list, 'IS list');
      expect(list.json.end_devices.map((d: { ids: { device_id: string } }) => d.ids.device_id)).toEqual([dev]);

      for (const c of ['as', 'ns', 'js'] as Registry[]) {
        const del = await api.delete(registryDevicePath(c, app, dev), as);
        ok(del, `${c} delete`);
        expect(del.json).toEqual({});
      }
      const del = await api.delete(isDevicePath(app, dev), as);
      ok(del, 'IS delete');
      expect(del.json).toEqual({});
      expectTtsError(await api.get(isDevicePath(app, dev), as), 404, 5, 'pkg/identityserver/store', 'end_device_not_found');
      expect((await registryGet('js', app, dev, ['root_keys.app_key.key'], as)).status).toBe(404);
    });

    it('the same key on another application → 403 no_application_rights, on every registry', async () => {
      const as = bearer(key.token);
      const noRights = (res: ApiResponse) => expectTtsError(res, 403, 7, 'pkg/auth/rights', 'no_application_rights', { uid: otherApp });
      noRights(await api.get(entityPath('application', otherApp), as));
      noRights(await api.get(isDevicesPath(otherApp), as));
      noRights(await api.post(isDevicesPath(otherApp), { end_device: { ids: otaaIds(freshId('dev')) } }, as));
      noRights(await jsSet(otherApp, dev, { ids, root_keys: { app_key: { key: appKey } } }, ['root_keys.app_key.key'], as));
      noRights(await registryGet('ns', otherApp, dev, ['frequency_plan_id'], as));
      noRights(await api.delete(registryDevicePath('as', otherApp, dev), as));
      noRights(await api.post(apiKeysPath('application', otherApp), { name: 'x', rights: [R.APP_INFO] }, as));
      // Nothing was created in the other application.
      const list = await api.get(isDevicesPath(otherApp));
      ok(list, 'IS list of the other application');
      expect(list.json.end_devices ?? []).toEqual([]);
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('rights cannot be escalated', () => {
    it('a key with SETTINGS_API_KEYS + DEVICES_READ cannot create a key with DEVICES_WRITE, APPLICATION_ALL or USER_ALL', async () => {
      const app = freshId('esc-app');
      await access.createApplication(app);
      const k1 = await access.createKey('application', app, [R.APP_API_KEYS, R.DEVICES_READ]);
      const before = await access.total(apiKeysPath('application', app));
      const attempts: Array<[Right[], Right[]]> = [
        [[R.DEVICES_WRITE], [R.DEVICES_WRITE]],
        [[R.APP_ALL], [R.APP_ALL]],
        [[R.USER_ALL], [R.USER_ALL]],
        [[R.DEVICES_READ, R.DEVICES_WRITE], [R.DEVICES_WRITE]],
        [[R.READ_KEYS], [R.READ_KEYS]],
      ];
      for (const [rights, missing] of attempts) {
        const res = await api.post(apiKeysPath('application', app), { name: 'escalation', rights }, bearer(k1.token));
        try {
          expectInsufficient(res, 'application', app, missing);
          expect(missingOf(res)).not.toContain(R.DEVICES_READ);
          expect(res.text).not.toMatch(/NNSXS\./);
        } catch (err) {
          throw new Error(
            `${mode}: POST ${apiKeysPath('application', app)} rights [${rights.join(', ')}] with a key of [APP_API_KEYS, DEVICES_READ]: expected 403 insufficient_application_rights missing ⊇ [${missing.join(', ')}], got HTTP ${res.status}: ${res.text.slice(0, 1000)}\n${(err as Error).message}`,
          );
        }
      }
      expect(await access.total(apiKeysPath('application', app))).toBe(before);
      // What it holds, it can grant.
      await access.createKey('application', app, [R.DEVICES_READ], { as: bearer(k1.token) });
      await access.createKey('application', app, [R.APP_API_KEYS, R.DEVICES_READ], { as: bearer(k1.token) });
      expect(await access.total(apiKeysPath('application', app))).toBe(before + 2);
    });

    it('nor raise the rights of a key by updating it', async () => {
      const app = freshId('esc-upd');
      await access.createApplication(app);
      const k1 = await access.createKey('application', app, [R.APP_API_KEYS, R.DEVICES_READ]);
      const k2 = await access.createKey('application', app, [R.DEVICES_READ]);
      for (const rights of [[R.DEVICES_WRITE], [R.APP_ALL]]) {
        const res = await api.put(`${apiKeysPath('application', app)}/${k2.id}`, { api_key: { rights }, field_mask: { paths: ['rights'] } }, bearer(k1.token));
        expectInsufficient(res, 'application', app, rights);
      }
      const get = await api.get(`${apiKeysPath('application', app)}/${k2.id}`);
      ok(get, 'get the key');
      expect(get.json.rights).toEqual([R.DEVICES_READ]);
      // k2 still cannot write devices.
      expectInsufficient(await api.post(isDevicesPath(app), { end_device: { ids: otaaIds(freshId('dev')) } }, bearer(k2.token)), 'application', app, [
        R.DEVICES_WRITE,
      ]);
    });

    it('the admin cannot read or write device keys in an application of another user, but can in its own', async () => {
      const owner = freshId('owner');
      await access.createUser(owner);
      const foreign = freshId('foreign-app');
      const own = freshId('own-app');
      await access.createApplication(foreign, owner);
      await access.createApplication(own);
      const dev = freshId('dev');
      const ids = otaaIds(dev);
      const appKey = randomKey();

      // The admin manages devices there (DEVICES_WRITE is an admin right), without keys.
      ok(await jsSet(foreign, dev, { ids, resets_join_nonces: true }, ['resets_join_nonces']), 'JS set without keys in the foreign application');
      for (const mask of [['root_keys'], ['root_keys.app_key.key']]) {
        expectInsufficient(await registryGet('js', foreign, dev, mask), 'application', foreign, [R.READ_KEYS]);
      }
      expectInsufficient(await jsSet(foreign, dev, { ids, root_keys: { app_key: { key: appKey } } }, ['root_keys.app_key.key']), 'application', foreign, [
        R.WRITE_KEYS,
      ]);
      // Nor through a key it creates there.
      expectInsufficient(await api.post(apiKeysPath('application', foreign), { name: 'keys', rights: [R.READ_KEYS] }), 'application', foreign, [R.READ_KEYS]);
      expectInsufficient(await api.post(apiKeysPath('application', foreign), { name: 'all', rights: [R.APP_ALL] }), 'application', foreign, [R.APP_ALL]);
      // Without key paths the device reads fine.
      ok(await registryGet('js', foreign, dev, ['resets_join_nonces']), 'JS get without keys in the foreign application');

      ok(
        await jsSet(own, dev, { ids: otaaIds(dev), root_keys: { app_key: { key: appKey } } }, ['root_keys.app_key.key']),
        'JS set with keys in its own application',
      );
      const get = await registryGet('js', own, dev, ['root_keys.app_key.key']);
      ok(get, 'JS get with keys in its own application');
      expect(get.json.root_keys.app_key.key).toBe(appKey);
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('key secrets', () => {
    it.each(KINDS)('%s keys: only Create returns the secret; List, Get and Update never do', async (kind) => {
      const id = freshId(`sec-${kind.slice(0, 3)}`);
      await access.createEntity(kind, id);
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const key = await access.createKey(kind, id, [INFO_RIGHT[kind]], { name: 'secret test', expiresAt });
      const created = key.response.json;
      expect(created.key).toMatch(TOKEN_PATTERN);
      expect(created).toMatchObject({ id: key.id, name: 'secret test', rights: [INFO_RIGHT[kind]] });
      expect(created.created_at).toMatch(RFC3339);
      expect(created.updated_at).toMatch(RFC3339);
      expect(Date.parse(created.expires_at)).toBe(Date.parse(expiresAt));

      const noSecret = (res: ApiResponse, what: string) => {
        ok(res, what);
        if (res.text.includes(key.secret)) throw new Error(`${mode}: ${what} carries the secret: ${res.text.slice(0, 1000)}`);
      };
      const list = await api.get(apiKeysPath(kind, id));
      noSecret(list, 'List');
      expect(list.headers.get('x-total-count')).toBe('1');
      expect(list.json.api_keys).toHaveLength(1);
      expect(list.json.api_keys[0]).toMatchObject({ id: key.id, name: 'secret test', rights: [INFO_RIGHT[kind]] });
      expect(list.json.api_keys[0].key).toBeUndefined();

      const get = await api.get(`${apiKeysPath(kind, id)}/${key.id}`);
      noSecret(get, 'Get');
      expect(get.json).toMatchObject({ id: key.id, name: 'secret test', rights: [INFO_RIGHT[kind]] });
      expect(get.json.key).toBeUndefined();

      const upd = await api.put(`${apiKeysPath(kind, id)}/${key.id}`, { api_key: { name: 'renamed' }, field_mask: { paths: ['name'] } });
      noSecret(upd, 'Update');
      expect(upd.json.key).toBeUndefined();
      expect(upd.json.id).toBe(key.id);
      const after = await api.get(`${apiKeysPath(kind, id)}/${key.id}`);
      noSecret(after, 'Get after Update');
      expect(after.json).toMatchObject({ name: 'renamed', rights: [INFO_RIGHT[kind]] });

      // The key's own view of itself (auth_info) does not carry it either.
      const info = await api.get('/api/v3/auth_info', bearer(key.token));
      noSecret(info, 'auth_info');
    });

    it('the logs never contain a secret: after using it, failing with a wrong secret, and deleting it', async () => {
      const app = freshId('sec-log');
      await access.createApplication(app);
      const key = await access.createKey('application', app, [R.APP_INFO, R.DEVICES_READ]);
      ok(await api.get(entityPath('application', app), bearer(key.token)), 'use the key');
      ok(await api.get(isDevicesPath(app), bearer(key.token)), 'use the key again');
      const wrong = wrongSecretToken(key.id);
      wrongSecrets.push(wrong.split('.')[2]);
      const refused = await api.get(entityPath('application', app), bearer(wrong));
      expectTtsError(refused, 401, 16, 'pkg/identityserver', 'invalid_authorization');
      expect(refused.text).not.toContain(wrong.split('.')[2]);
      const del = await api.delete(`${apiKeysPath('application', app)}/${key.id}`);
      ok(del, 'delete the key');
      expect(del.json).toEqual({});
      expectTtsError(await api.get(entityPath('application', app), bearer(key.token)), 401, 16, 'pkg/identityserver', 'api_key_not_found');
      await sleep(300);
      const logs = stack.logs();
      expect(logs.length).toBeGreaterThan(0);
      for (const s of [key.secret, ...wrongSecrets]) expect(secretForms(s).filter((f) => logs.includes(f))).toEqual([]);
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('key changes take effect at once (cache invalidation)', () => {
    it('reducing, then restoring the rights of a key', async () => {
      const app = freshId('inv-app');
      await access.createApplication(app);
      const key = await access.createKey('application', app, [R.APP_INFO, R.DEVICES_READ]);
      const as = bearer(key.token);
      ok(await api.get(isDevicesPath(app), as), 'list devices');
      ok(await api.get(isDevicesPath(app), as), 'list devices (remembered)');
      const upd = await api.put(`${apiKeysPath('application', app)}/${key.id}`, { api_key: { rights: [R.APP_INFO] }, field_mask: { paths: ['rights'] } });
      ok(upd, 'reduce the rights');
      expect(upd.json.rights).toEqual([R.APP_INFO]);
      expectInsufficient(await api.get(isDevicesPath(app), as), 'application', app, [R.DEVICES_READ]);
      ok(await api.get(entityPath('application', app), as), 'get the application with INFO');
      ok(
        await api.put(`${apiKeysPath('application', app)}/${key.id}`, { api_key: { rights: [R.APP_INFO, R.DEVICES_READ] }, field_mask: { paths: ['rights'] } }),
        'restore',
      );
      ok(await api.get(isDevicesPath(app), as), 'list devices after restoring');
    });

    it('a deleted key → 401 at once', async () => {
      const app = freshId('inv-del');
      await access.createApplication(app);
      const key = await access.createKey('application', app, [R.APP_INFO, R.DEVICES_READ]);
      const as = bearer(key.token);
      ok(await api.get(entityPath('application', app), as), 'get the application');
      ok(await api.get(isDevicesPath(app), as), 'list devices');
      ok(await api.get('/api/v3/auth_info', as), 'auth_info');
      ok(await api.delete(`${apiKeysPath('application', app)}/${key.id}`), 'delete the key');
      for (const path of [entityPath('application', app), isDevicesPath(app), '/api/v3/auth_info']) {
        expectTtsError(await api.get(path, as), 401, 16, 'pkg/identityserver', 'api_key_not_found');
      }
      expect((await api.get(`${apiKeysPath('application', app)}/${key.id}`)).status).toBe(404);
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('bad input is refused and stores nothing', () => {
    const totals = async () => ({
      applications: await access.total(`/api/v3/users/${ADMIN}/applications`),
      gateways: await access.total(`/api/v3/users/${ADMIN}/gateways`),
      users: await access.total('/api/v3/users'),
    });

    it('bad IDs → 400', async () => {
      const before = await totals();
      for (const id of ['Bad_App', 'ab', '-abc', 'a'.repeat(37), 'abc--def']) {
        expectValidationError(await api.post(`/api/v3/users/${ADMIN}/applications`, { application: { ids: { application_id: id } } }), 'application_id');
        expectValidationError(
          await api.post(`/api/v3/users/${ADMIN}/gateways`, { gateway: { ids: { gateway_id: id, eui: randomEui() }, frequency_plan_id: 'EU_863_870' } }),
          'gateway_id',
        );
        expectValidationError(
          await api.post('/api/v3/users', { user: { ids: { user_id: id }, primary_email_address: 'x@example.com', password: 'Pw-0123456789' } }),
          'user_id',
        );
      }
      expect(await totals()).toEqual(before);
    });

    it('duplicate application, gateway and user IDs → 409 id_taken; a duplicate gateway EUI → 409', async () => {
      const app = freshId('dup-app');
      const gtw = freshId('dup-gtw');
      const user = freshId('dup-user');
      const eui = randomEui();
      await access.createApplication(app);
      await access.createGateway(gtw, eui);
      await access.createUser(user);
      const before = await totals();
      const taken = (res: ApiResponse) => expectTtsError(res, 409, 6, 'pkg/util/store', 'id_taken');
      taken(await api.post(`/api/v3/users/${ADMIN}/applications`, { application: { ids: { application_id: app }, name: 'again' } }));
      taken(await api.post(`/api/v3/users/${ADMIN}/gateways`, { gateway: { ids: { gateway_id: gtw, eui: randomEui() }, frequency_plan_id: 'EU_863_870' } }));
      taken(await api.post('/api/v3/users', { user: { ids: { user_id: user }, primary_email_address: `${user}2@example.com`, password: 'Pw-0123456789' } }));
      for (const e of [eui, eui.toLowerCase()]) {
        const res = await api.post(`/api/v3/users/${ADMIN}/gateways`, {
          gateway: { ids: { gateway_id: freshId('dup-eui'), eui: e }, frequency_plan_id: 'EU_863_870' },
        });
        expectHttp(res, 409, `${mode}: a second gateway with EUI ${e}`);
        expect(res.json.code).toBe(6);
      }
      expect(await totals()).toEqual(before);
      const name = await api.get(`${entityPath('application', app)}?field_mask=name`);
      expect(name.json.name).toBeUndefined();
    });

    it('API keys: unknown right, empty or duplicate rights, expires_at in the past → 400', async () => {
      const app = freshId('bad-key');
      const user = freshId('bad-key-user');
      await access.createApplication(app);
      await access.createUser(user);
      const past = new Date(Date.now() - 60_000).toISOString();
      const cases: Array<[Kind, string, Record<string, unknown>]> = [
        ['application', app, { name: 'unknown right', rights: ['RIGHT_APPLICATION_FLY'] }],
        ['application', app, { name: 'empty rights', rights: [] }],
        ['application', app, { name: 'no rights' }],
        ['application', app, { name: 'twice', rights: [R.APP_INFO, R.APP_INFO] }],
        ['application', app, { name: 'expired', rights: [R.APP_INFO], expires_at: past }],
        ['user', user, { name: 'unknown right', rights: ['RIGHT_USER_FLY'] }],
        ['user', user, { name: 'empty rights', rights: [] }],
        ['user', user, { name: 'expired', rights: [R.USER_INFO], expires_at: past }],
      ];
      const before = { application: await access.total(apiKeysPath('application', app)), user: await access.total(apiKeysPath('user', user)) };
      for (const [kind, id, body] of cases) {
        const res = await api.post(apiKeysPath(kind, id), body);
        expectHttp(res, 400, `${mode}: create a ${kind} key ${JSON.stringify(body)}`);
        expect(res.json.code).toBe(3);
        expect(res.text).not.toMatch(/NNSXS\./);
      }
      expect({ application: await access.total(apiKeysPath('application', app)), user: await access.total(apiKeysPath('user', user)) }).toEqual(before);
      // An update cannot move the expiry into the past or give unknown rights either.
      const key = await access.createKey('application', app, [R.APP_INFO]);
      for (const api_key of [{ expires_at: past }, { rights: ['RIGHT_APPLICATION_FLY'] }]) {
        const paths = Object.keys(api_key);
        const res = await api.put(`${apiKeysPath('application', app)}/${key.id}`, { api_key, field_mask: { paths } });
        expectHttp(res, 400, `${mode}: update a key with ${JSON.stringify(api_key)}`);
      }
      const get = await api.get(`${apiKeysPath('application', app)}/${key.id}`);
      expect(get.json.rights).toEqual([R.APP_INFO]);
      expect(get.json.expires_at).toBeUndefined();
      // An update emptying the rights deletes the key, as TTS does for older clients (its SDK's deleteById).
      const empty = await api.put(`${apiKeysPath('application', app)}/${key.id}`, { api_key: { rights: [] }, field_mask: { paths: ['rights'] } });
      expectHttp(empty, 200, `${mode}: update a key with no rights`);
      expect(empty.json).toEqual({});
      expectTtsError(await api.get(`${apiKeysPath('application', app)}/${key.id}`), 404, 5, 'pkg/identityserver/store', 'api_key_not_found');
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('applications', () => {
    it('Get answers ids and timestamps, plus the masked fields', async () => {
      const app = freshId('get-app');
      const created = await access.createApplication(app, ADMIN, undefined, {
        name: 'Get app',
        description: 'An application',
        attributes: { 'key-one': 'v1' },
      });
      expect(created.json).toMatchObject({ ids: { application_id: app }, name: 'Get app' });
      expect(created.json.created_at).toMatch(RFC3339);
      const bare = await api.get(entityPath('application', app));
      ok(bare, 'get');
      expect(bare.json.ids).toEqual({ application_id: app });
      expect(bare.json.created_at).toMatch(RFC3339);
      expect(bare.json.updated_at).toMatch(RFC3339);
      expect(bare.json.name).toBeUndefined();
      const masked = await api.get(`${entityPath('application', app)}?field_mask=name`);
      ok(masked, 'get name');
      expect(masked.json).toMatchObject({ ids: { application_id: app }, name: 'Get app' });
      expect(masked.json.description).toBeUndefined();
      expect(masked.json.attributes).toBeUndefined();
      const more = await api.get(`${entityPath('application', app)}?field_mask=name,description,attributes`);
      expect(more.json).toMatchObject({ name: 'Get app', description: 'An application', attributes: { 'key-one': 'v1' } });
    });

    it('List: GET /applications and GET /users/admin/applications with X-Total-Count and paging', async () => {
      const apps = [freshId('list-app'), freshId('list-app'), freshId('list-app')];
      for (const a of apps) await access.createApplication(a);
      for (const path of ['/api/v3/applications', `/api/v3/users/${ADMIN}/applications`]) {
        const res = await api.get(`${path}?field_mask=name&limit=1000`);
        ok(res, `list ${path}`);
        const total = Number(res.headers.get('x-total-count'));
        const listed = (res.json.applications ?? []).map((a: { ids: { application_id: string } }) => a.ids.application_id);
        expect(listed).toEqual(expect.arrayContaining(apps));
        expect(total).toBe(listed.length);
        const page = await api.get(`${path}?limit=2&page=1`);
        ok(page, `page of ${path}`);
        expect(page.json.applications).toHaveLength(2);
        expect(page.headers.get('x-total-count')).toBe(String(total));
      }
      // An application key lists no applications (TTS: `{}`).
      const key = await access.createKey('application', apps[0], [R.APP_ALL]);
      const own = await api.get('/api/v3/applications', bearer(key.token));
      ok(own, 'list with an application key');
      expect(own.json.applications ?? []).toEqual([]);
    });

    it('Update changes the masked fields only', async () => {
      const app = freshId('upd-app');
      await access.createApplication(app, ADMIN, undefined, { name: 'Before', description: 'Kept' });
      const res = await api.put(entityPath('application', app), {
        application: { ids: { application_id: app }, name: 'After', description: 'Not kept' },
        field_mask: { paths: ['name'] },
      });
      ok(res, 'update');
      expect(res.json.name).toBe('After');
      const get = await api.get(`${entityPath('application', app)}?field_mask=name,description`);
      expect(get.json).toMatchObject({ name: 'After', description: 'Kept' });
      // A key with INFO only may not update.
      const key = await access.createKey('application', app, [R.APP_INFO]);
      expectInsufficient(
        await api.put(
          entityPath('application', app),
          { application: { ids: { application_id: app }, name: 'Nope' }, field_mask: { paths: ['name'] } },
          bearer(key.token),
        ),
        'application',
        app,
        [R.APP_SETTINGS_BASIC],
      );
    });

    it('Delete is refused while the IS holds devices; afterwards it succeeds and the ID stays taken', async () => {
      const app = freshId('del-app');
      await access.createApplication(app);
      const dev = freshId('dev');
      ok(await api.post(isDevicesPath(app), { end_device: { ids: otaaIds(dev) } }), 'create a device');
      const refused = await api.delete(entityPath('application', app));
      expectTtsError(refused, 400, 9, 'pkg/identityserver', 'application_has_devices');
      ok(await api.get(entityPath('application', app)), 'the application is still there');
      ok(await api.delete(isDevicePath(app, dev)), 'delete the device');
      const del = await api.delete(entityPath('application', app));
      ok(del, 'delete the application');
      expect(del.json).toEqual({});
      expectTtsError(await api.get(entityPath('application', app)), 404, 5, 'pkg/identityserver/store', 'application_not_found');
      const list = await api.get(`/api/v3/users/${ADMIN}/applications?limit=1000`);
      expect((list.json.applications ?? []).map((a: { ids: { application_id: string } }) => a.ids.application_id)).not.toContain(app);
      expectTtsError(
        await api.post(`/api/v3/users/${ADMIN}/applications`, { application: { ids: { application_id: app } } }),
        409,
        6,
        'pkg/util/store',
        'id_taken',
      );
    });

    it('a caller without rights gets the same 403 whether the application exists or not', async () => {
      const app = freshId('hidden-app');
      const missing = freshId('no-such-app');
      const keyApp = freshId('hidden-key');
      const user = freshId('outsider');
      await access.createApplication(app);
      await access.createApplication(keyApp);
      await access.createUser(user);
      const appKey = await access.createKey('application', keyApp, [R.APP_ALL]);
      // A non-admin user who collaborates on neither application (its key holds user rights only).
      const userKey = await access.createKey('user', user, [R.USER_INFO, 'RIGHT_USER_APPLICATIONS_LIST']);
      for (const key of [appKey, userKey]) {
        for (const path of [
          (a: string) => entityPath('application', a),
          isDevicesPath,
          (a: string) => registryDevicePath('js', a, 'dev1'),
          (a: string) => apiKeysPath('application', a),
        ]) {
          const existing = await api.get(path(app), bearer(key.token));
          const absent = await api.get(path(missing), bearer(key.token));
          const e = expectTtsError(existing, 403, 7, 'pkg/auth/rights', 'no_application_rights', { uid: app });
          const a = expectTtsError(absent, 403, 7, 'pkg/auth/rights', 'no_application_rights', { uid: missing });
          expect(a.message_format).toBe(e.message_format);
          expect(Object.keys(a.attributes ?? {}).sort()).toEqual(Object.keys(e.attributes ?? {}).sort());
        }
      }
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('gateways', () => {
    it('create with an EUI, get, list, update, delete; the ID stays taken', async () => {
      const gtw = freshId('gtw');
      const eui = randomEui();
      const created = await api.post(`/api/v3/users/${ADMIN}/gateways`, {
        gateway: { ids: { gateway_id: gtw, eui: eui.toLowerCase() }, name: 'GW', frequency_plan_id: 'EU_863_870' },
      });
      ok(created, 'create');
      expect(created.json.ids).toEqual({ gateway_id: gtw, eui });
      const get = await api.get(`${entityPath('gateway', gtw)}?field_mask=name,frequency_plan_ids`);
      ok(get, 'get');
      expect(get.json).toMatchObject({ ids: { gateway_id: gtw, eui }, name: 'GW', frequency_plan_ids: ['EU_863_870'] });
      for (const path of ['/api/v3/gateways', `/api/v3/users/${ADMIN}/gateways`]) {
        const list = await api.get(`${path}?field_mask=name&limit=1000`);
        ok(list, `list ${path}`);
        const listed = (list.json.gateways ?? []).map((g: { ids: { gateway_id: string } }) => g.ids.gateway_id);
        expect(listed).toContain(gtw);
        expect(Number(list.headers.get('x-total-count'))).toBe(listed.length);
      }
      const upd = await api.put(entityPath('gateway', gtw), {
        gateway: { ids: { gateway_id: gtw }, name: 'GW 2', description: 'not kept' },
        field_mask: { paths: ['name'] },
      });
      ok(upd, 'update');
      const after = await api.get(`${entityPath('gateway', gtw)}?field_mask=name,description`);
      expect(after.json.name).toBe('GW 2');
      expect(after.json.description).toBeUndefined();
      // A gateway key works on its gateway only.
      const key = await access.createKey('gateway', gtw, [R.GATEWAY_INFO]);
      ok(await api.get(entityPath('gateway', gtw), bearer(key.token)), 'get with the gateway key');
      const del = await api.delete(entityPath('gateway', gtw));
      ok(del, 'delete');
      expect(del.json).toEqual({});
      expect((await api.get(entityPath('gateway', gtw))).status).toBe(404);
      expectTtsError(
        await api.post(`/api/v3/users/${ADMIN}/gateways`, { gateway: { ids: { gateway_id: gtw, eui: randomEui() }, frequency_plan_id: 'EU_863_870' } }),
        409,
        6,
        'pkg/util/store',
        'id_taken',
      );
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('GET /auth_info', () => {
    it('for an application key: the key (no secret) and its application', async () => {
      const app = freshId('info-app');
      await access.createApplication(app);
      const key = await access.createKey('application', app, [R.APP_INFO, R.DEVICES_READ]);
      const res = await api.get('/api/v3/auth_info', bearer(key.token));
      ok(res, 'auth_info');
      expect(res.json.api_key?.entity_ids).toEqual({ application_ids: { application_id: app } });
      expect(res.json.api_key?.api_key).toMatchObject({ id: key.id });
      expect([...(res.json.api_key?.api_key?.rights ?? [])].sort()).toEqual([R.APP_INFO, R.DEVICES_READ].sort());
      expect(res.json.api_key?.api_key?.key).toBeUndefined();
      expect(res.json.is_admin ?? false).toBe(false);
      expect(res.text).not.toContain(key.secret);
    });

    it('for the admin key: the admin user, is_admin and universal rights', async () => {
      const res = await api.get('/api/v3/auth_info');
      ok(res, 'auth_info');
      expect(res.json.is_admin).toBe(true);
      expect(res.json.api_key?.entity_ids).toEqual({ user_ids: { user_id: ADMIN } });
      // TTS `Rights universal_rights = 3`: a Rights message, `{"rights":[…]}` (the admin rights: no `*_KEYS`, no `*_ALL`).
      expect(res.json.universal_rights).toEqual({ rights: expect.arrayContaining([R.APP_INFO, R.DEVICES_READ, R.USER_INFO]) });
      expect(res.json.universal_rights.rights).not.toContain(R.READ_KEYS);
      expect(res.json.universal_rights.rights).not.toContain(R.APP_ALL);
      expect(res.text).not.toContain(stack.adminKey.split('.')[2]);
    });
  });

  // ------------------------------------------------------------------------------------------
  it('no log of any process contains a secret created or sent in this suite, and no request answered 5xx', async () => {
    await sleep(300);
    const logs = stack.logs();
    expect(logs.length).toBeGreaterThan(0);
    expect(access.secrets.length).toBeGreaterThan(0);
    const leaked = [...access.secrets, ...wrongSecrets].filter((s) => secretForms(s).some((f) => logs.includes(f)));
    expect(leaked).toEqual([]);
    // Nor the admin key's secret (from the environment).
    expect(logs.includes(stack.adminKey.split('.')[2])).toBe(false);
    expect(api.serverErrors).toEqual([]);
  });
});
