import { TTS_FIELD_MASK_PATHS } from '@lorawan/api';
import {
  isFields,
  type JsonObject,
  leafPaths,
  maskedFields,
  mergeAll,
  mergeDevices,
  parseDescription,
  planRegistration,
  setFieldMask,
  topLevelPaths,
} from './split';

// TTS's own lists (a superset of ours): the masks must be what a real TTS accepts.
const tts = (rpc: keyof typeof TTS_FIELD_MASK_PATHS): ReadonlySet<string> => new Set(TTS_FIELD_MASK_PATHS[rpc] as string[]);
const JS_SET = tts('/ttn.lorawan.v3.JsEndDeviceRegistry/Set');
const NS_SET = tts('/ttn.lorawan.v3.NsEndDeviceRegistry/Set');
const AS_SET = tts('/ttn.lorawan.v3.AsEndDeviceRegistry/Set');
const ALLOWED = { js: JS_SET, ns: NS_SET, as: AS_SET };

const ids = (deviceId: string): JsonObject => ({
  device_id: deviceId,
  application_ids: { application_id: 'app1' },
  dev_eui: '70B3D57ED005B59E',
  join_eui: '0000000000000000',
});

const OTAA: JsonObject = {
  ids: ids('otaa-1'),
  name: 'OTAA device',
  attributes: { 'site.floor': '2', room: 'a' },
  version_ids: { brand_id: 'the-things-products', model_id: 'the-things-uno' },
  supports_join: true,
  lorawan_version: 'MAC_V1_0_3',
  lorawan_phy_version: 'PHY_V1_0_3_REV_A',
  frequency_plan_id: 'EU_863_870_TTN',
  mac_settings: { rx1_delay: { value: 'RX_DELAY_1' }, factory_preset_frequencies: ['868100000', '868300000'] },
  root_keys: { app_key: { key: '00112233445566778899AABBCCDDEEFF' } },
  formatters: { up_formatter: 'FORMATTER_NONE', up_formatter_parameter: '' },
};

const ABP: JsonObject = {
  ids: { ...ids('abp-1'), dev_eui: '70B3D57ED005B59F' },
  name: 'ABP device',
  supports_join: false,
  lorawan_version: 'MAC_V1_0_3',
  lorawan_phy_version: 'PHY_V1_0_3_REV_A',
  frequency_plan_id: 'EU_863_870_TTN',
  session: {
    dev_addr: '26011234',
    keys: {
      session_key_id: 'AQID',
      f_nwk_s_int_key: { key: '0102030405060708090A0B0C0D0E0F10' },
      app_s_key: { key: '1112131415161718191A1B1C1D1E1F20' },
    },
  },
};

describe('leafPaths', () => {
  it('descends objects; arrays, scalars, null, empty objects and maps are leaves', () => {
    expect(
      leafPaths({
        a: { b: 1, c: { d: 'x' } },
        list: [{ e: 1 }],
        n: null,
        empty: {},
        attributes: { 'x.y': 'z' },
        locations: { user: { latitude: 1 } },
        picture: { sizes: { '0': 'https://example.com/p.png' } },
      }),
    ).toEqual(['a.b', 'a.c.d', 'list', 'n', 'empty', 'attributes', 'locations', 'picture.sizes']);
  });
});

describe('isFields', () => {
  it('keeps the IS fields and the IS identifiers only', () => {
    const withDevAddr = { ...OTAA, ids: { ...(OTAA.ids as JsonObject), dev_addr: '26011234' } };
    expect(isFields(withDevAddr)).toEqual({
      ids: ids('otaa-1'),
      name: 'OTAA device',
      attributes: OTAA.attributes,
      version_ids: OTAA.version_ids,
    });
  });
});

describe('setFieldMask', () => {
  it('prefers the shortest allowed prefix', () => {
    const allowed = new Set(['a', 'a.b', 'a.b.c', 'a.d', 'x.y', 'x.y.z']);
    expect(setFieldMask({ a: { b: { c: 1 }, d: 2 }, x: { y: { z: 3 } } }, allowed)).toEqual(['a', 'x.y']);
  });

  it('takes a map or an unlisted sub-message whole at its allowed parent', () => {
    const allowed = new Set(['attributes', 'provisioning_data', 'w', 'w.value']);
    expect(setFieldMask({ attributes: { 'a.b': 'c' }, provisioning_data: { serial: { nested: 1 } }, w: { value: 1 } }, allowed)).toEqual([
      'attributes',
      'provisioning_data',
      'w',
    ]);
  });

  it('goes below a parent that would carry a field the registry may not set', () => {
    // s.k lists its sub-fields and s.k.other is not among them: masking s or s.k would set it.
    const allowed = new Set(['s', 's.a', 's.k', 's.k.mine', 's.k.mine.key']);
    expect(setFieldMask({ s: { a: 1, k: { mine: { key: 'x' }, other: { key: 'y' } } } }, allowed)).toEqual(['s.a', 's.k.mine']);
    expect(setFieldMask({ s: { a: 1, k: { mine: { key: 'x' } } } }, allowed)).toEqual(['s']);
  });

  it('never puts ids in the mask and skips fields of other registries', () => {
    expect(setFieldMask({ ids: ids('d1'), name: 'n', description: 'd' }, NS_SET)).toEqual([]);
    expect(setFieldMask({ ids: ids('d1'), name: 'n' }, AS_SET)).toEqual([]);
  });

  it('OTAA: the JS gets root_keys, the NS the MAC configuration, the AS formatters and version IDs', () => {
    expect(setFieldMask(OTAA, JS_SET)).toEqual(['root_keys']);
    expect(setFieldMask(OTAA, NS_SET)).toEqual(['frequency_plan_id', 'lorawan_phy_version', 'lorawan_version', 'mac_settings', 'supports_join', 'version_ids']);
    expect(setFieldMask(OTAA, AS_SET)).toEqual(['formatters', 'version_ids']);
  });

  it('ABP: the NS gets the network session, the AS the application session, neither the other one’s key', () => {
    expect(setFieldMask(ABP, NS_SET)).toEqual([
      'frequency_plan_id',
      'lorawan_phy_version',
      'lorawan_version',
      'session.dev_addr',
      'session.keys.f_nwk_s_int_key',
      'session.keys.session_key_id',
      'supports_join',
    ]);
    // The AS may set session.dev_addr etc. but not `session` or `session.keys` themselves.
    expect(setFieldMask(ABP, AS_SET)).toEqual(['session.dev_addr', 'session.keys.app_s_key', 'session.keys.session_key_id']);
  });

  it('takes the whole session for the NS when it holds only network fields', () => {
    const nsOnly = { ...ABP, session: { dev_addr: '26011234', keys: { f_nwk_s_int_key: { key: '0102030405060708090A0B0C0D0E0F10' } } } };
    expect(setFieldMask(nsOnly, NS_SET)).toContain('session');
  });

  it('leaves out a sub-field the JS does not take (a KEK label beside a plain key)', () => {
    const device = { ids: ids('d1'), root_keys: { app_key: { key: '00112233445566778899AABBCCDDEEFF', kek_label: 'k' }, root_key_id: 'r' } };
    expect(setFieldMask(device, JS_SET)).toEqual(['root_keys.app_key.key', 'root_keys.root_key_id']);
  });
});

describe('planRegistration', () => {
  it('OTAA: IS fields to the IS, to JS, NS and AS their part of the description (ids and what their mask names)', () => {
    const plan = planRegistration(OTAA, ALLOWED);
    expect(plan.is).toEqual({ end_device: isFields(OTAA) });
    expect(plan.js).toEqual({ end_device: { ids: OTAA.ids, root_keys: OTAA.root_keys }, field_mask: { paths: ['root_keys'] } });
    expect(plan.ns.field_mask.paths).toContain('frequency_plan_id');
    expect(plan.ns.end_device).toEqual(maskedFields(OTAA, plan.ns.field_mask.paths));
    expect(plan.ns.end_device).not.toHaveProperty('root_keys');
    expect(plan.ns.end_device).not.toHaveProperty('formatters');
    expect(plan.as).toEqual({
      end_device: { ids: OTAA.ids, formatters: OTAA.formatters, version_ids: OTAA.version_ids },
      field_mask: { paths: ['formatters', 'version_ids'] },
    });
  });

  it('ABP: no JS step; NS and AS are called even with nothing but ids for them', () => {
    const plan = planRegistration(ABP, ALLOWED);
    expect(plan.js).toBeUndefined();
    expect(plan.ns.field_mask.paths).toContain('session.dev_addr');
    const bare = planRegistration({ ids: ids('bare'), supports_join: false }, ALLOWED);
    expect(bare.as).toEqual({ end_device: { ids: ids('bare') }, field_mask: { paths: [] } });
    expect(bare.ns).toEqual({ end_device: { ids: ids('bare'), supports_join: false }, field_mask: { paths: ['supports_join'] } });
  });

  it('OTAA without anything for the JS skips it; a DevAddr in the ids is not sent to the JS', () => {
    expect(planRegistration({ ...OTAA, root_keys: null }, ALLOWED).js?.field_mask.paths).toEqual(['root_keys']);
    const { root_keys: _keys, ...noKeys } = OTAA;
    expect(planRegistration(noKeys, ALLOWED).js).toBeUndefined();
    const withDevAddr = { ...OTAA, ids: { ...(OTAA.ids as JsonObject), dev_addr: '26011234' } };
    const plan = planRegistration(withDevAddr, ALLOWED);
    expect(plan.js?.end_device.ids).toEqual(ids('otaa-1'));
    expect(plan.ns.end_device.ids).toEqual(withDevAddr.ids);
  });
});

describe('maskedFields', () => {
  it('keeps the ids and the sub-trees the mask names, nested paths included; absent ones are skipped', () => {
    const device = { ids: ids('m'), a: { b: 1, c: 2 }, d: { e: { f: 3, g: 4 } }, h: 5 };
    expect(maskedFields(device, ['a', 'd.e.f', 'x.y'])).toEqual({ ids: ids('m'), a: { b: 1, c: 2 }, d: { e: { f: 3 } } });
    expect(maskedFields(device, [])).toEqual({ ids: ids('m') });
  });
});

describe('mergeDevices', () => {
  it('merges objects key by key; earlier values win, later ones fill gaps', () => {
    const is = {
      ids: { device_id: 'd1', application_ids: { application_id: 'app1' } },
      created_at: '2024-05-01T10:00:00.000000Z',
      name: 'IS name',
      description: '',
      version_ids: {},
    };
    const ns = {
      ids: { device_id: 'd1', dev_addr: '26011234' },
      created_at: '2024-05-01T10:00:01.000000Z',
      name: 'other',
      description: 'filled',
      version_ids: { brand_id: 'b' },
      session: { dev_addr: '26011234', keys: { f_nwk_s_int_key: { key: 'A' } } },
    };
    const as = { session: { keys: { app_s_key: { key: 'B' } }, last_a_f_cnt_down: 3 } };
    expect(mergeAll([is, undefined, ns, as])).toEqual({
      ids: { device_id: 'd1', application_ids: { application_id: 'app1' }, dev_addr: '26011234' },
      created_at: '2024-05-01T10:00:00.000000Z',
      name: 'IS name',
      description: 'filled',
      version_ids: { brand_id: 'b' },
      session: { dev_addr: '26011234', keys: { f_nwk_s_int_key: { key: 'A' }, app_s_key: { key: 'B' } }, last_a_f_cnt_down: 3 },
    });
  });

  it('keeps arrays and non-empty scalars of the earlier part, does not mutate its inputs', () => {
    const a = { list: [1], flag: false, n: null, nested: { x: 1 } };
    const b = { list: [2, 3], flag: true, n: 5, nested: { y: 2 } };
    expect(mergeDevices(a, b)).toEqual({ list: [1], flag: false, n: 5, nested: { x: 1, y: 2 } });
    expect(a).toEqual({ list: [1], flag: false, n: null, nested: { x: 1 } });
    expect(mergeDevices({ list: [] }, { list: [2] })).toEqual({ list: [2] });
  });
});

describe('topLevelPaths', () => {
  it('keeps the first segment of each path, once, sorted', () => {
    expect(topLevelPaths(['session.dev_addr', 'ids', 'ids.device_id', 'mac_settings.rx1_delay.value', 'session'])).toEqual(['ids', 'mac_settings', 'session']);
  });
});

describe('parseDescription', () => {
  it('accepts a bare EndDevice or {"end_device": …}', () => {
    expect(parseDescription(OTAA)).toEqual({ device: OTAA, ref: { applicationId: 'app1', deviceId: 'otaa-1' } });
    expect(parseDescription({ end_device: OTAA }).device).toBe(OTAA);
  });

  it('says what is missing', () => {
    expect(() => parseDescription([])).toThrow('must be a JSON object');
    expect(() => parseDescription({ name: 'x' })).toThrow('no "ids" object');
    expect(() => parseDescription({ ids: { application_ids: { application_id: 'a' } } })).toThrow('ids.device_id');
    expect(() => parseDescription({ ids: { device_id: 'd' } })).toThrow('ids.application_ids.application_id');
  });
});
