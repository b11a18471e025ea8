import { DeviceTemplateCatalogue } from '@lorawan/lorawan';
import { copySourceFor, DeviceRegistry, keySealerFor, TypeOrmDeviceStore } from '@lorawan/registry';
import { CTX, delReq, errorOf, getReq, openTestDataSource, rawFieldsOf, setReq, unobservedEvents } from '@lorawan/registry/conformance';
import { AS_MIGRATIONS } from '../migrations';
import { AS_REGISTRY_POLICY } from './as-registry.policy';

/** The Application Server's registry (AS_REGISTRY_POLICY on the DeviceRegistry engine) against a real store (SQLite). */

const APP = 'app-as';
const APP_S_KEY = '00112233445566778899AABBCCDDEEFF';
const APP_S_KEY_2 = '55555555555555555555555555555555';
const NWK_KEY = '33333333333333333333333333333333';
const ZERO_KEY = '00000000000000000000000000000000';
const JOIN_EUI = '70B3D57ED0000000';
const KEKS = 'k1=000102030405060708090A0B0C0D0E0F';
const EUI = (n: number) => `70B3D57ED2${n.toString(16).toUpperCase().padStart(6, '0')}`;
const ids = (device_id: string, extra: Record<string, string> = {}, app = APP) => ({ device_id, application_ids: { application_id: app }, ...extra });
const SESSION_PATHS = ['session.dev_addr', 'session.keys.app_s_key.key', 'session.keys.session_key_id'];
const withSession = (id: string, devAddr: string, extra: object = {}) => ({
  ids: ids(id),
  session: { dev_addr: devAddr, keys: { session_key_id: 'AQID', app_s_key: { key: APP_S_KEY } } },
  ...extra,
});
const DOWNLINKS = [
  { f_port: 1, frm_payload: 'AQID', priority: 'NORMAL' },
  { f_port: 2, frm_payload: 'BAUG', confirmed: true, priority: 'HIGH' },
];

const fieldValue = (field: string) => ({
  namespace: 'pkg/applicationserver',
  name: 'field_value',
  code: 3,
  attributes: { field },
  cause: { namespace: 'pkg/applicationserver', name: 'field_is_zero', attributes: { name: field } },
});

type Json = Record<string, unknown>;

const events = unobservedEvents();

describe('AsEndDeviceRegistry (SQLite)', () => {
  let db: Awaited<ReturnType<typeof openTestDataSource>>;
  let store: TypeOrmDeviceStore;
  let registry: DeviceRegistry;
  const plain = () => keySealerFor('as', { keks: undefined, kekLabels: {} });
  const rawFields = (dev: string) => rawFieldsOf(db.ds, APP, dev);
  const get = (dev: string, paths: string[]) => registry.get(getReq(ids(dev), paths)) as Promise<Json>;

  beforeAll(async () => {
    db = await openTestDataSource('as', AS_MIGRATIONS, 'sqlite');
    store = new TypeOrmDeviceStore(db.ds);
    registry = new DeviceRegistry(store, AS_REGISTRY_POLICY, plain(), events, copySourceFor({}));
  });
  afterAll(async () => db.close());

  it('creates, gets (AppSKey only when masked), deletes ({}), then answers pkg/applicationserver:device_not_found (404)', async () => {
    const res = await registry.set(setReq(withSession('dev-1', '26000001'), SESSION_PATHS), CTX);
    expect(res).toEqual({
      ids: ids('dev-1', { dev_addr: '26000001' }),
      session: { dev_addr: '26000001', keys: { session_key_id: 'AQID', app_s_key: { key: APP_S_KEY } } },
    });
    expect(await get('dev-1', ['session.dev_addr'])).toEqual({ ids: ids('dev-1', { dev_addr: '26000001' }), session: { dev_addr: '26000001' } });
    expect(await get('dev-1', ['session.keys.app_s_key.key'])).toEqual({
      ids: ids('dev-1', { dev_addr: '26000001' }),
      session: { keys: { app_s_key: { key: APP_S_KEY } } },
    });
    expect(await registry.delete(delReq(ids('dev-1')), CTX)).toEqual({});
    for (const call of [get('dev-1', []), registry.delete(delReq(ids('dev-1')), CTX)]) {
      expect(await errorOf(call)).toMatchObject({
        namespace: 'pkg/applicationserver',
        name: 'device_not_found',
        code: 5,
        attributes: { device_uid: `${APP}.dev-1` },
      });
    }
  });

  describe('session', () => {
    it('session.dev_addr zero (or masked and absent) → pkg/applicationserver:field_value', async () => {
      expect(await errorOf(registry.set(setReq(withSession('zero-1', '00000000'), SESSION_PATHS), CTX))).toMatchObject(fieldValue('session.dev_addr'));
      expect(
        await errorOf(registry.set(setReq({ ids: ids('zero-1'), session: { keys: { app_s_key: { key: APP_S_KEY } } } }, SESSION_PATHS), CTX)),
      ).toMatchObject(fieldValue('session.dev_addr'));
      expect(await store.get(APP, 'zero-1')).toBeUndefined();
    });

    it('app_s_key zero (or masked and absent) → pkg/applicationserver:field_value', async () => {
      const zero = { ids: ids('zero-2'), session: { dev_addr: '26000002', keys: { app_s_key: { key: ZERO_KEY } } } };
      for (const path of ['session.keys.app_s_key.key', 'session.keys.app_s_key']) {
        expect(await errorOf(registry.set(setReq(zero, ['session.dev_addr', path]), CTX))).toMatchObject(fieldValue('session.keys.app_s_key.key'));
      }
      expect(await errorOf(registry.set(setReq({ ids: ids('zero-2'), session: { dev_addr: '26000002', keys: {} } }, SESSION_PATHS), CTX))).toMatchObject(
        fieldValue('session.keys.app_s_key.key'),
      );
      expect(await store.get(APP, 'zero-2')).toBeUndefined();
    });

    it('a zero AppSKey on update is refused and leaves the device unchanged, also when the stored key is wrapped', async () => {
      const sealed = new DeviceRegistry(store, AS_REGISTRY_POLICY, keySealerFor('as', { keks: KEKS, kekLabels: { as: 'k1' } }), events, copySourceFor({}));
      for (const [dev, r] of [
        ['zero-3', registry],
        ['zero-4', sealed],
      ] as const) {
        await r.set(setReq(withSession(dev, '26000003'), SESSION_PATHS), CTX);
        const before = await store.get(APP, dev);
        expect(
          await errorOf(r.set(setReq({ ids: ids(dev), session: { keys: { app_s_key: { key: ZERO_KEY } } } }, ['session.keys.app_s_key.key']), CTX)),
        ).toMatchObject(fieldValue('session.keys.app_s_key.key'));
        expect(await errorOf(r.set(setReq({ ids: ids(dev), session: { keys: {} } }, ['session.keys.app_s_key.key']), CTX))).toMatchObject(
          fieldValue('session.keys.app_s_key.key'),
        );
        expect(await store.get(APP, dev)).toEqual(before);
      }
    });

    it('ids.dev_addr follows session.dev_addr; the DevAddr lookup follows it too', async () => {
      await registry.set(setReq(withSession('addr-1', '26000011'), SESSION_PATHS), CTX);
      expect((await store.get(APP, 'addr-1'))?.ids).toEqual(ids('addr-1', { dev_addr: '26000011' }));
      const res = await registry.set(setReq({ ids: ids('addr-1'), session: { dev_addr: '26000012', keys: {} } }, ['session.dev_addr']), CTX);
      expect(res).toEqual({ ids: ids('addr-1', { dev_addr: '26000012' }), session: { dev_addr: '26000012' } });
      expect((await registry.getByDevAddr('26000012')).ids.device_id).toBe('addr-1');
      expect(await errorOf(registry.getByDevAddr('26000011'))).toMatchObject({ namespace: 'pkg/applicationserver', name: 'device_not_found' });
      // The AppSKey stayed.
      expect(await get('addr-1', ['session.keys.app_s_key.key'])).toMatchObject({ session: { keys: { app_s_key: { key: APP_S_KEY } } } });
    });

    it('stores only its own session fields: network keys and counters in the body are dropped; the mask cannot name them', async () => {
      const session = {
        dev_addr: '26000021',
        last_f_cnt_up: 9,
        last_a_f_cnt_down: 4,
        keys: { session_key_id: 'AQID', app_s_key: { key: APP_S_KEY }, f_nwk_s_int_key: { key: NWK_KEY }, nwk_s_enc_key: { key: NWK_KEY } },
      };
      await registry.set(setReq({ ids: ids('own-1'), session }, [...SESSION_PATHS, 'session.last_a_f_cnt_down']), CTX);
      expect(JSON.parse((await rawFields('own-1')) ?? '{}')).toEqual({
        session: { dev_addr: '26000021', last_a_f_cnt_down: 4, keys: { session_key_id: 'AQID', app_s_key: { key: APP_S_KEY } } },
      });
      expect(((await get('own-1', ['session'])) as Json)['session']).toEqual({
        dev_addr: '26000021',
        last_a_f_cnt_down: 4,
        keys: { session_key_id: 'AQID', app_s_key: { key: APP_S_KEY } },
      });
      const err = await errorOf(
        registry.set(setReq({ ids: ids('own-1'), session }, ['session.keys.f_nwk_s_int_key.key', 'session', 'session.last_f_cnt_up']), CTX),
      );
      expect(err).toMatchObject({
        namespace: 'pkg/rpcmiddleware/validator',
        name: 'field_mask_paths',
        attributes: { forbidden_paths: ['session.keys.f_nwk_s_int_key.key', 'session', 'session.last_f_cnt_up'] },
      });
    });

    it('app_s_key at rest: wrapped with the AS KEK label, never plain in the fields column; Get opens it', async () => {
      const sealed = new DeviceRegistry(store, AS_REGISTRY_POLICY, keySealerFor('as', { keks: KEKS, kekLabels: { as: 'k1' } }), events, copySourceFor({}));
      await sealed.set(setReq(withSession('kek-1', '26000031'), SESSION_PATHS), CTX);
      const raw = (await rawFields('kek-1')) ?? '';
      expect((JSON.parse(raw) as { session: { keys: Json } }).session.keys['app_s_key']).toEqual({
        kek_label: 'k1',
        encrypted_key: Buffer.from('1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5', 'hex').toString('base64'),
      });
      expect(raw.toUpperCase()).not.toContain(APP_S_KEY);
      expect(await sealed.get(getReq(ids('kek-1'), ['session.keys.app_s_key.key']))).toMatchObject({ session: { keys: { app_s_key: { key: APP_S_KEY } } } });
      // A new key replaces the wrapped one.
      await sealed.set(setReq({ ids: ids('kek-1'), session: { keys: { app_s_key: { key: APP_S_KEY_2 } } } }, ['session.keys.app_s_key.key']), CTX);
      expect(await sealed.get(getReq(ids('kek-1'), ['session.keys.app_s_key']))).toMatchObject({ session: { keys: { app_s_key: { key: APP_S_KEY_2 } } } });
      expect((await rawFields('kek-1'))?.toUpperCase()).not.toContain(APP_S_KEY_2);
    });
  });

  describe('formatters: Copy on create from the template only, never from the profile', () => {
    const catalogue = DeviceTemplateCatalogue.load();
    const profiled = () =>
      new DeviceRegistry(
        store,
        AS_REGISTRY_POLICY,
        plain(),
        events,
        copySourceFor({
          defaultDeviceProfile: { supports_join: true, formatters: { up_formatter: 'FORMATTER_CAYENNELPP', down_formatter: 'FORMATTER_CAYENNELPP' } },
        }),
      );

    it('copied from the matching template', async () => {
      const version_ids = { brand_id: 'elsys', model_id: 'ers' };
      const res = await profiled().set(setReq({ ids: ids('fmt-1'), version_ids }, ['version_ids']), CTX);
      const expected = catalogue.find(version_ids)?.formatters;
      expect(expected?.up_formatter).toBe('FORMATTER_JAVASCRIPT');
      expect(res).toEqual({ ids: ids('fmt-1'), version_ids, formatters: expected });
      expect((await store.get(APP, 'fmt-1'))?.fields).toEqual({ version_ids, formatters: expected });
    });

    it("a template without formatters, or no template at all, gives none: the profile's formatters are never used", async () => {
      await profiled().set(setReq({ ids: ids('fmt-2'), version_ids: { brand_id: 'dragino', model_id: 'lt-22222-l' } }, ['version_ids']), CTX);
      expect((await store.get(APP, 'fmt-2'))?.fields['formatters']).toBeUndefined();
      await profiled().set(setReq({ ids: ids('fmt-3') }, []), CTX);
      expect((await store.get(APP, 'fmt-3'))?.fields).toEqual({});
    });

    it('formatters in the request are kept; an update never copies', async () => {
      const formatters = { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: 'function decodeUplink(i) { return { data: {} }; }' };
      await profiled().set(setReq({ ids: ids('fmt-4'), version_ids: { brand_id: 'elsys', model_id: 'ers' }, formatters }, ['formatters']), CTX);
      expect((await store.get(APP, 'fmt-4'))?.fields).toEqual({ formatters });
      await profiled().set(setReq({ ids: ids('fmt-4'), version_ids: { brand_id: 'elsys', model_id: 'ers' } }, ['formatters']), CTX);
      expect((await store.get(APP, 'fmt-4'))?.fields).toEqual({});
    });
  });

  describe('queued_application_downlinks (deprecated) always equals session.queued_application_downlinks', () => {
    const queues = async (dev: string) => {
      const res = (await get(dev, ['queued_application_downlinks', 'session.queued_application_downlinks'])) as {
        queued_application_downlinks?: unknown;
        session?: { queued_application_downlinks?: unknown };
      };
      return { top: res.queued_application_downlinks, session: res.session?.queued_application_downlinks };
    };

    it('set through the top-level path: both read the same, and only the session holds it at rest', async () => {
      await registry.set(setReq(withSession('queue-1', '26000041'), SESSION_PATHS), CTX);
      await registry.set(setReq({ ids: ids('queue-1'), queued_application_downlinks: DOWNLINKS }, ['queued_application_downlinks']), CTX);
      expect(await queues('queue-1')).toEqual({ top: DOWNLINKS, session: DOWNLINKS });
      expect(await get('queue-1', ['queued_application_downlinks'])).toEqual({
        ids: ids('queue-1', { dev_addr: '26000041' }),
        queued_application_downlinks: DOWNLINKS,
      });
      const stored = JSON.parse((await rawFields('queue-1')) ?? '{}') as Json;
      expect(stored['queued_application_downlinks']).toBeUndefined();
      expect((stored['session'] as Json)['queued_application_downlinks']).toEqual(DOWNLINKS);
      // The session's other fields stayed.
      expect(await get('queue-1', ['session.dev_addr'])).toMatchObject({ session: { dev_addr: '26000041' } });
    });

    it('set through the session path: the top-level field reads the same', async () => {
      await registry.set(setReq(withSession('queue-2', '26000042'), SESSION_PATHS), CTX);
      await registry.set(
        setReq({ ids: ids('queue-2'), session: { keys: {}, queued_application_downlinks: DOWNLINKS.slice(1) } }, ['session.queued_application_downlinks']),
        CTX,
      );
      expect(await queues('queue-2')).toEqual({ top: DOWNLINKS.slice(1), session: DOWNLINKS.slice(1) });
    });

    it('set on creation, before any session: both read the same', async () => {
      await registry.set(setReq({ ids: ids('queue-3'), queued_application_downlinks: DOWNLINKS }, ['queued_application_downlinks']), CTX);
      expect(await queues('queue-3')).toEqual({ top: DOWNLINKS, session: DOWNLINKS });
    });

    it('clearing one clears both', async () => {
      for (const [dev, path] of [
        ['queue-4', 'queued_application_downlinks'],
        ['queue-5', 'session.queued_application_downlinks'],
      ]) {
        await registry.set(setReq(withSession(dev, '26000045'), SESSION_PATHS), CTX);
        await registry.set(setReq({ ids: ids(dev), queued_application_downlinks: DOWNLINKS }, ['queued_application_downlinks']), CTX);
        await registry.set(setReq({ ids: ids(dev) }, [path]), CTX);
        expect(await queues(dev)).toEqual({ top: undefined, session: undefined });
        expect(await rawFields(dev)).not.toContain('queued_application_downlinks');
      }
    });
  });

  describe('duplicate EUIs (the AS allows them)', () => {
    beforeAll(async () => {
      for (const [id, app] of [
        ['dup-a', APP],
        ['dup-b', APP],
        ['dup-c', 'app-as-2'],
      ]) {
        await registry.set(setReq({ ids: ids(id, { dev_eui: id === 'dup-c' ? EUI(2) : EUI(1), join_eui: JOIN_EUI }, app) }, []), CTX);
      }
    });

    it('getByEuis: two devices with the same JoinEUI and DevEUI → multiple_end_devices; one → the device; none → not found', async () => {
      const err = await errorOf(registry.getByEuis(JOIN_EUI, EUI(1)));
      expect(err).toMatchObject({ namespace: 'pkg/internal/registry', name: 'multiple_end_devices', code: 3, attributes: { count: 2 } });
      expect([...(err.attributes?.['device_ids'] as string[])].sort()).toEqual([`${APP}.dup-a`, `${APP}.dup-b`]);
      expect((await registry.getByEuis(JOIN_EUI, EUI(2))).ids).toEqual(ids('dup-c', { dev_eui: EUI(2), join_eui: JOIN_EUI }, 'app-as-2'));
      expect(await errorOf(registry.getByEuis(JOIN_EUI, EUI(3)))).toMatchObject({ namespace: 'pkg/applicationserver', name: 'device_not_found', code: 5 });
    });

    it('Get and Delete by device_id alone work; with the shared DevEUI as well, both devices match → multiple_end_devices, nothing deleted', async () => {
      expect((await get('dup-a', [])).ids).toEqual(ids('dup-a', { dev_eui: EUI(1), join_eui: JOIN_EUI }));
      const shared = ids('dup-a', { dev_eui: EUI(1), join_eui: JOIN_EUI });
      expect(await errorOf(registry.get(getReq(shared)))).toMatchObject({
        name: 'multiple_end_devices',
        attributes: { count: 2, device_ids: ['dup-a', 'dup-b'] },
      });
      expect(await errorOf(registry.delete(delReq(shared), CTX))).toMatchObject({ name: 'multiple_end_devices' });
      expect(await store.get(APP, 'dup-a')).toBeDefined();
      expect(await registry.delete(delReq(ids('dup-b')), CTX)).toEqual({});
      expect((await registry.getByEuis(JOIN_EUI, EUI(1))).ids.device_id).toBe('dup-a');
    });
  });
});
