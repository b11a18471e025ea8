import { decodeMessage, MACState } from '@lorawan/api';
import { deepFreeze, encodeMacCommands, type FrequencyPlan, getFrequencyPlan, type MacCommandJson, parseMacCommands } from '@lorawan/lorawan';
import { newMacState } from '../mac-state/new-mac-state';
import type { NsDevice, NsMacState } from '../model';
import { applyUplinkMac, type UplinkMacInput } from './uplink-mac';

const plan = getFrequencyPlan('EU_863_870_TTN') as FrequencyPlan;

function device(fields: Record<string, unknown> = {}, state: Partial<NsMacState> = {}, version = 'MAC_V1_0_3'): NsDevice {
  const mac = newMacState({ lorawan_version: version, frequencyPlan: plan }) as unknown as NsMacState;
  // Deeply frozen: a handler that changes its input in place throws.
  return deepFreeze({
    ids: { device_id: 'dev', application_ids: { application_id: 'app' } },
    lorawan_version: version,
    frequency_plan_id: plan.id,
    session: { dev_addr: '26000001', last_f_cnt_up: 41 },
    supports_join: true,
    ...fields,
    mac_state: { ...mac, ...state },
  } as unknown as NsDevice);
}

/** The uplink's commands as bytes on air, read back (so every test goes through the codec). */
function uplink(commands: MacCommandJson[], fields: Partial<UplinkMacInput> = {}): UplinkMacInput {
  return {
    commands: parseMacCommands(encodeMacCommands(commands, 'uplink'), 'uplink'),
    f_cnt: 42,
    received_at: '2026-11-24T10:00:00.000Z',
    dev_addr: '26000001',
    plan,
    settings: {},
    retransmission: false,
    class_b: false,
    adr: false,
    data_rate_index: 5,
    recent_adr_uplinks: [],
    ...fields,
  };
}

const apply = (d: NsDevice, up: UplinkMacInput) => applyUplinkMac(d, d.mac_state as NsMacState, up);
const names = (r: ReturnType<typeof apply>) => r.events.map((e) => e.event.name);
const state = (r: ReturnType<typeof apply>) => r.device.mac_state as NsMacState;
const pending = (...commands: MacCommandJson[]) => ({ pending_requests: commands });

describe('DevStatusAns → the registry fields (dataplane-notes §4.4)', () => {
  it.each([
    [0, 'POWER_EXTERNAL', undefined],
    [255, 'POWER_UNKNOWN', undefined],
    [1, 'POWER_BATTERY', 0],
    [254, 'POWER_BATTERY', 1],
    [128, 'POWER_BATTERY', 127 / 253],
  ])('battery %i → %s, battery_percentage %p', (battery, power, percentage) => {
    const d = device({ battery_percentage: 0.5 }, pending({ cid: 'CID_DEV_STATUS', dev_status_req: {} }));
    const r = apply(d, uplink([{ cid: 'CID_DEV_STATUS', dev_status_ans: { battery, margin: -7 } }]));
    expect(r.device.power_state).toBe(power);
    expect(r.device.battery_percentage).toBe(percentage);
    expect(r.device.downlink_margin).toBe(-7);
    expect(r.device.last_dev_status_received_at).toBe('2026-11-24T10:00:00.000Z');
    expect(state(r).last_dev_status_f_cnt_up).toBe(42);
    expect(state(r).pending_requests).toBeUndefined();
    expect(names(r)).toEqual(['ns.mac.dev_status.answer']);
  });

  it('an answer without request is refused (ns.mac.command.process.fail); the rest of the frame is ignored, nothing changes', () => {
    const d = device({}, pending({ cid: 'CID_RX_TIMING_SETUP', rx_timing_setup_req: { delay: 5 } }));
    const r = apply(
      d,
      uplink([
        { cid: 'CID_DEV_STATUS', dev_status_ans: { battery: 10, margin: 3 } },
        { cid: 'CID_RX_TIMING_SETUP', rx_timing_setup_ans: {} },
      ]),
    );
    expect(names(r)).toEqual(['ns.mac.command.process.fail', 'ns.mac.command.unanswered']);
    expect(r.events[0].data).toMatchObject({ namespace: 'pkg/networkserver/mac', name: 'request_not_found', attributes: { cid: 'CID_DEV_STATUS' } });
    expect(r.device.power_state).toBeUndefined();
    expect(state(r).current_parameters.rx1_delay).toBe(1);
    expect(state(r).pending_requests).toBeUndefined();
  });
});

describe('reading stops where the specification says', () => {
  it('at an unknown CID: the commands before it count, `ns.mac.command.unknown`', () => {
    const d = device({}, pending({ cid: 'CID_DUTY_CYCLE', duty_cycle_req: { max_duty_cycle: 'DUTY_CYCLE_8' } }));
    const bytes = Buffer.concat([encodeMacCommands([{ cid: 'CID_DUTY_CYCLE', duty_cycle_ans: {} }], 'uplink'), Buffer.from([0x80, 0x06, 0xff, 0x00])]);
    const r = apply(d, { ...uplink([]), commands: parseMacCommands(bytes, 'uplink') });
    expect(names(r)).toEqual(['ns.mac.duty_cycle.answer', 'ns.mac.command.unknown']);
    expect(r.events[1].data).toEqual({ cid: '0x80' });
    expect(state(r).current_parameters.max_duty_cycle).toBe('DUTY_CYCLE_8');
  });

  it('at a command cut short: `ns.mac.command.parse.fail`, the device untouched', () => {
    const d = device({}, pending({ cid: 'CID_DEV_STATUS', dev_status_req: {} }));
    const r = apply(d, { ...uplink([]), commands: parseMacCommands(Buffer.from([0x06, 0x10]), 'uplink') });
    expect(names(r)).toEqual(['ns.mac.command.parse.fail', 'ns.mac.command.unanswered']);
    expect(r.events[0].data).toMatchObject({ name: 'truncated_command', attributes: { cid: '0x06', offset: 0 } });
    expect(r.device.power_state).toBeUndefined();
  });
});

describe('answers make the desired parameters current', () => {
  it('RxParamSetupAns: all acknowledged → RX1 DR offset and RX2 current; one refused → nothing changes (answer.reject)', () => {
    const req = { cid: 'CID_RX_PARAM_SETUP', rx_param_setup_req: { rx1_data_rate_offset: 2, rx2_data_rate_index: 3, rx2_frequency: '869525000' } };
    const ok = apply(
      device({}, pending(req)),
      uplink([{ cid: 'CID_RX_PARAM_SETUP', rx_param_setup_ans: { rx1_data_rate_offset_ack: true, rx2_data_rate_index_ack: true, rx2_frequency_ack: true } }]),
    );
    expect(state(ok).current_parameters).toMatchObject({ rx1_data_rate_offset: 2, rx2_data_rate_index: 3, rx2_frequency: '869525000' });
    expect(names(ok)).toEqual(['ns.mac.rx_param_setup.answer.accept']);
    const refused = apply(
      device({}, pending(req)),
      uplink([{ cid: 'CID_RX_PARAM_SETUP', rx_param_setup_ans: { rx1_data_rate_offset_ack: true, rx2_data_rate_index_ack: false, rx2_frequency_ack: true } }]),
    );
    expect(state(refused).current_parameters).toMatchObject({ rx1_data_rate_offset: 0, rx2_data_rate_index: 0 });
    expect(names(refused)).toEqual(['ns.mac.rx_param_setup.answer.reject']);
  });

  it('RxTimingSetupAns, DutyCycleAns, ADRParamSetupAns, RejoinParamSetupAns, TxParamSetupAns: the requested value is current', () => {
    const d = device(
      {},
      pending(
        { cid: 'CID_RX_TIMING_SETUP', rx_timing_setup_req: { delay: 5 } },
        { cid: 'CID_DUTY_CYCLE', duty_cycle_req: { max_duty_cycle: 'DUTY_CYCLE_16' } },
        { cid: 'CID_ADR_PARAM_SETUP', adr_param_setup_req: { adr_ack_limit_exponent: 'ADR_ACK_LIMIT_128', adr_ack_delay_exponent: 'ADR_ACK_DELAY_64' } },
        { cid: 'CID_REJOIN_PARAM_SETUP', rejoin_param_setup_req: { max_time_exponent: 'REJOIN_TIME_3', max_count_exponent: 'REJOIN_COUNT_64' } },
        { cid: 'CID_TX_PARAM_SETUP', tx_param_setup_req: { max_eirp_index: 'DEVICE_EIRP_14', uplink_dwell_time: true, downlink_dwell_time: false } },
      ),
      'MAC_V1_1',
    );
    const r = apply(
      d,
      uplink([
        { cid: 'CID_RX_TIMING_SETUP', rx_timing_setup_ans: {} },
        { cid: 'CID_DUTY_CYCLE', duty_cycle_ans: {} },
        { cid: 'CID_ADR_PARAM_SETUP', adr_param_setup_ans: {} },
        { cid: 'CID_REJOIN_PARAM_SETUP', rejoin_param_setup_ans: { max_time_exponent_ack: false } },
        { cid: 'CID_TX_PARAM_SETUP', tx_param_setup_ans: {} },
      ]),
    );
    expect(state(r).current_parameters).toMatchObject({
      rx1_delay: 5,
      max_duty_cycle: 'DUTY_CYCLE_16',
      adr_ack_limit_exponent: 'ADR_ACK_LIMIT_128',
      adr_ack_delay_exponent: 'ADR_ACK_DELAY_64',
      rejoin_count_periodicity: 'REJOIN_COUNT_64',
      rejoin_time_periodicity: 'REJOIN_TIME_0',
      max_eirp: 14,
      uplink_dwell_time: true,
      downlink_dwell_time: false,
    });
    expect(names(r)).toEqual([
      'ns.mac.rx_timing_setup.answer',
      'ns.mac.duty_cycle.answer',
      'ns.mac.adr_param_setup.answer',
      'ns.mac.rejoin_param_setup.answer',
      'ns.mac.tx_param_setup.answer',
    ]);
  });

  it('NewChannelAns and DlChannelAns: accepted → the channel; a refused frequency → rejected_frequencies', () => {
    const d = device(
      {},
      pending(
        { cid: 'CID_NEW_CHANNEL', new_channel_req: { channel_index: 3, frequency: '867100000', min_data_rate_index: 0, max_data_rate_index: 5 } },
        { cid: 'CID_DL_CHANNEL', dl_channel_req: { channel_index: 0, frequency: '869100000' } },
        { cid: 'CID_NEW_CHANNEL', new_channel_req: { channel_index: 4, frequency: '867300000', min_data_rate_index: 0, max_data_rate_index: 5 } },
      ),
    );
    const r = apply(
      d,
      uplink([
        { cid: 'CID_NEW_CHANNEL', new_channel_ans: { frequency_ack: true, data_rate_ack: true } },
        { cid: 'CID_DL_CHANNEL', dl_channel_ans: { frequency_ack: false, channel_index_ack: true } },
        { cid: 'CID_NEW_CHANNEL', new_channel_ans: { frequency_ack: false, data_rate_ack: true } },
      ]),
    );
    const channels = state(r).current_parameters.channels ?? [];
    expect(channels).toHaveLength(4);
    expect(channels[3]).toMatchObject({ uplink_frequency: '867100000', downlink_frequency: '867100000', max_data_rate_index: 5, enable_uplink: true });
    expect(channels[0].downlink_frequency).toBe('868100000');
    expect(state(r).rejected_frequencies).toEqual(['867300000', '869100000']);
    expect(names(r)).toEqual(['ns.mac.new_channel.answer.accept', 'ns.mac.dl_channel.answer.reject', 'ns.mac.new_channel.answer.reject']);
  });

  it('LinkADRAns: a block answers the block of requests; accepted → data rate, power, NbTrans and channels current', () => {
    const mask = [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false];
    const req = { cid: 'CID_LINK_ADR', link_adr_req: { data_rate_index: 5, tx_power_index: 2, nb_trans: 2, channel_mask: mask, channel_mask_control: 0 } };
    const ans = { cid: 'CID_LINK_ADR', link_adr_ans: { channel_mask_ack: true, data_rate_index_ack: true, tx_power_index_ack: true } };
    const r = apply(device({}, pending(req)), uplink([ans]));
    expect(state(r).current_parameters).toMatchObject({ adr_data_rate_index: 5, adr_tx_power_index: 2, adr_nb_trans: 2 });
    expect(names(r)).toEqual(['ns.mac.link_adr.answer.accept']);
  });

  it('LinkADRAns refusing the data rate and power: rejected_adr_*_indexes (ascending), nothing else changes', () => {
    const mask = Array.from({ length: 16 }, (_, i) => i < 3);
    const req = (dr: number, tx: number) => ({
      cid: 'CID_LINK_ADR',
      link_adr_req: { data_rate_index: dr, tx_power_index: tx, nb_trans: 1, channel_mask: mask, channel_mask_control: 0 },
    });
    const nack = { cid: 'CID_LINK_ADR', link_adr_ans: { channel_mask_ack: true, data_rate_index_ack: false, tx_power_index_ack: false } };
    const first = apply(device({}, pending(req(5, 3))), uplink([nack]));
    const second = apply(device({}, { ...pending(req(4, 1)), rejected_adr_data_rate_indexes: state(first).rejected_adr_data_rate_indexes }), uplink([nack]));
    expect(state(second).rejected_adr_data_rate_indexes).toEqual([4, 5]);
    expect(state(first).rejected_adr_tx_power_indexes).toEqual([3]);
    expect(state(second).current_parameters.adr_data_rate_index).toBe(0);
    expect(names(second)).toEqual(['ns.mac.link_adr.answer.reject']);
  });

  it('a retransmission does not apply answers again; its unanswered requests are dropped', () => {
    const d = device({}, pending({ cid: 'CID_RX_TIMING_SETUP', rx_timing_setup_req: { delay: 5 } }));
    const r = apply(d, uplink([{ cid: 'CID_RX_TIMING_SETUP', rx_timing_setup_ans: {} }], { retransmission: true }));
    expect(state(r).current_parameters.rx1_delay).toBe(1);
    expect(state(r).pending_requests).toBeUndefined();
  });

  it('requests the uplink does not answer: `ns.mac.command.unanswered`, and they are no longer pending', () => {
    const r = apply(device({}, pending({ cid: 'CID_DEV_STATUS', dev_status_req: {} })), uplink([]));
    expect(names(r)).toEqual(['ns.mac.command.unanswered']);
    expect(r.events[0].data).toEqual({ commands: [{ cid: 'CID_DEV_STATUS', dev_status_req: {} }] });
    expect(state(r).pending_requests).toBeUndefined();
  });
});

describe('device class (the spec\u2019s table)', () => {
  it.each([
    ['CLASS_A', true, true, 'CLASS_B', ['ns.class.switch.b']],
    ['CLASS_A', true, false, 'CLASS_A', []],
    ['CLASS_A', false, true, 'CLASS_A', []],
    ['CLASS_B', false, true, 'CLASS_B', []],
    ['CLASS_C', true, true, 'CLASS_C', []],
  ])('%s, ClassB bit %s, supports_class_b %s → %s', (from, bit, supports, to, events) => {
    const r = apply(device({ supports_class_b: supports }, { device_class: from }), uplink([], { class_b: bit as boolean }));
    expect(state(r).device_class).toBe(to);
    expect(names(r)).toEqual(events);
  });

  it.each([
    ['CLASS_A', 'CLASS_C', 'CLASS_C', ['ns.mac.device_mode.indication', 'ns.class.switch.c', 'ns.mac.device_mode.confirmation']],
    ['CLASS_B', 'CLASS_C', 'CLASS_C', ['ns.mac.device_mode.indication', 'ns.class.switch.c', 'ns.mac.device_mode.confirmation']],
    ['CLASS_C', 'CLASS_A', 'CLASS_A', ['ns.mac.device_mode.indication', 'ns.class.switch.a', 'ns.mac.device_mode.confirmation']],
    ['CLASS_B', 'CLASS_A', 'CLASS_A', ['ns.mac.device_mode.indication', 'ns.class.switch.a', 'ns.mac.device_mode.confirmation']],
    ['CLASS_A', 'CLASS_A', 'CLASS_A', ['ns.mac.device_mode.indication', 'ns.mac.device_mode.confirmation']],
  ])('%s + DeviceModeInd(%s) → %s, answered with DeviceModeConf', (from, named, to, events) => {
    const r = apply(
      device({ supports_class_c: true }, { device_class: from }, 'MAC_V1_1'),
      uplink([{ cid: 'CID_DEVICE_MODE', device_mode_ind: { class: named } }]),
    );
    expect(state(r).device_class).toBe(to);
    expect(state(r).queued_responses).toEqual([{ cid: 'CID_DEVICE_MODE', device_mode_conf: { class: to } }]);
    expect(names(r)).toEqual(events);
  });

  it('DeviceModeInd(CLASS_C) from a device without class C support: it stays, the confirmation says so', () => {
    const r = apply(
      device({ supports_class_c: false }, { device_class: 'CLASS_A' }, 'MAC_V1_1'),
      uplink([{ cid: 'CID_DEVICE_MODE', device_mode_ind: { class: 'CLASS_C' } }]),
    );
    expect(state(r).device_class).toBe('CLASS_A');
    expect(state(r).queued_responses).toEqual([{ cid: 'CID_DEVICE_MODE', device_mode_conf: { class: 'CLASS_A' } }]);
  });
});

describe('LoRaWAN 1.1 indications', () => {
  it('ResetInd from an ABP device: a fresh MAC state, ResetConf with its minor version; from an OTAA device only the event', () => {
    const abp = device({ supports_join: false }, { device_class: 'CLASS_C', current_parameters: { rx1_delay: 5 } as never }, 'MAC_V1_1');
    const r = apply(abp, uplink([{ cid: 'CID_RESET', reset_ind: { minor_version: 'MINOR_1' } }]));
    expect(state(r).device_class).toBe('CLASS_A');
    expect(state(r).current_parameters.rx1_delay).toBe(1);
    expect(state(r).queued_responses).toEqual([{ cid: 'CID_RESET', reset_conf: { minor_version: 'MINOR_1' } }]);
    expect(names(r)).toEqual(['ns.mac.reset.indication', 'ns.mac.reset.confirmation']);
    const otaa = apply(device({}, {}, 'MAC_V1_1'), uplink([{ cid: 'CID_RESET', reset_ind: { minor_version: 'MINOR_1' } }]));
    expect(names(otaa)).toEqual(['ns.mac.reset.indication']);
    expect(state(otaa).queued_responses).toBeUndefined();
  });

  it('RekeyInd: RekeyConf (minor 1) queued', () => {
    const r = apply(device({}, {}, 'MAC_V1_1'), uplink([{ cid: 'CID_REKEY', rekey_ind: { minor_version: 'MINOR_1' } }]));
    expect(state(r).queued_responses).toEqual([{ cid: 'CID_REKEY', rekey_conf: { minor_version: 'MINOR_1' } }]);
    expect(names(r)).toEqual(['ns.mac.rekey.indication', 'ns.mac.rekey.confirmation']);
  });

  it('PingSlotInfoReq: the periodicity is the MAC state\u2019s, answered', () => {
    const r = apply(device({ supports_class_b: true }), uplink([{ cid: 'CID_PING_SLOT_INFO', ping_slot_info_req: { period: 'PING_EVERY_16S' } }]));
    expect(state(r).ping_slot_periodicity).toBe('PING_EVERY_16S');
    expect(state(r).queued_responses).toEqual([{ cid: 'CID_PING_SLOT_INFO', ping_slot_info_ans: {} }]);
  });

  it('LinkCheckReq and DeviceTimeReq wait for every copy of the uplink', () => {
    const r = apply(
      device(),
      uplink([
        { cid: 'CID_LINK_CHECK', link_check_req: {} },
        { cid: 'CID_DEVICE_TIME', device_time_req: {} },
      ]),
    );
    expect(r.after_merge.map((c) => c.cid)).toEqual(['CID_LINK_CHECK', 'CID_DEVICE_TIME']);
    expect(state(r).queued_responses).toBeUndefined();
  });
});

describe('desired settings', () => {
  it('a desired_* MAC setting (the device\u2019s over the NS\u2019s) becomes the desired parameter', () => {
    const r = apply(
      device({ mac_settings: { desired_rx1_delay: 3 } }),
      uplink([], { settings: { desired_rx1_delay: 3, desired_max_duty_cycle: 'DUTY_CYCLE_4' } }),
    );
    expect(state(r).desired_parameters).toMatchObject({ rx1_delay: 3, max_duty_cycle: 'DUTY_CYCLE_4' });
    expect(state(r).current_parameters).toMatchObject({ rx1_delay: 1, max_duty_cycle: 'DUTY_CYCLE_1' });
  });
});

describe('bad input never corrupts the device', () => {
  it('random FOpts (wrong lengths, unknown CIDs, answers without request): no throw, a valid MACState, registry fields in range', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const withRequests = device(
      {},
      pending(
        { cid: 'CID_DEV_STATUS', dev_status_req: {} },
        {
          cid: 'CID_LINK_ADR',
          link_adr_req: { data_rate_index: 5, tx_power_index: 1, nb_trans: 1, channel_mask: Array(16).fill(true), channel_mask_control: 0 },
        },
        { cid: 'CID_NEW_CHANNEL', new_channel_req: { channel_index: 3, frequency: '867100000', min_data_rate_index: 0, max_data_rate_index: 5 } },
      ),
    );
    for (let i = 0; i < 2000; i++) {
      const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(random() * 15) }, () => Math.floor(random() * (random() < 0.7 ? 0x14 : 0x100))));
      const r = apply(withRequests, { ...uplink([]), commands: parseMacCommands(bytes, 'uplink') });
      expect(() => decodeMessage(MACState, JSON.parse(JSON.stringify(state(r))))).not.toThrow();
      const battery = r.device.battery_percentage as number | undefined;
      if (battery !== undefined) expect(battery >= 0 && battery <= 1).toBe(true);
      const margin = r.device.downlink_margin as number | undefined;
      if (margin !== undefined) expect(margin >= -32 && margin <= 31).toBe(true);
      for (const index of [...(state(r).rejected_adr_data_rate_indexes ?? []), ...(state(r).rejected_adr_tx_power_indexes ?? [])])
        expect(index).toBeLessThanOrEqual(15);
    }
  });
});
