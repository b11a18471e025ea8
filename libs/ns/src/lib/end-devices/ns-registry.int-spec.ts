import { getBand, getFrequencyPlan } from '@lorawan/lorawan';
import { copySourceFor, DeviceRegistry, keySealerFor, TypeOrmDeviceStore } from '@lorawan/registry';
import { CTX, delReq, errorOf, getReq, openTestDataSource, rawFieldsOf, setReq, unobservedEvents } from '@lorawan/registry/conformance';
import { NS_MIGRATIONS } from '../migrations';
import type { NsDevice } from '../model';
import { NS_REGISTRY_POLICY } from './ns-registry.policy';

/** The Network Server's registry (NS_REGISTRY_POLICY on the DeviceRegistry engine) against a real store (SQLite). */

const APP = 'app-ns';
const KEY_F = '00112233445566778899AABBCCDDEEFF';
const KEY_S = '11111111111111111111111111111111';
const KEY_E = '22222222222222222222222222222222';
const KEY_N = '33333333333333333333333333333333';
const APP_S_KEY = '44444444444444444444444444444444';
const ZERO_KEY = '00000000000000000000000000000000';
const ZERO_EUI = '0000000000000000';
const JOIN_EUI = '70B3D57ED0000000';
const KEKS = 'k1=000102030405060708090A0B0C0D0E0F';
const EUI = (n: number) => `70B3D57ED1${n.toString(16).toUpperCase().padStart(6, '0')}`;
const ids = (device_id: string, extra: Record<string, string> = {}) => ({ device_id, application_ids: { application_id: APP }, ...extra });

const BASE = { frequency_plan_id: 'EU_863_870_TTN', lorawan_version: 'MAC_V1_0_3', lorawan_phy_version: 'PHY_V1_0_3_REV_A' };
const BASE_PATHS = ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join'];
const ABP_PATHS = [...BASE_PATHS, 'session.dev_addr', 'session.keys.f_nwk_s_int_key.key'];
const otaa = (id: string, n: number, extra: object = {}) => ({ ids: ids(id, { dev_eui: EUI(n), join_eui: JOIN_EUI }), ...BASE, supports_join: true, ...extra });
const abp = (id: string, devAddr: string, extra: object = {}) => ({
  ids: ids(id),
  ...BASE,
  supports_join: false,
  session: { dev_addr: devAddr, keys: { f_nwk_s_int_key: { key: KEY_F } } },
  ...extra,
});

/** `pkg/networkserver:field_value` on `field`, with the given cause (default: field_is_zero naming the field). */
const fieldValue = (field: string, cause: object = { namespace: 'pkg/networkserver', name: 'field_is_zero', attributes: { name: field } }) => ({
  namespace: 'pkg/networkserver',
  name: 'field_value',
  code: 3,
  attributes: { field },
  cause,
});

type Json = Record<string, unknown>;

const events = unobservedEvents();

describe('NsEndDeviceRegistry (SQLite)', () => {
  let db: Awaited<ReturnType<typeof openTestDataSource>>;
  let store: TypeOrmDeviceStore;
  let registry: DeviceRegistry<NsDevice>;
  const plain = () => keySealerFor('ns', { keks: undefined, kekLabels: {} });
  const rawFields = (dev: string) => rawFieldsOf(db.ds, APP, dev);
  const get = (dev: string, paths: string[]) => registry.get(getReq(ids(dev), paths)) as Promise<Json>;

  beforeAll(async () => {
    db = await openTestDataSource('ns', NS_MIGRATIONS, 'sqlite');
    store = new TypeOrmDeviceStore(db.ds);
    registry = new DeviceRegistry(store, NS_REGISTRY_POLICY, plain(), events, copySourceFor({}));
  });
  afterAll(async () => db.close());

  it('creates an OTAA device, gets it, deletes it ({}), then answers pkg/networkserver:device_not_found (404)', async () => {
    const res = await registry.set(setReq(otaa('dev-1', 1), BASE_PATHS), CTX);
    expect(res).toEqual({ ids: ids('dev-1', { dev_eui: EUI(1), join_eui: JOIN_EUI }), ...BASE, supports_join: true });
    expect(await get('dev-1', ['frequency_plan_id'])).toEqual({
      ids: ids('dev-1', { dev_eui: EUI(1), join_eui: JOIN_EUI }),
      frequency_plan_id: 'EU_863_870_TTN',
    });
    expect(await registry.delete(delReq(ids('dev-1')), CTX)).toEqual({});
    for (const call of [get('dev-1', []), registry.delete(delReq(ids('dev-1')), CTX)]) {
      expect(await errorOf(call)).toMatchObject({ namespace: 'pkg/networkserver', name: 'device_not_found', code: 5 });
    }
  });

  it('a second device with the same JoinEUI and DevEUI → pkg/internal/registry:end_device_euis_taken (6)', async () => {
    await registry.set(setReq(otaa('dev-2', 2), BASE_PATHS), CTX);
    const err = await errorOf(registry.set(setReq(otaa('dev-3', 2), BASE_PATHS), CTX));
    expect(err).toMatchObject({
      namespace: 'pkg/internal/registry',
      name: 'end_device_euis_taken',
      code: 6,
      attributes: { join_eui: JOIN_EUI, dev_eui: EUI(2), device_id: 'dev-2', application_id: APP },
    });
    expect(await store.get(APP, 'dev-3')).toBeUndefined();
  });

  describe('requirements (pkg/networkserver:field_value)', () => {
    const refused = async (device: Json, paths: string[]) => {
      const err = await errorOf(registry.set(setReq(device, paths), CTX));
      expect(await store.get(APP, (device['ids'] as { device_id: string }).device_id)).toBeUndefined();
      return err;
    };

    it('frequency_plan_id missing → field_is_zero; unknown → frequency_plan_not_found', async () => {
      expect(await refused(otaa('req-1', 0x101, { frequency_plan_id: undefined }), BASE_PATHS)).toMatchObject(fieldValue('frequency_plan_id'));
      expect(await refused(otaa('req-1', 0x101, { frequency_plan_id: 'NOT_A_PLAN' }), BASE_PATHS)).toMatchObject(
        fieldValue('frequency_plan_id', { namespace: 'pkg/networkserver', name: 'frequency_plan_not_found', attributes: { id: 'NOT_A_PLAN' } }),
      );
    });

    it('lorawan_version and lorawan_phy_version missing or *_UNKNOWN', async () => {
      expect(await refused(otaa('req-2', 0x102, { lorawan_version: undefined }), BASE_PATHS)).toMatchObject(fieldValue('lorawan_version'));
      expect(await refused(otaa('req-2', 0x102, { lorawan_version: 'MAC_UNKNOWN' }), BASE_PATHS)).toMatchObject(fieldValue('lorawan_version'));
      expect(await refused(otaa('req-2', 0x102, { lorawan_phy_version: undefined }), BASE_PATHS)).toMatchObject(fieldValue('lorawan_phy_version'));
      expect(await refused(otaa('req-2', 0x102, { lorawan_phy_version: 'PHY_UNKNOWN' }), BASE_PATHS)).toMatchObject(fieldValue('lorawan_phy_version'));
      // Given in the body but not masked counts as missing.
      expect(await refused(otaa('req-2', 0x102), ['frequency_plan_id', 'lorawan_phy_version', 'supports_join'])).toMatchObject(fieldValue('lorawan_version'));
    });

    it('OTAA without dev_eui (or zero) or without join_eui; the zero JoinEUI is allowed', async () => {
      expect(await refused({ ...otaa('req-3', 0x103), ids: ids('req-3', { join_eui: JOIN_EUI }) }, BASE_PATHS)).toMatchObject(fieldValue('ids.dev_eui'));
      expect(await refused({ ...otaa('req-3', 0x103), ids: ids('req-3', { dev_eui: ZERO_EUI, join_eui: JOIN_EUI }) }, BASE_PATHS)).toMatchObject(
        fieldValue('ids.dev_eui'),
      );
      expect(await refused({ ...otaa('req-3', 0x103), ids: ids('req-3', { dev_eui: EUI(0x103) }) }, BASE_PATHS)).toMatchObject(fieldValue('ids.join_eui'));
      await registry.set(setReq({ ...otaa('req-3', 0x103), ids: ids('req-3', { dev_eui: EUI(0x103), join_eui: ZERO_EUI }) }, BASE_PATHS), CTX);
      expect((await store.get(APP, 'req-3'))?.ids).toEqual(ids('req-3', { dev_eui: EUI(0x103), join_eui: ZERO_EUI }));
    });

    it('ABP without session.dev_addr, with the zero DevAddr, or without (or with a zero) f_nwk_s_int_key', async () => {
      expect(await refused(abp('req-4', '26000001', { session: undefined }), BASE_PATHS)).toMatchObject(fieldValue('session.dev_addr'));
      expect(await refused(abp('req-4', '26000001', { session: { keys: { f_nwk_s_int_key: { key: KEY_F } } } }), ABP_PATHS)).toMatchObject(
        fieldValue('session.dev_addr'),
      );
      expect(await refused(abp('req-4', '00000000'), ABP_PATHS)).toMatchObject(fieldValue('session.dev_addr'));
      expect(await refused(abp('req-4', '26000001', { session: { dev_addr: '26000001', keys: {} } }), ABP_PATHS)).toMatchObject(
        fieldValue('session.keys.f_nwk_s_int_key.key'),
      );
      expect(
        await refused(abp('req-4', '26000001', { session: { dev_addr: '26000001', keys: { f_nwk_s_int_key: { key: ZERO_KEY } } } }), ABP_PATHS),
      ).toMatchObject(fieldValue('session.keys.f_nwk_s_int_key.key'));
      // The key in the body without its path in the mask is not there.
      expect(await refused(abp('req-4', '26000001'), [...BASE_PATHS, 'session.dev_addr'])).toMatchObject(fieldValue('session.keys.f_nwk_s_int_key.key'));
    });

    it('MAC_V1_1 ABP without s_nwk_s_int_key or nwk_s_enc_key', async () => {
      const v11 = (keys: Json) =>
        abp('req-5', '26000005', { lorawan_version: 'MAC_V1_1', lorawan_phy_version: 'PHY_V1_1_REV_B', session: { dev_addr: '26000005', keys } });
      const paths = [...ABP_PATHS, 'session.keys.s_nwk_s_int_key.key', 'session.keys.nwk_s_enc_key.key'];
      expect(await refused(v11({ f_nwk_s_int_key: { key: KEY_F }, nwk_s_enc_key: { key: KEY_E } }), paths)).toMatchObject(
        fieldValue('session.keys.s_nwk_s_int_key.key'),
      );
      expect(await refused(v11({ f_nwk_s_int_key: { key: KEY_F }, s_nwk_s_int_key: { key: KEY_S } }), paths)).toMatchObject(
        fieldValue('session.keys.nwk_s_enc_key.key'),
      );
      expect(await refused(v11({ f_nwk_s_int_key: { key: KEY_F }, s_nwk_s_int_key: { key: KEY_S }, nwk_s_enc_key: { key: ZERO_KEY } }), paths)).toMatchObject(
        fieldValue('session.keys.nwk_s_enc_key.key'),
      );
      await registry.set(setReq(v11({ f_nwk_s_int_key: { key: KEY_F }, s_nwk_s_int_key: { key: KEY_S }, nwk_s_enc_key: { key: KEY_E } }), paths), CTX);
      expect(((await get('req-5', ['session.keys'])) as { session: Json }).session).toEqual({
        keys: { f_nwk_s_int_key: { key: KEY_F }, s_nwk_s_int_key: { key: KEY_S }, nwk_s_enc_key: { key: KEY_E } },
      });
    });

    it('an update that breaks a requirement is refused and leaves the device byte-for-byte unchanged', async () => {
      await registry.set(setReq(abp('req-6', '26000006'), ABP_PATHS), CTX);
      const before = await store.get(APP, 'req-6');
      const raw = await rawFields('req-6');
      expect(
        await errorOf(
          registry.set(
            setReq({ ids: ids('req-6'), frequency_plan_id: 'NOT_A_PLAN', mac_settings: { use_adr: true } }, ['frequency_plan_id', 'mac_settings']),
            CTX,
          ),
        ),
      ).toMatchObject({
        name: 'field_value',
        attributes: { field: 'frequency_plan_id' },
      });
      expect(await errorOf(registry.set(setReq({ ids: ids('req-6'), lorawan_version: 'MAC_UNKNOWN' }, ['lorawan_version']), CTX))).toMatchObject(
        fieldValue('lorawan_version'),
      );
      expect(await store.get(APP, 'req-6')).toEqual(before);
      expect(await rawFields('req-6')).toBe(raw);
    });
  });

  describe('ABP sessions', () => {
    it('before LoRaWAN 1.1 the FNwkSIntKey is copied to SNwkSIntKey and NwkSEncKey', async () => {
      const res = await registry.set(setReq(abp('abp-1', '26000101'), ABP_PATHS), CTX);
      expect(res).toMatchObject({ session: { dev_addr: '26000101', keys: { f_nwk_s_int_key: { key: KEY_F } } } });
      expect(((await get('abp-1', ['session.keys'])) as { session: Json }).session).toEqual({
        keys: { f_nwk_s_int_key: { key: KEY_F }, s_nwk_s_int_key: { key: KEY_F }, nwk_s_enc_key: { key: KEY_F } },
      });
    });

    it('before LoRaWAN 1.1 a new FNwkSIntKey replaces all three network session keys', async () => {
      await registry.set(setReq(abp('abp-2', '26000102'), ABP_PATHS), CTX);
      await registry.set(setReq({ ids: ids('abp-2'), session: { keys: { f_nwk_s_int_key: { key: KEY_N } } } }, ['session.keys.f_nwk_s_int_key.key']), CTX);
      expect(((await get('abp-2', ['session.keys'])) as { session: Json }).session).toEqual({
        keys: { f_nwk_s_int_key: { key: KEY_N }, s_nwk_s_int_key: { key: KEY_N }, nwk_s_enc_key: { key: KEY_N } },
      });
    });

    it('the copy applies to any 1.0.x session set with its FNwkSIntKey (OTAA too); from 1.1 on the keys stay distinct', async () => {
      await registry.set(setReq(otaa('otaa-2', 0x102), BASE_PATHS), CTX);
      await registry.set(setReq({ ids: ids('otaa-2'), session: { dev_addr: '26000112', keys: { f_nwk_s_int_key: { key: KEY_F } } } }, ['session']), CTX);
      expect(((await get('otaa-2', ['session.keys'])) as { session: Json }).session).toEqual({
        keys: { f_nwk_s_int_key: { key: KEY_F }, s_nwk_s_int_key: { key: KEY_F }, nwk_s_enc_key: { key: KEY_F } },
      });
      const v11 = { lorawan_version: 'MAC_V1_1', lorawan_phy_version: 'PHY_V1_1_REV_B' };
      const keys = { f_nwk_s_int_key: { key: KEY_F }, s_nwk_s_int_key: { key: KEY_S }, nwk_s_enc_key: { key: KEY_E } };
      await registry.set(setReq(abp('abp-11', '26000111', { ...v11, session: { dev_addr: '26000111', keys } }), [...BASE_PATHS, 'session']), CTX);
      await registry.set(setReq({ ids: ids('abp-11'), session: { keys: { f_nwk_s_int_key: { key: KEY_N } } } }, ['session.keys.f_nwk_s_int_key.key']), CTX);
      expect(((await get('abp-11', ['session.keys'])) as { session: Json }).session).toEqual({ keys: { ...keys, f_nwk_s_int_key: { key: KEY_N } } });
    });

    it('ids.dev_addr follows session.dev_addr; the DevAddr lookup finds the device at its new address', async () => {
      const res = await registry.set(setReq(abp('abp-3', '26000103'), ABP_PATHS), CTX);
      expect(res['ids']).toEqual(ids('abp-3', { dev_addr: '26000103' }));
      expect((await store.get(APP, 'abp-3'))?.ids.dev_addr).toBe('26000103');
      await registry.set(setReq({ ids: ids('abp-3'), session: { dev_addr: '26000203', keys: {} } }, ['session.dev_addr']), CTX);
      expect((await get('abp-3', [])).ids).toEqual(ids('abp-3', { dev_addr: '26000203' }));
      expect((await registry.getByDevAddr('26000203')).ids.device_id).toBe('abp-3');
      expect(await errorOf(registry.getByDevAddr('26000103'))).toMatchObject({ namespace: 'pkg/networkserver', name: 'device_not_found' });
      // The session's other fields stayed.
      expect(((await get('abp-3', ['session.keys.f_nwk_s_int_key.key'])) as { session: Json }).session).toEqual({ keys: { f_nwk_s_int_key: { key: KEY_F } } });
    });

    it('clearing the session of an ABP device is refused (ABP needs a session) and changes nothing', async () => {
      await registry.set(setReq(abp('abp-4', '26000104'), ABP_PATHS), CTX);
      const before = await store.get(APP, 'abp-4');
      expect(await errorOf(registry.set(setReq({ ids: ids('abp-4') }, ['session']), CTX))).toMatchObject(fieldValue('session.dev_addr'));
      expect(await store.get(APP, 'abp-4')).toEqual(before);
    });

    it('an OTAA device: ids.dev_addr appears with a session and disappears when the session is cleared', async () => {
      await registry.set(setReq(otaa('otaa-5', 0x105), BASE_PATHS), CTX);
      await registry.set(setReq({ ids: ids('otaa-5'), session: { dev_addr: '26000105', keys: { f_nwk_s_int_key: { key: KEY_F } } } }, ['session']), CTX);
      expect((await store.get(APP, 'otaa-5'))?.ids.dev_addr).toBe('26000105');
      await registry.set(setReq({ ids: ids('otaa-5') }, ['session']), CTX);
      const after = await store.get(APP, 'otaa-5');
      expect(after?.ids).toEqual(ids('otaa-5', { dev_eui: EUI(0x105), join_eui: JOIN_EUI }));
      expect(after?.fields['session']).toBeUndefined();
      expect(await errorOf(registry.getByDevAddr('26000105'))).toMatchObject({ name: 'device_not_found' });
    });

    it('an OTAA device: a session set with a zero DevAddr is refused like an ABP one (never stored as ids.dev_addr 00000000)', async () => {
      await registry.set(setReq(otaa('otaa-6', 0x106), BASE_PATHS), CTX);
      const before = await store.get(APP, 'otaa-6');
      const zero = { ids: ids('otaa-6'), session: { dev_addr: '00000000', keys: { f_nwk_s_int_key: { key: KEY_F } } } };
      for (const paths of [['session'], ['session.dev_addr', 'session.keys.f_nwk_s_int_key.key']]) {
        expect(await errorOf(registry.set(setReq(zero, paths), CTX))).toMatchObject(fieldValue('session.dev_addr'));
      }
      expect(await store.get(APP, 'otaa-6')).toEqual(before);
      expect(await errorOf(registry.getByDevAddr('00000000'))).toMatchObject({ name: 'device_not_found' });
    });

    it('ABP create builds mac_state: device_class CLASS_A, the MAC version, channels from the frequency plan', async () => {
      await registry.set(setReq(abp('abp-6', '26000106'), ABP_PATHS), CTX);
      const { mac_state } = (await get('abp-6', ['mac_state'])) as {
        mac_state: { device_class: string; lorawan_version: string; current_parameters: { channels: Json[] }; desired_parameters: { channels: Json[] } };
      };
      expect(mac_state.device_class).toBe('CLASS_A');
      expect(mac_state.lorawan_version).toBe('MAC_V1_0_3');
      const plan = getFrequencyPlan('EU_863_870_TTN');
      const band = getBand('EU_863_870');
      expect(mac_state.current_parameters.channels.map((c) => c['uplink_frequency'])).toEqual(band.default_channels.map((c) => c.uplink_frequency));
      const enabled = mac_state.desired_parameters.channels.filter((c) => c['enable_uplink']).map((c) => c['uplink_frequency']);
      expect([...enabled].sort()).toEqual(plan?.uplink_channels.map((c) => c.frequency).sort());
      expect(enabled).toHaveLength(8);
    });

    it('a client-given mac_state is kept', async () => {
      const mac_state = {
        device_class: 'CLASS_C',
        lorawan_version: 'MAC_V1_0_3',
        current_parameters: {
          rx1_delay: 5,
          channels: [{ uplink_frequency: '868100000', downlink_frequency: '868100000', max_data_rate_index: 5, enable_uplink: true }],
        },
        desired_parameters: {
          rx1_delay: 5,
          channels: [{ uplink_frequency: '868100000', downlink_frequency: '868100000', max_data_rate_index: 5, enable_uplink: true }],
        },
      };
      await registry.set(setReq({ ...abp('abp-7', '26000107'), mac_state }, [...ABP_PATHS, 'mac_state']), CTX);
      expect(((await get('abp-7', ['mac_state'])) as Json)['mac_state']).toEqual(mac_state);
    });
  });

  it('supports_join and multicast cannot change on update (field_value, cause field_not_changeable)', async () => {
    await registry.set(setReq(otaa('fixed-1', 0x201), BASE_PATHS), CTX);
    await registry.set(setReq(abp('fixed-2', '26000202'), ABP_PATHS), CTX);
    const before = [await store.get(APP, 'fixed-1'), await store.get(APP, 'fixed-2')];
    const notChangeable = (name: string) => fieldValue(name, { namespace: 'pkg/networkserver', name: 'field_not_changeable', attributes: { name } });
    expect(await errorOf(registry.set(setReq({ ids: ids('fixed-1'), supports_join: false }, ['supports_join']), CTX))).toMatchObject(
      notChangeable('supports_join'),
    );
    expect(await errorOf(registry.set(setReq({ ids: ids('fixed-2'), supports_join: true }, ['supports_join']), CTX))).toMatchObject(
      notChangeable('supports_join'),
    );
    expect(await errorOf(registry.set(setReq({ ids: ids('fixed-1'), multicast: true }, ['multicast']), CTX))).toMatchObject(notChangeable('multicast'));
    expect([await store.get(APP, 'fixed-1'), await store.get(APP, 'fixed-2')]).toEqual(before);
    // The same value again is fine.
    await registry.set(setReq({ ids: ids('fixed-1'), supports_join: true, multicast: false }, ['supports_join', 'multicast']), CTX);
  });

  describe('Copy on create', () => {
    const EM300 = { brand_id: 'milesight', model_id: 'em300-th-868m', hardware_version: '3.0' };

    it('from the template of version_ids: absent Copy fields are filled, present ones kept', async () => {
      const r = new DeviceRegistry(store, NS_REGISTRY_POLICY, plain(), events, copySourceFor({}));
      const res = await r.set(setReq({ ids: ids('copy-1', { dev_eui: EUI(0x301), join_eui: JOIN_EUI }), version_ids: EM300 }, ['version_ids']), CTX);
      const copied = {
        frequency_plan_id: 'EU_863_870_TTN',
        lorawan_version: 'MAC_V1_0_3',
        lorawan_phy_version: 'PHY_V1_0_3_REV_A',
        supports_join: true,
        supports_class_b: false,
        supports_class_c: false,
        min_frequency: '863000000',
        max_frequency: '870000000',
      };
      expect(res).toEqual({ ids: ids('copy-1', { dev_eui: EUI(0x301), join_eui: JOIN_EUI }), version_ids: EM300, ...copied });
      expect((await store.get(APP, 'copy-1'))?.fields).toEqual({ version_ids: EM300, ...copied });

      await r.set(
        setReq(
          {
            ids: ids('copy-2', { dev_eui: EUI(0x302), join_eui: JOIN_EUI }),
            version_ids: EM300,
            frequency_plan_id: 'EU_863_870',
            lorawan_version: 'MAC_V1_0_2',
          },
          ['version_ids', 'frequency_plan_id', 'lorawan_version'],
        ),
        CTX,
      );
      expect((await store.get(APP, 'copy-2'))?.fields).toMatchObject({
        frequency_plan_id: 'EU_863_870',
        lorawan_version: 'MAC_V1_0_2',
        lorawan_phy_version: 'PHY_V1_0_3_REV_A',
        supports_join: true,
      });
    });

    it('from the default profile when no template matches; per field, the template first and then the profile', async () => {
      const r = new DeviceRegistry(
        store,
        NS_REGISTRY_POLICY,
        plain(),
        events,
        copySourceFor({
          defaultDeviceProfile: {
            frequency_plan_id: 'US_902_928_FSB_2',
            lorawan_version: 'MAC_V1_0_4',
            lorawan_phy_version: 'PHY_V1_0_3_REV_A',
            supports_join: true,
            supports_class_c: true,
          },
        }),
      );
      await r.set(setReq({ ids: ids('copy-3', { dev_eui: EUI(0x303), join_eui: JOIN_EUI }) }, []), CTX);
      expect((await store.get(APP, 'copy-3'))?.fields).toEqual({
        frequency_plan_id: 'US_902_928_FSB_2',
        lorawan_version: 'MAC_V1_0_4',
        lorawan_phy_version: 'PHY_V1_0_3_REV_A',
        supports_join: true,
        supports_class_c: true,
      });
      // dragino/lht65 has no frequency plan: that one comes from the profile, the rest from the template.
      await r.set(
        setReq({ ids: ids('copy-4', { dev_eui: EUI(0x304), join_eui: JOIN_EUI }), version_ids: { brand_id: 'dragino', model_id: 'lht65' } }, []),
        CTX,
      );
      expect((await store.get(APP, 'copy-4'))?.fields).toEqual({
        frequency_plan_id: 'US_902_928_FSB_2',
        lorawan_version: 'MAC_V1_0_3',
        lorawan_phy_version: 'PHY_V1_0_3_REV_A',
        supports_join: true,
        supports_class_b: false,
        supports_class_c: false,
      });
    });

    it('an update never copies', async () => {
      const r = new DeviceRegistry(store, NS_REGISTRY_POLICY, plain(), events, copySourceFor({ defaultDeviceProfile: { supports_class_c: true } }));
      await r.set(setReq(otaa('copy-5', 0x305), BASE_PATHS), CTX);
      await r.set(setReq({ ids: ids('copy-5') }, ['supports_class_c']), CTX);
      expect((await store.get(APP, 'copy-5'))?.fields['supports_class_c']).toBeUndefined();
    });
  });

  it('stores only its own session fields: an app_s_key in the body with mask `session` is not stored', async () => {
    const session = {
      dev_addr: '26000401',
      last_f_cnt_up: 7,
      last_a_f_cnt_down: 3,
      keys: { session_key_id: 'AQID', f_nwk_s_int_key: { key: KEY_F }, app_s_key: { key: APP_S_KEY } },
    };
    const res = await registry.set(setReq({ ...abp('own-1', '26000401'), session }, [...BASE_PATHS, 'session']), CTX);
    const expected = {
      dev_addr: '26000401',
      last_f_cnt_up: 7,
      keys: { session_key_id: 'AQID', f_nwk_s_int_key: { key: KEY_F }, s_nwk_s_int_key: { key: KEY_F }, nwk_s_enc_key: { key: KEY_F } },
    };
    expect(res['session']).toEqual(expected);
    expect(((await get('own-1', ['session'])) as Json)['session']).toEqual(expected);
    const raw = (await rawFields('own-1')) ?? '';
    expect(raw).not.toContain('app_s_key');
    expect(raw).not.toContain(APP_S_KEY);
    expect(raw).not.toContain('last_a_f_cnt_down');
  });

  it('session keys at rest: wrapped with the NS KEK label, never plain in the fields column; Get opens them', async () => {
    const r = new DeviceRegistry(store, NS_REGISTRY_POLICY, keySealerFor('ns', { keks: KEKS, kekLabels: { ns: 'k1' } }), events, copySourceFor({}));
    await r.set(setReq(abp('kek-1', '26000501'), ABP_PATHS), CTX);
    const raw = (await rawFields('kek-1')) ?? '';
    const keys = (JSON.parse(raw) as { session: { keys: Record<string, Json> } }).session.keys;
    const wrapped = Buffer.from('1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5', 'hex').toString('base64');
    for (const name of ['f_nwk_s_int_key', 's_nwk_s_int_key', 'nwk_s_enc_key']) expect(keys[name]).toEqual({ kek_label: 'k1', encrypted_key: wrapped });
    expect(raw.toUpperCase()).not.toContain(KEY_F);
    expect(((await r.get(getReq(ids('kek-1'), ['session.keys.f_nwk_s_int_key.key']))) as Json)['session']).toEqual({
      keys: { f_nwk_s_int_key: { key: KEY_F } },
    });
    // A registry without the KEK hands out the envelope as stored.
    expect(((await get('kek-1', ['session.keys.nwk_s_enc_key'])) as Json)['session']).toEqual({
      keys: { nwk_s_enc_key: { kek_label: 'k1', encrypted_key: wrapped } },
    });
  });
});
