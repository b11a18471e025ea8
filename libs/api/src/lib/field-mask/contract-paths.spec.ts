import { EndDevice } from '../messages/end-device';
import { ALLOWED_PATHS, END_DEVICE_PATHS, TTS_FIELD_MASK_PATHS, canonicalEndDevicePaths } from './allowed-paths';
import { contractPaths, wrapperPathCanonicaliser } from './contract-paths';

const paths = new Set(contractPaths(EndDevice));

describe('contractPaths(EndDevice)', () => {
  it.each([
    'ids',
    'ids.application_ids.application_id',
    'ids.dev_eui',
    'name',
    'version_ids.brand_id',
    'mac_settings',
    'mac_settings.rx1_delay',
    'mac_settings.rx1_delay.value',
    'mac_settings.rx2_frequency.value',
    'mac_settings.use_adr.value',
    'mac_settings.factory_preset_frequencies',
    'mac_state.current_parameters.channels',
    'mac_state.current_parameters.uplink_dwell_time.value',
    'mac_state.ping_slot_periodicity.value',
    'battery_percentage.value',
    'session.keys.app_s_key.key',
    'pending_session.keys.f_nwk_s_int_key.kek_label',
    'root_keys.nwk_key.key',
    'claim_authentication_code.value',
    'formatters.up_formatter_parameter',
  ])('contains %s', (path) => {
    expect(paths.has(path)).toBe(true);
  });

  it.each([
    // Not wrappers: no `.value` below them.
    'name.value',
    'mac_state.current_parameters.rx1_delay.value',
    'mac_state.current_parameters.rx2_frequency.value',
    'mac_settings.class_b_timeout.value',
    'min_frequency.value',
    // Repeated and map fields are leaves.
    'mac_state.current_parameters.channels.uplink_frequency',
    'recent_uplinks.settings',
    'session.queued_application_downlinks.f_port',
    'mac_state.queued_responses.cid',
    'locations.user',
    'attributes.key',
    // Not in the contract at all.
    'serial_number',
    'mac_settings.adr',
  ])('does not contain %s', (path) => {
    expect(paths.has(path)).toBe(false);
  });

  it('descends into no repeated or map field', () => {
    const leaves = [
      'channels',
      'recent_uplinks',
      'recent_downlinks',
      'recent_adr_uplinks',
      'queued_application_downlinks',
      'queued_responses',
      'pending_requests',
      'locations',
      'attributes',
      'factory_preset_frequencies',
      'rejected_frequencies',
    ];
    const below = [...paths].filter((p) =>
      p
        .split('.')
        .slice(0, -1)
        .some((segment) => leaves.includes(segment)),
    );
    expect(below).toEqual([]);
  });

  it('lists each path once, parents before children', () => {
    const list = contractPaths(EndDevice);
    expect(new Set(list).size).toBe(list.length);
    for (const [i, path] of list.entries()) {
      const parent = path.split('.').slice(0, -1).join('.');
      if (parent) expect(list.indexOf(parent)).toBeLessThan(i);
    }
  });

  it('is END_DEVICE_PATHS', () => {
    expect(END_DEVICE_PATHS).toEqual(paths);
  });
});

describe('wrapperPathCanonicaliser(EndDevice)', () => {
  const canonical = wrapperPathCanonicaliser(EndDevice);

  it.each([
    ['mac_settings.rx2_frequency.value', 'mac_settings.rx2_frequency'],
    ['mac_settings.rx1_delay.value', 'mac_settings.rx1_delay'],
    ['mac_settings.desired_adr_ack_limit_exponent.value', 'mac_settings.desired_adr_ack_limit_exponent'],
    ['mac_state.desired_parameters.ping_slot_data_rate_index_value.value', 'mac_state.desired_parameters.ping_slot_data_rate_index_value'],
    ['pending_mac_state.ping_slot_periodicity.value', 'pending_mac_state.ping_slot_periodicity'],
    ['battery_percentage.value', 'battery_percentage'],
  ])('maps %s to %s', (input, output) => {
    expect(canonical([input])).toEqual([output]);
  });

  it.each(['claim_authentication_code.value', 'claim_authentication_code', 'mac_settings.rx2_frequency', 'name', 'mac_settings', 'unknown.value'])(
    'leaves %s alone',
    (path) => {
      expect(canonical([path])).toEqual([path]);
    },
  );

  it('keeps order and drops the duplicates it creates', () => {
    expect(canonical(['mac_settings.use_adr', 'name', 'mac_settings.use_adr.value', 'claim_authentication_code.value'])).toEqual([
      'mac_settings.use_adr',
      'name',
      'claim_authentication_code.value',
    ]);
  });

  it('is canonicalEndDevicePaths', () => {
    expect(canonicalEndDevicePaths(['mac_settings.rx1_delay.value', 'claim_authentication_code.value'])).toEqual([
      'mac_settings.rx1_delay',
      'claim_authentication_code.value',
    ]);
  });
});

describe('allowed paths of the JS, NS and AS registries', () => {
  const registries = ['JsEndDeviceRegistry', 'NsEndDeviceRegistry', 'AsEndDeviceRegistry'] as const;
  const rpcs = registries.flatMap((r) => [`${r}.Get`, `${r}.Set`] as const);

  it.each(rpcs)('%s is a non-empty subset of END_DEVICE_PATHS', (rpc) => {
    const allowed = [...ALLOWED_PATHS[rpc]];
    expect(allowed.length).toBeGreaterThan(0);
    expect(allowed.filter((p) => !END_DEVICE_PATHS.has(p))).toEqual([]);
  });

  it.each(rpcs)("%s allows only paths of TTS's list, apart from the seed's extras", (rpc) => {
    const tts = new Set(TTS_FIELD_MASK_PATHS[`/ttn.lorawan.v3.${rpc.replace('.', '/')}` as keyof typeof TTS_FIELD_MASK_PATHS] as string[]);
    const extras = [...ALLOWED_PATHS[rpc]].filter((p) => !tts.has(p));
    const seedExtras =
      /^(recent_(adr_)?uplinks|recent_downlinks|queued_application_downlinks|(pending_)?session\.queued_application_downlinks|claim_authentication_code(\.\w+)?|(pending_)?mac_state\.(current|desired)_parameters\.(adr_ack_limit|adr_ack_delay|ping_slot_data_rate_index))$/;
    expect(extras.filter((p) => !seedExtras.test(p))).toEqual([]);
  });

  it.each(rpcs)("%s keeps wrapper `.value` paths of TTS's list", (rpc) => {
    const allowed = ALLOWED_PATHS[rpc];
    for (const path of allowed) {
      if (path.endsWith('.value') && path !== 'claim_authentication_code.value') expect(allowed.has(path.slice(0, -'.value'.length))).toBe(true);
    }
  });

  it('JS: root keys, no session', () => {
    for (const rpc of ['JsEndDeviceRegistry.Get', 'JsEndDeviceRegistry.Set'] as const) {
      const allowed = ALLOWED_PATHS[rpc];
      expect(allowed.has('root_keys.app_key.key')).toBe(true);
      expect(allowed.has('root_keys.nwk_key.key')).toBe(true);
      expect(allowed.has('root_keys.root_key_id')).toBe(true);
      expect(allowed.has('claim_authentication_code.value')).toBe(true);
      expect([...allowed].filter((p) => /^(pending_)?session\b|^mac_/.test(p))).toEqual([]);
    }
    expect(ALLOWED_PATHS['JsEndDeviceRegistry.Get'].has('ids.dev_addr')).toBe(true);
    expect(ALLOWED_PATHS['JsEndDeviceRegistry.Set'].has('ids.dev_addr')).toBe(false);
  });

  it('AS: the application session key only', () => {
    const set = ALLOWED_PATHS['AsEndDeviceRegistry.Set'];
    expect(set.has('session.keys.app_s_key.key')).toBe(true);
    expect(set.has('session.keys.session_key_id')).toBe(true);
    expect(set.has('formatters.up_formatter')).toBe(true);
    for (const rpc of ['AsEndDeviceRegistry.Get', 'AsEndDeviceRegistry.Set'] as const) {
      expect([...ALLOWED_PATHS[rpc]].filter((p) => /_nwk_|nwk_s_enc_key|root_keys|^mac_/.test(p))).toEqual([]);
    }
    expect(set.has('session.keys.f_nwk_s_int_key')).toBe(false);
    expect(set.has('session.keys.f_nwk_s_int_key.key')).toBe(false);
    expect(set.has('pending_session')).toBe(false);
    expect(ALLOWED_PATHS['AsEndDeviceRegistry.Get'].has('pending_session.keys.app_s_key.key')).toBe(true);
  });

  it('NS: the network session keys and MAC state; server-set fields only on Get', () => {
    const get = ALLOWED_PATHS['NsEndDeviceRegistry.Get'];
    const set = ALLOWED_PATHS['NsEndDeviceRegistry.Set'];
    for (const path of ['created_at', 'updated_at', 'ids.dev_addr']) {
      expect(get.has(path)).toBe(true);
      expect(set.has(path)).toBe(false);
    }
    for (const allowed of [get, set]) {
      expect(allowed.has('session.keys.f_nwk_s_int_key.key')).toBe(true);
      expect(allowed.has('mac_settings.rx1_delay.value')).toBe(true);
      expect(allowed.has('mac_state.current_parameters.channels')).toBe(true);
      expect(allowed.has('recent_adr_uplinks')).toBe(true);
      expect(allowed.has('session.keys.app_s_key')).toBe(false);
      expect(allowed.has('root_keys')).toBe(false);
    }
  });
});
