import { ApiError } from './client';
import { DELETE_ORDER, mergeDevice, registrationSteps } from './devices';

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
      ['ns', ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join']],
      ['as', ['formatters.up_formatter']],
    ]);
    expect(steps.sets[0].end_device.root_keys).toEqual({ app_key: { key: '00112233445566778899AABBCCDDEEFF' } });
  });

  it('deletes in the reverse order', () => expect(DELETE_ORDER).toEqual(['as', 'ns', 'js', 'is']));
});
