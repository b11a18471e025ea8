import loraPacket from 'lora-packet';
import {
  encodeMacCommands,
  gpsMsToUtc,
  gpsToUtc,
  macCommandLength,
  type MacCommandJson,
  type MacDirection,
  parseMacCommands,
  utcToGps,
  utcToGpsMs,
} from './mac-commands';

const hex = (s: string) => Buffer.from(s.replace(/\s/g, ''), 'hex');

describe('MAC commands', () => {
  it('reads the uplink commands of a frame built by lora-packet (FOpts: LinkCheckReq, DevStatusAns with a negative margin, DeviceTimeReq)', () => {
    const frame = loraPacket.fromFields(
      {
        MType: 'Unconfirmed Data Up',
        DevAddr: hex('26011234'),
        FCnt: 7,
        FCtrl: { ADR: false },
        FOpts: hex('02 06FE3B 0D'),
        FPort: 1,
        payload: Buffer.from('x'),
      },
      hex('00'.repeat(16)),
      hex('00'.repeat(16)),
    );
    expect(parseMacCommands(frame.FOpts as Buffer, 'uplink')).toEqual({
      commands: [
        { cid: 'CID_LINK_CHECK', link_check_req: {} },
        { cid: 'CID_DEV_STATUS', dev_status_ans: { battery: 254, margin: -5 } },
        { cid: 'CID_DEVICE_TIME', device_time_req: {} },
      ],
    });
  });

  it.each<[string, MacDirection, string, MacCommandJson]>([
    [
      'LinkADRReq DR5, TXPower 0, channels 0–7, NbTrans 1',
      'downlink',
      '03 50 FF00 01',
      {
        cid: 'CID_LINK_ADR',
        link_adr_req: {
          data_rate_index: 5,
          tx_power_index: 0,
          channel_mask: [...Array(8).fill(true), ...Array(8).fill(false)],
          channel_mask_control: 0,
          nb_trans: 1,
        },
      },
    ],
    [
      'RxParamSetupReq RX1DROffset 1, RX2 DR3 at 869.525 MHz',
      'downlink',
      '05 13 D2AD84',
      { cid: 'CID_RX_PARAM_SETUP', rx_param_setup_req: { rx1_data_rate_offset: 1, rx2_data_rate_index: 3, rx2_frequency: 869525000 } },
    ],
    [
      'NewChannelReq channel 3 at 867.1 MHz, DR0–5',
      'downlink',
      '07 03 184F84 50',
      { cid: 'CID_NEW_CHANNEL', new_channel_req: { channel_index: 3, frequency: 867100000, max_data_rate_index: 5, min_data_rate_index: 0 } },
    ],
    ['LinkCheckAns margin 20 dB, 3 gateways', 'downlink', '02 14 03', { cid: 'CID_LINK_CHECK', link_check_ans: { margin: 20, gateway_count: 3 } }],
    ['DutyCycleReq 1/16', 'downlink', '04 04', { cid: 'CID_DUTY_CYCLE', duty_cycle_req: { max_duty_cycle: 'DUTY_CYCLE_16' } }],
    ['RxTimingSetupReq 5 s', 'downlink', '08 05', { cid: 'CID_RX_TIMING_SETUP', rx_timing_setup_req: { delay: 5 } }],
    [
      'TxParamSetupReq dwell times, 16 dBm',
      'downlink',
      '09 35',
      { cid: 'CID_TX_PARAM_SETUP', tx_param_setup_req: { max_eirp_index: 'DEVICE_EIRP_16', uplink_dwell_time: true, downlink_dwell_time: true } },
    ],
    ['DlChannelReq channel 1 at 868.3 MHz', 'downlink', '0A 01 F87D84', { cid: 'CID_DL_CHANNEL', dl_channel_req: { channel_index: 1, frequency: 868300000 } }],
    [
      'ADRParamSetupReq limit 64, delay 32',
      'downlink',
      '0C 65',
      { cid: 'CID_ADR_PARAM_SETUP', adr_param_setup_req: { adr_ack_limit_exponent: 'ADR_ACK_LIMIT_64', adr_ack_delay_exponent: 'ADR_ACK_DELAY_32' } },
    ],
    [
      'ForceRejoinReq period 2, 3 retries, type 2, DR1',
      'downlink',
      '0E 21 13',
      { cid: 'CID_FORCE_REJOIN', force_rejoin_req: { period_exponent: 'REJOIN_PERIOD_2', max_retries: 3, rejoin_type: 'KEYS', data_rate_index: 1 } },
    ],
    [
      'RejoinParamSetupReq time 2^(10+3) s, count 2^(4+2)',
      'downlink',
      '0F 32',
      { cid: 'CID_REJOIN_PARAM_SETUP', rejoin_param_setup_req: { max_time_exponent: 'REJOIN_TIME_3', max_count_exponent: 'REJOIN_COUNT_64' } },
    ],
    [
      'PingSlotChannelReq 869.525 MHz DR3',
      'downlink',
      '11 D2AD84 03',
      { cid: 'CID_PING_SLOT_CHANNEL', ping_slot_channel_req: { frequency: 869525000, data_rate_index: 3 } },
    ],
    ['BeaconFreqReq 869.525 MHz', 'downlink', '13 D2AD84', { cid: 'CID_BEACON_FREQ', beacon_freq_req: { frequency: 869525000 } }],
    ['ResetConf / RekeyConf LoRaWAN 1.1', 'downlink', '01 01 0B 01', { cid: 'CID_RESET', reset_conf: { minor_version: 'MINOR_1' } }],
    ['DeviceModeConf class C', 'downlink', '20 02', { cid: 'CID_DEVICE_MODE', device_mode_conf: { class: 'CLASS_C' } }],
    [
      'LinkADRAns all acknowledged',
      'uplink',
      '03 07',
      { cid: 'CID_LINK_ADR', link_adr_ans: { channel_mask_ack: true, data_rate_index_ack: true, tx_power_index_ack: true } },
    ],
    [
      'LinkADRAns power refused',
      'uplink',
      '03 03',
      { cid: 'CID_LINK_ADR', link_adr_ans: { channel_mask_ack: true, data_rate_index_ack: true, tx_power_index_ack: false } },
    ],
    [
      'RxParamSetupAns RX2 frequency refused',
      'uplink',
      '05 06',
      { cid: 'CID_RX_PARAM_SETUP', rx_param_setup_ans: { rx2_frequency_ack: false, rx2_data_rate_index_ack: true, rx1_data_rate_offset_ack: true } },
    ],
    ['DevStatusAns external power, margin 31', 'uplink', '06 00 1F', { cid: 'CID_DEV_STATUS', dev_status_ans: { battery: 0, margin: 31 } }],
    ['NewChannelAns data rate refused', 'uplink', '07 01', { cid: 'CID_NEW_CHANNEL', new_channel_ans: { frequency_ack: true, data_rate_ack: false } }],
    ['DlChannelAns', 'uplink', '0A 03', { cid: 'CID_DL_CHANNEL', dl_channel_ans: { frequency_ack: true, channel_index_ack: true } }],
    ['ResetInd LoRaWAN 1.1', 'uplink', '01 01', { cid: 'CID_RESET', reset_ind: { minor_version: 'MINOR_1' } }],
    ['RekeyInd LoRaWAN 1.1', 'uplink', '0B 01', { cid: 'CID_REKEY', rekey_ind: { minor_version: 'MINOR_1' } }],
    ['RejoinParamSetupAns', 'uplink', '0F 01', { cid: 'CID_REJOIN_PARAM_SETUP', rejoin_param_setup_ans: { max_time_exponent_ack: true } }],
    ['PingSlotInfoReq every 8 s', 'uplink', '10 03', { cid: 'CID_PING_SLOT_INFO', ping_slot_info_req: { period: 'PING_EVERY_8S' } }],
    ['PingSlotChannelAns', 'uplink', '11 03', { cid: 'CID_PING_SLOT_CHANNEL', ping_slot_channel_ans: { frequency_ack: true, data_rate_index_ack: true } }],
    ['BeaconFreqAns', 'uplink', '13 01', { cid: 'CID_BEACON_FREQ', beacon_freq_ans: { frequency_ack: true } }],
    ['DeviceModeInd class C', 'uplink', '20 02', { cid: 'CID_DEVICE_MODE', device_mode_ind: { class: 'CLASS_C' } }],
  ])('%s: reads and writes %s bytes %s', (_name, direction, bytes, command) => {
    const parsed = parseMacCommands(hex(bytes), direction);
    expect(parsed.stopped).toBeUndefined();
    expect(parsed.commands[0]).toEqual(command);
    expect(encodeMacCommands(parsed.commands, direction)).toEqual(hex(bytes));
  });

  it('DeviceTimeAns: GPS seconds (18 leap seconds ahead of UTC) and 1/256 s', () => {
    const time = '2026-11-24T12:00:00.500Z';
    const bytes = encodeMacCommands([{ cid: 'CID_DEVICE_TIME', device_time_ans: { time } }], 'downlink');
    const seconds = (Date.parse(time) - Date.UTC(1980, 0, 6)) / 1000 + 18;
    expect(bytes[0]).toBe(0x0d);
    expect(bytes.readUInt32LE(1)).toBe(Math.floor(seconds));
    expect(bytes[5]).toBe(128);
    expect(parseMacCommands(bytes, 'downlink').commands).toEqual([{ cid: 'CID_DEVICE_TIME', device_time_ans: { time } }]);
    expect(gpsToUtc(utcToGps(new Date(time))).toISOString()).toBe(time);
  });

  it('GPS milliseconds (`tmms`, class B): 2017-01-01T00:00:00Z is GPS 1167264018 s, and back', () => {
    expect(utcToGpsMs(new Date('2017-01-01T00:00:00.000Z'))).toBe(1_167_264_018_000);
    expect(gpsMsToUtc(1_167_264_018_250).toISOString()).toBe('2017-01-01T00:00:00.250Z');
    const time = new Date('2026-11-24T12:00:00.123Z');
    expect(gpsMsToUtc(utcToGpsMs(time))).toEqual(time);
    expect(utcToGpsMs(time) / 1000).toBeCloseTo(utcToGps(time), 6);
  });

  it('stops at a CID it does not know in that direction, or at a command cut short: the rest of the list is not read', () => {
    expect(parseMacCommands(hex('02 80 02'), 'uplink')).toEqual({
      commands: [{ cid: 'CID_LINK_CHECK', link_check_req: {} }],
      stopped: { offset: 1, cid: 0x80, reason: 'unknown' },
    });
    // ForceRejoinReq (0x0E) exists only downlink: from a device, its CID is unknown.
    expect(parseMacCommands(hex('0E 00 00'), 'uplink').stopped).toEqual({ offset: 0, cid: 0x0e, reason: 'unknown' });
    expect(parseMacCommands(hex('06 FE'), 'uplink')).toEqual({ commands: [], stopped: { offset: 0, cid: 0x06, reason: 'truncated' } });
    expect(parseMacCommands(hex('03 50 FF'), 'downlink').stopped).toEqual({ offset: 0, cid: 0x03, reason: 'truncated' });
    expect(parseMacCommands(Buffer.alloc(0), 'uplink')).toEqual({ commands: [] });
  });

  it('refuses to write what has no bytes: a command of the other direction, values out of range', () => {
    expect(() => encodeMacCommands([{ cid: 'CID_LINK_CHECK', link_check_req: {} }], 'downlink')).not.toThrow();
    expect(() => encodeMacCommands([{ cid: 'CID_FORCE_REJOIN', force_rejoin_req: {} }], 'uplink')).toThrow(RangeError);
    expect(() => encodeMacCommands([{ cid: 'CID_NOPE' }], 'uplink')).toThrow(RangeError);
    expect(() => encodeMacCommands([{ cid: 'CID_LINK_ADR', link_adr_req: { data_rate_index: 16 } }], 'downlink')).toThrow(RangeError);
    expect(() => encodeMacCommands([{ cid: 'CID_DEV_STATUS', dev_status_ans: { battery: 1, margin: -33 } }], 'uplink')).toThrow(RangeError);
    expect(() => encodeMacCommands([{ cid: 'CID_NEW_CHANNEL', new_channel_req: { frequency: 868100050 } }], 'downlink')).toThrow(RangeError);
    expect(() => encodeMacCommands([{ cid: 'CID_DUTY_CYCLE', duty_cycle_req: { max_duty_cycle: 'DUTY_CYCLE_3' } }], 'downlink')).toThrow(RangeError);
  });

  it('knows each command’s length per direction', () => {
    expect(macCommandLength(0x03, 'downlink')).toBe(4);
    expect(macCommandLength(0x03, 'uplink')).toBe(1);
    expect(macCommandLength(0x0e, 'uplink')).toBeUndefined();
    expect(macCommandLength(0x80, 'downlink')).toBeUndefined();
  });
});
