import { api, ApiError } from './client';
import { type AbpRegistration, DELETE_ORDER, DEVICE_PATHS, mergeDevice, registerDevice, registrationSteps, validateRegistration } from './devices';

jest.mock('./client', () => ({ ...jest.requireActual('./client'), api: jest.fn() }));
const apiMock = api as jest.MockedFunction<typeof api>;

/** The NS paths of every registration (OTAA and ABP). */
const NS_PATHS = ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join'];
const NWK_S_KEY = '00112233445566778899aabbccddeeff';
const APP_S_KEY = 'FFEEDDCCBBAA99887766554433221100';
const abp = (o: Partial<AbpRegistration> = {}): AbpRegistration => ({
  activation: 'abp',
  device_id: 'abp1',
  dev_eui: '',
  dev_addr: '0100abcd',
  name: 'ABP one',
  description: '',
  f_nwk_s_int_key: NWK_S_KEY,
  s_nwk_s_int_key: '',
  nwk_s_enc_key: '',
  app_s_key: APP_S_KEY,
  frequency_plan_id: 'EU_863_870_TTN',
  lorawan_version: 'MAC_V1_0_3',
  lorawan_phy_version: 'PHY_V1_0_3_REV_A',
  up_formatter: 'FORMATTER_CAYENNELPP',
  ...o,
});

describe('DEVICE_PATHS', () => {
  it('reads no field that holds keys unless asked: never a whole session, MAC state or root keys (they need …_READ_KEYS)', () => {
    const holdsKeys = /^(session|pending_session|mac_state|pending_mac_state|root_keys)$|\.keys\b|queued_join_accept/;
    for (const registry of ['is', 'js', 'ns', 'as'] as const) expect(DEVICE_PATHS[registry].fields.filter((p) => holdsKeys.test(p))).toEqual([]);
  });
});

describe('mergeDevice', () => {
  it("merges the registries in IS, JS, NS, AS order, deep within shared fields, and names each field's sources", () => {
    const ids = { device_id: 'dev1', dev_eui: '70B3D57ED005B59E' };
    const merged = mergeDevice({
      is: { device: { ids, name: 'Dev 1' } },
      js: { missing: true },
      ns: { device: { ids, session: { dev_addr: '26011234', last_f_cnt_up: 3 }, mac_state: { device_class: 'CLASS_A' } } },
      as: { device: { ids, session: { dev_addr: '26011234', last_a_f_cnt_down: 1 }, formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } } },
    });
    expect(merged.device).toEqual({
      ids,
      name: 'Dev 1',
      session: { dev_addr: '26011234', last_f_cnt_up: 3, last_a_f_cnt_down: 1 },
      mac_state: { device_class: 'CLASS_A' },
      formatters: { up_formatter: 'FORMATTER_CAYENNELPP' },
    });
    expect(merged.sources).toEqual({ name: ['is'], session: ['ns', 'as'], mac_state: ['ns'], formatters: ['as'] });
  });

  it("keeps a registry's error (e.g. 403 on keys) beside what the others gave", () => {
    const error = new ApiError(403, 7, 'insufficient rights');
    const merged = mergeDevice({ is: { device: { name: 'a' } }, js: { error }, ns: { missing: true }, as: { missing: true } });
    expect(merged.device).toEqual({ name: 'a' });
    expect(merged.parts.js).toEqual({ error });
  });
});

describe('registrationSteps', () => {
  it('writes IS, then JS (root key), NS and AS with field masks of their own fields', () => {
    const steps = registrationSteps('app1', {
      device_id: 'dev1',
      dev_eui: '70b3d57ed005b59e',
      join_eui: '0000000000000000',
      name: 'Dev 1',
      description: '',
      app_key: '00112233445566778899aabbccddeeff',
      frequency_plan_id: 'EU_863_870_TTN',
      lorawan_version: 'MAC_V1_0_3',
      lorawan_phy_version: 'PHY_V1_0_3_REV_A',
      up_formatter: 'FORMATTER_NONE',
    });
    expect(steps.create).toEqual({
      ids: { device_id: 'dev1', application_ids: { application_id: 'app1' }, dev_eui: '70B3D57ED005B59E', join_eui: '0000000000000000' },
      name: 'Dev 1',
      description: undefined,
    });
    expect(steps.sets.map((s) => [s.registry, s.paths])).toEqual([
      ['js', ['root_keys.app_key.key']],
      ['ns', NS_PATHS],
      ['as', ['formatters.up_formatter']],
    ]);
    expect(steps.sets[0].end_device.root_keys).toEqual({ app_key: { key: '00112233445566778899AABBCCDDEEFF' } });
  });

  it('OTAA MAC 1.1: the JS gets the NwkKey beside the AppKey, and the form checks both', () => {
    const otaa11 = {
      device_id: 'dev11',
      dev_eui: '70b3d57ed005b59f',
      join_eui: '0000000000000000',
      name: '',
      description: '',
      app_key: '00112233445566778899aabbccddeeff',
      nwk_key: 'ffeeddccbbaa99887766554433221100',
      frequency_plan_id: 'EU_863_870_TTN',
      lorawan_version: 'MAC_V1_1',
      lorawan_phy_version: 'PHY_V1_1_REV_B',
      up_formatter: 'FORMATTER_NONE',
    };
    const [js] = registrationSteps('app1', otaa11).sets;
    expect(js.paths).toEqual(['root_keys.app_key.key', 'root_keys.nwk_key.key']);
    expect(js.end_device.root_keys).toEqual({ app_key: { key: '00112233445566778899AABBCCDDEEFF' }, nwk_key: { key: 'FFEEDDCCBBAA99887766554433221100' } });
    expect(Object.keys(validateRegistration({ ...otaa11, nwk_key: 'abc' }))).toEqual(['nwk_key']);
    // Before 1.1 there is no NwkKey to check or send.
    expect(validateRegistration({ ...otaa11, lorawan_version: 'MAC_V1_0_3', nwk_key: '' })).toEqual({});
  });

  it('deletes in the reverse order', () => expect(DELETE_ORDER).toEqual(['as', 'ns', 'js', 'is']));

  it('ABP (MAC 1.0.x): IS with the DevAddr in ids, no JS, the NS session with the NwkSKey as FNwkSIntKey, the AS AppSKey; one session key ID', () => {
    const steps = registrationSteps('app1', abp(), 'AQID');
    const ids = { device_id: 'abp1', application_ids: { application_id: 'app1' }, dev_addr: '0100ABCD' };
    expect(steps.create).toEqual({ ids, name: 'ABP one', description: undefined });
    expect(steps.sets.map((s) => s.registry)).toEqual(['ns', 'as']);
    // The fields and field masks of apps/e2e/src/devices.ts abpNsDevice / abpAsDevice.
    expect(steps.sets[0]).toEqual({
      registry: 'ns',
      end_device: {
        ids,
        frequency_plan_id: 'EU_863_870_TTN',
        lorawan_version: 'MAC_V1_0_3',
        lorawan_phy_version: 'PHY_V1_0_3_REV_A',
        supports_join: false,
        session: { dev_addr: '0100ABCD', keys: { session_key_id: 'AQID', f_nwk_s_int_key: { key: NWK_S_KEY.toUpperCase() } } },
      },
      paths: [...NS_PATHS, 'session.dev_addr', 'session.keys.session_key_id', 'session.keys.f_nwk_s_int_key.key'],
    });
    expect(steps.sets[1]).toEqual({
      registry: 'as',
      end_device: {
        ids,
        session: { dev_addr: '0100ABCD', keys: { session_key_id: 'AQID', app_s_key: { key: APP_S_KEY } } },
        formatters: { up_formatter: 'FORMATTER_CAYENNELPP' },
      },
      paths: ['session.dev_addr', 'session.keys.session_key_id', 'session.keys.app_s_key.key', 'formatters.up_formatter'],
    });
  });

  it('ABP (MAC 1.1): the three network session keys, and the DevEUI when given', () => {
    const keys = { f_nwk_s_int_key: '11'.repeat(16), s_nwk_s_int_key: '22'.repeat(16), nwk_s_enc_key: '33'.repeat(16) };
    const steps = registrationSteps(
      'app1',
      abp({ ...keys, lorawan_version: 'MAC_V1_1', lorawan_phy_version: 'RP001_V1_1_REV_B', dev_eui: '70b3d57ed005b59e' }),
      'AQID',
    );
    expect(steps.create.ids).toEqual({ device_id: 'abp1', application_ids: { application_id: 'app1' }, dev_eui: '70B3D57ED005B59E', dev_addr: '0100ABCD' });
    const ns = steps.sets[0];
    expect(ns.paths.slice(-3)).toEqual(['session.keys.f_nwk_s_int_key.key', 'session.keys.s_nwk_s_int_key.key', 'session.keys.nwk_s_enc_key.key']);
    expect((ns.end_device.session as { keys: unknown }).keys).toEqual({
      session_key_id: 'AQID',
      f_nwk_s_int_key: { key: keys.f_nwk_s_int_key },
      s_nwk_s_int_key: { key: keys.s_nwk_s_int_key },
      nwk_s_enc_key: { key: keys.nwk_s_enc_key },
    });
  });

  it('gives each registration a fresh session key ID (16 bytes, base64)', () => {
    const id = (registrationSteps('app1', abp()).sets[1].end_device.session as { keys: { session_key_id: string } }).keys.session_key_id;
    expect(Buffer.from(id, 'base64')).toHaveLength(16);
    expect((registrationSteps('app1', abp()).sets[1].end_device.session as { keys: { session_key_id: string } }).keys.session_key_id).not.toBe(id);
  });
});

describe('validateRegistration', () => {
  it('checks the hex length of each field the activation mode sends', () => {
    expect(validateRegistration(abp())).toEqual({});
    expect(validateRegistration(abp({ dev_addr: '0100ABC', f_nwk_s_int_key: 'zz'.repeat(16), dev_eui: '70B3' }))).toEqual({
      dev_addr: '8 hex digits',
      f_nwk_s_int_key: '32 hex digits',
      dev_eui: '16 hex digits',
    });
    // The 1.1 keys only for MAC 1.1; the OTAA fields only for OTAA.
    expect(validateRegistration(abp({ lorawan_version: 'MAC_V1_1' }))).toEqual({ s_nwk_s_int_key: '32 hex digits', nwk_s_enc_key: '32 hex digits' });
    const otaa = {
      device_id: 'd',
      dev_eui: '',
      join_eui: '0000000000000000',
      name: '',
      description: '',
      app_key: 'ab',
      frequency_plan_id: 'EU_863_870',
      lorawan_version: 'MAC_V1_0_3',
      lorawan_phy_version: 'PHY_V1_0_3_REV_A',
      up_formatter: 'FORMATTER_NONE',
    };
    expect(validateRegistration(otaa)).toEqual({ dev_eui: '16 hex digits', app_key: '32 hex digits' });
  });
});

describe('registerDevice', () => {
  beforeEach(() => apiMock.mockReset());
  const calls = () => apiMock.mock.calls.map(([method, path]) => `${method} ${path}`);
  const ok = { body: {}, headers: new Headers() };

  it('writes an ABP device IS, NS, AS (no JS)', async () => {
    apiMock.mockResolvedValue(ok);
    await registerDevice('app1', abp());
    expect(calls()).toEqual(['POST /applications/app1/devices', 'PUT /ns/applications/app1/devices/abp1', 'PUT /as/applications/app1/devices/abp1']);
  });

  it('undoes the NS and IS steps (in that order) when the AS refuses, and throws its error', async () => {
    const refused = new ApiError(400, 3, 'invalid `session.keys.app_s_key.key`');
    apiMock.mockImplementation(async (method, path) => {
      if (method === 'PUT' && path.startsWith('/as/')) throw refused;
      return ok;
    });
    await expect(registerDevice('app1', abp())).rejects.toBe(refused);
    expect(calls()).toEqual([
      'POST /applications/app1/devices',
      'PUT /ns/applications/app1/devices/abp1',
      'PUT /as/applications/app1/devices/abp1',
      'DELETE /ns/applications/app1/devices/abp1',
      'DELETE /applications/app1/devices/abp1',
    ]);
  });
});
