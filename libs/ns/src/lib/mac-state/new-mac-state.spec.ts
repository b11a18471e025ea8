import { decodeMessage, MACState, type MACParametersChannel, type MACSettings } from '@lorawan/api';
import { getFrequencyPlan, type FrequencyPlan } from '@lorawan/lorawan';
import { newMacState } from './new-mac-state';

const plan = (id: string): FrequencyPlan => {
  const found = getFrequencyPlan(id);
  if (!found) throw new Error(`no plan ${id}`);
  return found;
};
const stateFor = (planId: string, mac_settings?: MACSettings) => newMacState({ lorawan_version: 'MAC_V1_0_3', frequencyPlan: plan(planId), mac_settings });
const enabled = (channels: MACParametersChannel[] = []) => channels.filter((c) => c.enable_uplink).map((c) => c.uplink_frequency);

describe('newMacState', () => {
  it('starts in class A with no RX window, in the device version', () => {
    const state = newMacState({ lorawan_version: 'MAC_V1_1', frequencyPlan: plan('EU_863_870') });
    expect(state).toMatchObject({ device_class: 'CLASS_A', lorawan_version: 'MAC_V1_1', rx_windows_available: false });
  });

  it('EU_863_870_TTN: the device boots with the band defaults; the network wants the plan', () => {
    const state = stateFor('EU_863_870_TTN');
    expect(state.current_parameters).toEqual({
      max_eirp: 16,
      adr_data_rate_index: 0,
      adr_tx_power_index: 0,
      adr_nb_trans: 1,
      rx1_delay: 1,
      rx1_data_rate_offset: 0,
      rx2_data_rate_index: 0,
      rx2_frequency: '869525000',
      max_duty_cycle: 'DUTY_CYCLE_1',
      rejoin_time_periodicity: 'REJOIN_TIME_0',
      rejoin_count_periodicity: 'REJOIN_COUNT_16',
      ping_slot_frequency: '869525000',
      beacon_frequency: '869525000',
      channels: ['868100000', '868300000', '868500000'].map((f) => ({
        uplink_frequency: f,
        downlink_frequency: f,
        min_data_rate_index: 0,
        max_data_rate_index: 5,
        enable_uplink: true,
      })),
      adr_ack_limit_exponent: 'ADR_ACK_LIMIT_64',
      adr_ack_delay_exponent: 'ADR_ACK_DELAY_32',
      ping_slot_data_rate_index_value: 3,
    });
    const { channels, ...desired } = state.desired_parameters;
    const { channels: _current, ...current } = state.current_parameters;
    expect(desired).toEqual({ ...current, rx2_data_rate_index: 3 });
    expect(channels).toHaveLength(8);
    expect(channels?.every((c) => c.enable_uplink && c.uplink_frequency === c.downlink_frequency)).toBe(true);
    expect(channels?.slice(3).map((c) => c.uplink_frequency)).toEqual(['867100000', '867300000', '867500000', '867700000', '867900000']);
  });

  it('EU_863_870 keeps RX2 at SF12', () => {
    expect(stateFor('EU_863_870').desired_parameters.rx2_data_rate_index).toBe(0);
  });

  it('US_902_928_FSB_2: 72 boot channels; the network enables sub-band 2 only; RX1 on channel mod 8', () => {
    const state = stateFor('US_902_928_FSB_2');
    expect(state.current_parameters.channels).toHaveLength(72);
    expect(enabled(state.current_parameters.channels)).toHaveLength(72);
    expect(state.desired_parameters.channels).toHaveLength(72);
    expect(enabled(state.desired_parameters.channels)).toEqual([
      '903900000',
      '904100000',
      '904300000',
      '904500000',
      '904700000',
      '904900000',
      '905100000',
      '905300000',
      '904600000',
    ]);
    expect(state.desired_parameters.channels?.[8]).toEqual({
      uplink_frequency: '903900000',
      downlink_frequency: '923300000',
      min_data_rate_index: 0,
      max_data_rate_index: 3,
      enable_uplink: true,
    });
    expect(state.desired_parameters.channels?.[65]).toEqual({
      uplink_frequency: '904600000',
      downlink_frequency: '923900000',
      min_data_rate_index: 4,
      max_data_rate_index: 4,
      enable_uplink: true,
    });
    expect(state.current_parameters).toMatchObject({ max_eirp: 30, rx2_frequency: '923300000', rx2_data_rate_index: 8, ping_slot_data_rate_index_value: 8 });
    // Beacons and ping slots hop: no fixed frequency. US devices take no TxParamSetupReq: no dwell time.
    for (const params of [state.current_parameters, state.desired_parameters]) {
      expect(params).not.toHaveProperty('ping_slot_frequency');
      expect(params).not.toHaveProperty('beacon_frequency');
      expect(params).not.toHaveProperty('uplink_dwell_time');
    }
  });

  it('dwell time is desired where the band supports TxParamSetupReq, unless the plan lifts it', () => {
    expect(stateFor('AU_915_928_FSB_2').desired_parameters).toMatchObject({ uplink_dwell_time: true, downlink_dwell_time: false });
    expect(stateFor('AS_923').desired_parameters).toMatchObject({ uplink_dwell_time: true, downlink_dwell_time: true });
    expect(stateFor('AS_923').current_parameters).not.toHaveProperty('uplink_dwell_time');
  });

  it('applies MAC settings: plain ones to current (and so desired), desired_* to desired', () => {
    const state = stateFor('EU_863_870', {
      rx1_delay: 5,
      rx2_data_rate_index: 2,
      rx2_frequency: '869000000',
      max_duty_cycle: 'DUTY_CYCLE_2',
      ping_slot_periodicity: 'PING_EVERY_8S',
      ping_slot_data_rate_index: 1,
      desired_rx1_data_rate_offset: 2,
      desired_max_duty_cycle: 'DUTY_CYCLE_8',
      desired_adr_ack_limit_exponent: 'ADR_ACK_LIMIT_32',
      desired_ping_slot_frequency: '869100000',
    });
    expect(state.current_parameters).toMatchObject({
      rx1_delay: 5,
      rx1_data_rate_offset: 0,
      rx2_data_rate_index: 2,
      rx2_frequency: '869000000',
      max_duty_cycle: 'DUTY_CYCLE_2',
      ping_slot_data_rate_index_value: 1,
    });
    expect(state.desired_parameters).toMatchObject({
      rx1_delay: 5,
      rx1_data_rate_offset: 2,
      rx2_data_rate_index: 2,
      rx2_frequency: '869000000',
      max_duty_cycle: 'DUTY_CYCLE_8',
      adr_ack_limit_exponent: 'ADR_ACK_LIMIT_32',
      ping_slot_frequency: '869100000',
      ping_slot_data_rate_index_value: 1,
    });
    expect(state.ping_slot_periodicity).toBe('PING_EVERY_8S');
  });

  it('a plan that departs from the band RX2 overrides the device setting; desired_* overrides both', () => {
    expect(stateFor('EU_863_870_TTN', { rx2_data_rate_index: 2 }).desired_parameters.rx2_data_rate_index).toBe(3);
    const state = stateFor('EU_863_870_TTN', { desired_rx1_delay: 3, desired_rx2_data_rate_index: 1, desired_rx2_frequency: '869000000' });
    expect(state.current_parameters).toMatchObject({ rx1_delay: 1, rx2_data_rate_index: 0, rx2_frequency: '869525000' });
    expect(state.desired_parameters).toMatchObject({ rx1_delay: 3, rx2_data_rate_index: 1, rx2_frequency: '869000000' });
  });

  it('factory-preset frequencies decide the boot channels', () => {
    const eu = stateFor('EU_863_870', { factory_preset_frequencies: ['868100000', '867100000'] });
    expect(eu.current_parameters.channels?.map((c) => [c.uplink_frequency, c.enable_uplink])).toEqual([
      ['868100000', true],
      ['868300000', false],
      ['868500000', false],
      ['867100000', true],
    ]);
    expect(enabled(eu.desired_parameters.channels)).toHaveLength(8);
    const us = stateFor('US_902_928_FSB_2', { factory_preset_frequencies: ['903900000', '904600000', '869000000'] });
    expect(us.current_parameters.channels).toHaveLength(72);
    expect(enabled(us.current_parameters.channels)).toEqual(['903900000', '904600000']);
  });

  it('CN_470_510_FSB_11: 96 boot channels answered on channel n mod 48, the plan enables channels 80-87', () => {
    const cn = stateFor('CN_470_510_FSB_11');
    const channels = cn.current_parameters.channels ?? [];
    expect(channels).toHaveLength(96);
    expect([channels[0], channels[95]].map((c) => [c.uplink_frequency, c.downlink_frequency])).toEqual([
      ['470300000', '500300000'],
      ['489300000', '509700000'],
    ]);
    expect(enabled(cn.desired_parameters.channels)).toEqual([
      '486300000',
      '486500000',
      '486700000',
      '486900000',
      '487100000',
      '487300000',
      '487500000',
      '487700000',
    ]);
    expect(cn.current_parameters).toMatchObject({ rx2_frequency: '505300000', rx2_data_rate_index: 0, max_eirp: 19.15, ping_slot_data_rate_index_value: 2 });
    expect([cn.desired_parameters.uplink_dwell_time, cn.desired_parameters.downlink_dwell_time, cn.current_parameters.ping_slot_frequency]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it.each(['EU_863_870', 'EU_863_870_TTN', 'US_902_928_FSB_2', 'AU_915_928_FSB_2', 'AS_923', 'IN_865_867', 'CN_470_510_FSB_1', 'CN_470_510_FSB_11'])(
    '%s: a valid MACState in canonical JSON form',
    (planId) => {
      const state = stateFor(planId);
      expect(state.current_parameters.channels?.length).toBeGreaterThan(0);
      expect(JSON.parse(JSON.stringify(decodeMessage(MACState, state)))).toEqual(state);
    },
  );
});
