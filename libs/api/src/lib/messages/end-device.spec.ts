import { isStackError, type ErrorDetails } from '@lorawan/errors';
import { decodeMessage } from '../validation/decode';
import { SetEndDeviceRequest } from './end-device-requests';
import { type EndDevice, MAX_PROVISIONING_DATA_BYTES } from './end-device';
import type { MACSettings, MACState } from './mac';

type Json = Record<string, unknown>;

const KEY = '00112233445566778899AABBCCDDEEFF';

/** A full OTAA device as the Join, Network and Application Servers would be sent it. */
function otaaDevice(): Json {
  return {
    ids: { device_id: 'dev-1', application_ids: { application_id: 'app-1' }, dev_eui: '70b3d57ed005b59e', join_eui: '0000000000000001' },
    created_at: '2024-05-01T10:00:00Z',
    name: 'Device 1',
    description: 'An OTAA device',
    attributes: { 'key-1': 'value' },
    version_ids: { brand_id: 'the-things-industries', model_id: 'generic-node', hardware_version: '1.0', firmware_version: '1.0' },
    service_profile_id: 'profile',
    network_server_address: 'localhost:1884',
    network_server_kek_label: 'ns-kek',
    application_server_address: 'as.example.com',
    application_server_kek_label: 'as-kek',
    application_server_id: 'as-1',
    join_server_address: 'js.example.com:443',
    locations: { user: { latitude: 52.37, longitude: 4.89, altitude: 10, source: 'SOURCE_REGISTRY' } },
    supports_class_b: true,
    supports_class_c: false,
    lorawan_version: 'MAC_V1_0_3',
    lorawan_phy_version: 'PHY_V1_0_3_REV_A',
    frequency_plan_id: 'EU_863_870_TTN',
    min_frequency: '863000000',
    max_frequency: 870000000,
    supports_join: true,
    resets_join_nonces: false,
    root_keys: { root_key_id: 'root-1', app_key: { key: KEY }, nwk_key: { kek_label: 'kek', encrypted_key: 'AQIDBA==' } },
    net_id: '000013',
    mac_settings: {
      class_b_timeout: '1.5s',
      ping_slot_periodicity: { value: 'PING_EVERY_8S' },
      ping_slot_data_rate_index: 3,
      ping_slot_frequency: '869525000',
      beacon_frequency: 869525000,
      class_c_timeout: '300s',
      rx1_delay: { value: 'RX_DELAY_5' },
      rx1_data_rate_offset: 7,
      rx2_data_rate_index: { value: 0 },
      rx2_frequency: '869525000',
      factory_preset_frequencies: ['868100000', 868300000, 868500000],
      max_duty_cycle: 'DUTY_CYCLE_1',
      supports_32_bit_f_cnt: true,
      use_adr: true,
      adr_margin: 15,
      resets_f_cnt: false,
      status_time_periodicity: '86400s',
      status_count_periodicity: 200,
      desired_rx1_delay: { value: 'RX_DELAY_1' },
      desired_rx1_data_rate_offset: 0,
      desired_rx2_data_rate_index: { value: 'DATA_RATE_3' },
      desired_rx2_frequency: 869525000,
      desired_max_duty_cycle: { value: 'DUTY_CYCLE_2' },
      desired_adr_ack_limit_exponent: { value: 'ADR_ACK_LIMIT_64' },
      desired_adr_ack_delay_exponent: { value: 'ADR_ACK_DELAY_32' },
      desired_ping_slot_data_rate_index: { value: 'DATA_RATE_3' },
      desired_ping_slot_frequency: 869525000,
      desired_beacon_frequency: 869525000,
    },
    mac_state: macState(),
    formatters: {
      up_formatter: 'FORMATTER_JAVASCRIPT',
      up_formatter_parameter: 'function decodeUplink(input) { return { data: {} }; }',
      down_formatter: 'FORMATTER_CAYENNELPP',
    },
    provisioner_id: 'microchip',
    provisioning_data: { serial: 'abc' },
    claim_authentication_code: { value: 'ABC123', valid_from: '2024-01-01T00:00:00Z' },
    last_dev_nonce: 10,
    used_dev_nonces: [1, 2, 3],
    last_join_nonce: 4,
    last_rj_count_0: 0,
    last_rj_count_1: 0,
    power_state: 'POWER_BATTERY',
    battery_percentage: 0.5,
    downlink_margin: -3,
    recent_adr_uplinks: [uplink()],
    recent_uplinks: [uplink()],
    recent_downlinks: [downlink()],
  };
}

function macParameters(): Json {
  return {
    max_eirp: 16.15,
    adr_data_rate_index: 5,
    adr_tx_power_index: 15,
    adr_nb_trans: 1,
    adr_ack_limit: 64,
    adr_ack_delay: 32,
    rx1_delay: 'RX_DELAY_1',
    rx1_data_rate_offset: 0,
    rx2_data_rate_index: 'DATA_RATE_0',
    rx2_frequency: '869525000',
    max_duty_cycle: 'DUTY_CYCLE_1',
    rejoin_time_periodicity: 'REJOIN_TIME_0',
    rejoin_count_periodicity: 'REJOIN_COUNT_16',
    ping_slot_frequency: 869525000,
    ping_slot_data_rate_index: 'DATA_RATE_3',
    beacon_frequency: 869525000,
    channels: [
      { uplink_frequency: '868100000', downlink_frequency: '868100000', min_data_rate_index: 0, max_data_rate_index: 'DATA_RATE_5', enable_uplink: true },
      { uplink_frequency: 868300000, downlink_frequency: 868300000, min_data_rate_index: 'DATA_RATE_0', max_data_rate_index: 5, enable_uplink: true },
    ],
    uplink_dwell_time: false,
    downlink_dwell_time: false,
    adr_ack_limit_exponent: { value: 'ADR_ACK_LIMIT_64' },
    adr_ack_delay_exponent: 'ADR_ACK_DELAY_32',
    ping_slot_data_rate_index_value: { value: 3 },
  };
}

function macState(): Json {
  return {
    current_parameters: macParameters(),
    desired_parameters: macParameters(),
    device_class: 'CLASS_A',
    lorawan_version: 'MAC_V1_0_3',
    last_confirmed_downlink_at: '2024-05-01T10:00:00.123Z',
    last_dev_status_f_cnt_up: 3,
    ping_slot_periodicity: { value: 'PING_EVERY_1S' },
    pending_application_downlink: appDownlink(),
    queued_responses: [{ cid: 'CID_LINK_CHECK', raw_payload: 'AQI=' }],
    pending_requests: [{ cid: 3 }],
    queued_join_accept: {
      payload: Buffer.alloc(17, 1).toString('base64'),
      request: {
        raw_payload: Buffer.alloc(23).toString('base64'),
        dev_addr: '26011234',
        selected_mac_version: 'MAC_V1_0_3',
        net_id: '000013',
        downlink_settings: { rx1_dr_offset: 0, rx2_dr: 3, opt_neg: false },
        rx_delay: 1,
        cf_list: { type: 'FREQUENCIES', freq: [8671000, 8673000] },
        correlation_ids: ['js:join:1'],
      },
      keys: { session_key_id: 'AQID', f_nwk_s_int_key: { key: KEY } },
      correlation_ids: ['ns:join:1'],
      dev_addr: '26011234',
      net_id: '000013',
    },
    pending_join_request: { downlink_settings: { rx2_dr: 'DATA_RATE_0' } },
    rx_windows_available: true,
    recent_uplinks: [uplink()],
    recent_downlinks: [downlink()],
    last_network_initiated_downlink_at: '2024-05-01T10:00:00Z',
    rejected_adr_data_rate_indexes: ['DATA_RATE_6', 7],
    rejected_adr_tx_power_indexes: [14, 15],
    rejected_frequencies: ['868700000', 868900000],
    last_downlink_at: '2024-05-01T10:00:00Z',
  };
}

function uplink(): Json {
  return {
    raw_payload: 'QDQSASaAAQABp9LBsA==',
    payload: { m_hdr: { m_type: 'UNCONFIRMED_UP' } },
    settings: { data_rate: { lora: { bandwidth: 125000, spreading_factor: 7 } }, frequency: '868100000', timestamp: 1000 },
    rx_metadata: [{ gateway_ids: { gateway_id: 'gw-1' }, rssi: -42 }],
    received_at: '2024-05-01T10:00:00Z',
    correlation_ids: ['gs:uplink:01H'],
    device_channel_index: 2,
    consumed_airtime: '0.046336s',
  };
}

function downlink(): Json {
  return { raw_payload: 'YDQSASYAAQAB', scheduled: { frequency: 869525000 }, correlation_ids: ['ns:downlink:01H'], session_key_id: 'AQID' };
}

function appDownlink(): Json {
  return {
    session_key_id: 'AQID',
    f_port: 1,
    f_cnt: 2,
    frm_payload: 'AQID',
    decoded_payload: { led: true },
    confirmed: true,
    class_b_c: { gateways: [{ gateway_ids: { gateway_id: 'gw-1' }, antenna_index: 0 }], absolute_time: '2024-05-01T10:00:00Z' },
    priority: 'NORMAL',
    correlation_ids: ['as:downlink:01H'],
  };
}

/** An ABP device for the Network and Application Servers. */
function abpDevice(): Json {
  return {
    ids: { device_id: 'abp-1', application_ids: { application_id: 'app-1' }, dev_eui: 'cLPVftAFtZ4=', dev_addr: '26011234' },
    lorawan_version: 'V1_0_2',
    lorawan_phy_version: 'PHY_V1_0_2_REV_B',
    frequency_plan_id: 'EU_863_870_TTN',
    supports_join: false,
    multicast: false,
    mac_settings: { resets_f_cnt: true, supports_32_bit_f_cnt: null, rx1_delay: 1 },
    session: {
      dev_addr: '26011234',
      keys: { session_key_id: 'AQID', f_nwk_s_int_key: { key: KEY.toLowerCase() }, app_s_key: { key: KEY } },
      last_f_cnt_up: 10,
      last_n_f_cnt_down: 2,
      last_a_f_cnt_down: 3,
      last_conf_f_cnt_down: 1,
      started_at: '2024-05-01T10:00:00Z',
      queued_application_downlinks: [appDownlink()],
    },
    pending_session: { keys: { session_key_id: 'BAUG' } },
    queued_application_downlinks: [appDownlink()],
    formatters: { up_formatter: 'FORMATTER_NONE', up_formatter_parameter: '', down_formatter: 'FORMATTER_REPOSITORY' },
  };
}

function decode(device: Json): EndDevice {
  return decodeMessage(SetEndDeviceRequest, { end_device: device, field_mask: { paths: ['name'] } }).end_device;
}

/** The innermost cause of a validation error: the attributes naming the offending field. */
function leaf(fn: () => unknown): { field?: unknown; reason?: unknown; path: string[] } {
  try {
    fn();
  } catch (err) {
    if (!isStackError(err)) throw err;
    let details: ErrorDetails = err.toDetails();
    const path = [String(details.attributes?.field)];
    while (details.cause) {
      details = details.cause;
      path.push(String(details.attributes?.field));
    }
    expect(details.namespace).toBe('pkg/errors');
    expect(details.name).toBe('validation');
    return { field: details.attributes?.field, reason: details.attributes?.reason, path };
  }
  throw new Error('expected a validation error');
}

/** Sets `value` at a dotted path (`mac_state.current_parameters.channels.0.uplink_frequency`); `undefined` deletes. */
function withValue(device: Json, path: string, value: unknown): Json {
  const keys = path.split('.');
  let node: Record<string, unknown> = device;
  for (const key of keys.slice(0, -1)) {
    if (node[key] === undefined) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return device;
}

/** The value at a dotted path of a decoded message. */
function valueAt(message: unknown, path: string): unknown {
  let node: unknown = message;
  for (const key of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[key];
  return node;
}

describe('EndDevice contract: valid bodies', () => {
  it('decodes a full OTAA device and normalises it', () => {
    const dev = decode(otaaDevice());
    expect(dev.ids.dev_eui).toBe('70B3D57ED005B59E');
    expect(dev.ids.join_eui).toBe('0000000000000001');
    expect(dev.min_frequency).toBe('863000000');
    expect(dev.max_frequency).toBe('870000000');
    expect(dev.root_keys?.app_key?.key).toBe(KEY);
    expect(dev.root_keys?.nwk_key?.encrypted_key).toBe('AQIDBA==');
    const ms = dev.mac_settings as MACSettings;
    expect(ms.class_b_timeout).toBe('1.500s');
    expect(ms.class_c_timeout).toBe('300s');
    expect(ms.ping_slot_periodicity).toBe('PING_EVERY_8S');
    expect(ms.ping_slot_data_rate_index).toBe(3);
    expect(ms.rx1_delay).toBe(5);
    expect(ms.rx2_data_rate_index).toBe(0);
    expect(ms.max_duty_cycle).toBe('DUTY_CYCLE_1');
    expect(ms.ping_slot_frequency).toBe('869525000');
    expect(ms.beacon_frequency).toBe('869525000');
    expect(ms.rx2_frequency).toBe('869525000');
    expect(ms.factory_preset_frequencies).toEqual(['868100000', '868300000', '868500000']);
    expect(ms.use_adr).toBe(true);
    expect(ms.adr_margin).toBe(15);
    expect(ms.desired_rx1_delay).toBe(1);
    expect(ms.desired_rx2_data_rate_index).toBe(3);
    expect(ms.desired_max_duty_cycle).toBe('DUTY_CYCLE_2');
    expect(ms.desired_adr_ack_limit_exponent).toBe('ADR_ACK_LIMIT_64');
    expect(ms.desired_ping_slot_data_rate_index).toBe(3);
    expect(ms.desired_rx2_frequency).toBe('869525000');
    const state = dev.mac_state as MACState;
    expect(state.ping_slot_periodicity).toBe('PING_EVERY_1S');
    expect(state.current_parameters.adr_data_rate_index).toBe(5);
    expect(state.current_parameters.rx1_delay).toBe(1);
    expect(state.current_parameters.rx2_data_rate_index).toBe(0);
    expect(state.current_parameters.rx2_frequency).toBe('869525000');
    expect(state.current_parameters.ping_slot_frequency).toBe('869525000');
    expect(state.current_parameters.ping_slot_data_rate_index).toBe(3);
    expect(state.current_parameters.channels?.[0]).toEqual({
      uplink_frequency: '868100000',
      downlink_frequency: '868100000',
      min_data_rate_index: 0,
      max_data_rate_index: 5,
      enable_uplink: true,
    });
    expect(state.current_parameters.channels?.[1].uplink_frequency).toBe('868300000');
    expect(state.current_parameters.channels?.[1].min_data_rate_index).toBe(0);
    expect(state.current_parameters.uplink_dwell_time).toBe(false);
    expect(state.current_parameters.adr_ack_limit_exponent).toBe('ADR_ACK_LIMIT_64');
    expect(state.current_parameters.adr_ack_delay_exponent).toBe('ADR_ACK_DELAY_32');
    expect(state.current_parameters.ping_slot_data_rate_index_value).toBe(3);
    expect(state.pending_requests?.[0].cid).toBe('CID_LINK_ADR');
    expect(state.queued_join_accept?.request.downlink_settings.rx1_dr_offset).toBe(0);
    expect(state.queued_join_accept?.request.downlink_settings.rx2_dr).toBe(3);
    expect(state.queued_join_accept?.request.rx_delay).toBe(1);
    expect(state.pending_join_request?.downlink_settings.rx2_dr).toBe(0);
    expect(state.rejected_adr_data_rate_indexes).toEqual([6, 7]);
    expect(state.rejected_frequencies).toEqual(['868700000', '868900000']);
    expect(dev.battery_percentage).toBe(0.5);
    expect(dev.recent_uplinks?.[0].settings?.frequency).toBe('868100000');
    expect(dev.recent_downlinks?.[0].scheduled?.frequency).toBe('869525000');
    expect(dev.recent_uplinks?.[0].consumed_airtime).toBe('0.046336s');
    expect(dev.formatters?.up_formatter).toBe('FORMATTER_JAVASCRIPT');
    expect(dev.formatters?.down_formatter).toBe('FORMATTER_CAYENNELPP');
  });

  it('decodes a full ABP device and normalises it', () => {
    const dev = decode(abpDevice());
    expect(dev.ids.dev_eui).toBe('70B3D57ED005B59E');
    expect(dev.ids.dev_addr).toBe('26011234');
    expect(dev.lorawan_version).toBe('MAC_V1_0_2');
    expect(dev.session?.keys.f_nwk_s_int_key?.key).toBe(KEY);
    expect(dev.session?.keys.session_key_id).toBe('AQID');
    expect(dev.session?.queued_application_downlinks?.[0].priority).toBe('NORMAL');
    expect(dev.session?.queued_application_downlinks?.[0].class_b_c?.gateways?.[0].gateway_ids.gateway_id).toBe('gw-1');
    expect(dev.mac_settings?.supports_32_bit_f_cnt).toBeUndefined();
    expect(dev.mac_settings?.rx1_delay).toBe(1);
    expect(dev.pending_session?.keys.session_key_id).toBe('BAUG');
    expect(dev.formatters?.down_formatter).toBe('FORMATTER_REPOSITORY');
  });

  it.each([
    ['hex, lower case', '70b3d57ed005b59e'],
    ['hex, upper case', '70B3D57ED005B59E'],
    ['base64', 'cLPVftAFtZ4='],
    ['base64 without padding', 'cLPVftAFtZ4'],
  ])('normalises an EUI given as %s to upper-case hex', (_, eui) => {
    expect(decode(withValue(abpDevice(), 'ids.join_eui', eui)).ids.join_eui).toBe('70B3D57ED005B59E');
  });

  // Enums are written by name, except DataRateIndex, DataRateOffset and RxDelay, which TTS writes
  // as numbers; input may be the name, the name without its prefix, or the number (also as a string).
  it.each([
    ['lorawan_version', 5, 'MAC_V1_0_3'],
    ['lorawan_version', 'V1_0_3', 'MAC_V1_0_3'],
    ['lorawan_version', '1.0.3', 'MAC_V1_0_3'],
    ['lorawan_version', '1.1.0', 'MAC_V1_1'],
    ['mac_state.lorawan_version', '1.0.2', 'MAC_V1_0_2'],
    ['lorawan_phy_version', 7, 'PHY_V1_0_3_REV_A'],
    ['lorawan_phy_version', '1.0.2-b', 'PHY_V1_0_2_REV_B'],
    ['lorawan_phy_version', '1.1-a', 'PHY_V1_1_REV_A'],
    ['lorawan_phy_version', 'V1_0_3_REV_A', 'PHY_V1_0_3_REV_A'],
    ['power_state', 2, 'POWER_EXTERNAL'],
    ['mac_state.device_class', 1, 'CLASS_B'],
    ['mac_state.device_class', 'C', 'CLASS_C'],
    ['mac_state.current_parameters.max_duty_cycle', 15, 'DUTY_CYCLE_32768'],
    ['mac_state.current_parameters.max_duty_cycle', '4', 'DUTY_CYCLE_4'],
    ['mac_state.current_parameters.rejoin_count_periodicity', 15, 'REJOIN_COUNT_524288'],
    ['mac_state.current_parameters.rejoin_time_periodicity', 15, 'REJOIN_TIME_15'],
    ['mac_state.current_parameters.rx1_delay', 'RX_DELAY_15', 15],
    ['mac_state.current_parameters.rx1_delay', '15', 15],
    ['mac_state.current_parameters.rx2_data_rate_index', 'DATA_RATE_3', 3],
    ['mac_state.current_parameters.adr_data_rate_index', '3', 3],
    ['mac_state.current_parameters.channels.0.max_data_rate_index', 'DATA_RATE_15', 15],
    ['mac_state.rejected_adr_data_rate_indexes', ['DATA_RATE_0', '1', 2], [0, 1, 2]],
    ['mac_state.pending_join_request.downlink_settings.rx1_dr_offset', 'DATA_RATE_OFFSET_5', 5],
    ['mac_state.pending_join_request.rx_delay', 'RX_DELAY_2', 2],
    ['mac_settings.rx1_delay', 'RX_DELAY_5', 5],
    ['mac_settings.rx1_delay', '5', 5],
    ['mac_settings.rx1_delay', 5, 5],
    ['mac_settings.rx1_delay', { value: 'RX_DELAY_5' }, 5],
    ['mac_settings.rx2_data_rate_index', 'DATA_RATE_3', 3],
    ['mac_settings.rx2_data_rate_index', { value: 'DATA_RATE_3' }, 3],
    ['mac_settings.ping_slot_periodicity', 7, 'PING_EVERY_128S'],
    ['mac_settings.desired_adr_ack_limit_exponent', { value: 15 }, 'ADR_ACK_LIMIT_32768'],
    ['mac_settings.desired_adr_ack_delay_exponent', 0, 'ADR_ACK_DELAY_1'],
    ['formatters.down_formatter', 4, 'FORMATTER_CAYENNELPP'],
    ['session.queued_application_downlinks.0.priority', 6, 'HIGHEST'],
    ['mac_state.queued_responses.0.cid', 32, 'CID_DEVICE_MODE'],
  ])('normalises enum %s = %j to %j', (path, input, canonical) => {
    const device = withValue(otaaDevice(), 'session', { keys: {}, queued_application_downlinks: [appDownlink()] });
    withValue(device, 'mac_state.pending_join_request', { downlink_settings: {} });
    expect(valueAt(decode(withValue(device, path, input)), path)).toEqual(canonical);
  });

  // `*Value` wrapper fields are bare values; the message form `{"value": X}` is accepted on input.
  it.each([
    ['mac_settings.ping_slot_periodicity', 'PING_EVERY_2S', 'PING_EVERY_2S'],
    ['mac_settings.ping_slot_data_rate_index', 'DATA_RATE_4', 4],
    ['mac_settings.ping_slot_frequency', 869525000, '869525000'],
    ['mac_settings.beacon_frequency', '869525000', '869525000'],
    ['mac_settings.rx1_delay', 'RX_DELAY_3', 3],
    ['mac_settings.rx1_data_rate_offset', 2, 2],
    ['mac_settings.rx2_data_rate_index', 2, 2],
    ['mac_settings.rx2_frequency', 869525000, '869525000'],
    ['mac_settings.max_duty_cycle', 'DUTY_CYCLE_8', 'DUTY_CYCLE_8'],
    ['mac_settings.supports_32_bit_f_cnt', false, false],
    ['mac_settings.use_adr', true, true],
    ['mac_settings.adr_margin', 7.5, 7.5],
    ['mac_settings.resets_f_cnt', true, true],
    ['mac_settings.status_count_periodicity', 0, 0],
    ['mac_settings.desired_rx1_delay', 2, 2],
    ['mac_settings.desired_rx1_data_rate_offset', 1, 1],
    ['mac_settings.desired_rx2_data_rate_index', 'DATA_RATE_1', 1],
    ['mac_settings.desired_rx2_frequency', '869525000', '869525000'],
    ['mac_settings.desired_max_duty_cycle', 'DUTY_CYCLE_16', 'DUTY_CYCLE_16'],
    ['mac_settings.desired_adr_ack_limit_exponent', 'ADR_ACK_LIMIT_32', 'ADR_ACK_LIMIT_32'],
    ['mac_settings.desired_adr_ack_delay_exponent', 'ADR_ACK_DELAY_2', 'ADR_ACK_DELAY_2'],
    ['mac_settings.desired_ping_slot_data_rate_index', 5, 5],
    ['mac_settings.desired_ping_slot_frequency', 869100000, '869100000'],
    ['mac_settings.desired_beacon_frequency', 869100000, '869100000'],
    ['mac_state.current_parameters.uplink_dwell_time', true, true],
    ['mac_state.current_parameters.downlink_dwell_time', false, false],
    ['mac_state.current_parameters.adr_ack_limit_exponent', 'ADR_ACK_LIMIT_128', 'ADR_ACK_LIMIT_128'],
    ['mac_state.current_parameters.adr_ack_delay_exponent', 'ADR_ACK_DELAY_4', 'ADR_ACK_DELAY_4'],
    ['mac_state.current_parameters.ping_slot_data_rate_index_value', 'DATA_RATE_2', 2],
    ['mac_state.ping_slot_periodicity', 'PING_EVERY_4S', 'PING_EVERY_4S'],
    ['battery_percentage', 0.25, 0.25],
    ['battery_percentage', 0, 0],
  ])('wrapper %s: %j and {"value": %j} both decode to the bare %j', (path, input, bare) => {
    expect(valueAt(decode(withValue(otaaDevice(), path, input)), path)).toEqual(bare);
    expect(valueAt(decode(withValue(otaaDevice(), path, { value: input })), path)).toEqual(bare);
  });

  it.each([null, { value: null }])('a wrapper given as %j is unset', (input) => {
    const device = withValue(otaaDevice(), 'mac_settings.rx1_delay', input);
    withValue(device, 'mac_settings.use_adr', input);
    withValue(device, 'mac_settings.rx2_frequency', input);
    withValue(device, 'battery_percentage', input);
    const dev = decode(device);
    expect(dev.mac_settings?.rx1_delay).toBeUndefined();
    expect(dev.mac_settings?.use_adr).toBeUndefined();
    expect(dev.mac_settings?.rx2_frequency).toBeUndefined();
    expect(dev.battery_percentage).toBeUndefined();
  });

  // uint64 is written as a decimal string (TTS jsonplugin WriteUint64); a number or a string is read.
  it.each([
    ['868100000', '868100000'],
    [868100000, '868100000'],
    ['0868100000', '868100000'],
  ])('accepts uint64 %j for frequencies as %j', (input, out) => {
    const device = withValue(otaaDevice(), 'mac_settings.rx2_frequency', input);
    withValue(device, 'mac_settings.factory_preset_frequencies', [input, input]);
    withValue(device, 'mac_state.current_parameters.channels.0.uplink_frequency', input);
    withValue(device, 'mac_state.rejected_frequencies', [input]);
    withValue(device, 'recent_uplinks.0.settings.frequency', input);
    withValue(device, 'max_frequency', input);
    const dev = decode(device);
    expect(dev.mac_settings?.rx2_frequency).toBe(out);
    expect(dev.mac_settings?.factory_preset_frequencies).toEqual([out, out]);
    expect(dev.mac_state?.current_parameters.channels?.[0].uplink_frequency).toBe(out);
    expect(dev.mac_state?.rejected_frequencies).toEqual([out]);
    expect(dev.recent_uplinks?.[0].settings?.frequency).toBe(out);
    expect(dev.max_frequency).toBe(out);
  });

  it.each([
    ['2^53 + 1', '9007199254740993'],
    ['2^64 - 1', '18446744073709551615'],
    ['0', '0'],
  ])('keeps a uint64 string of %s exactly', (_, value) => {
    const device = withValue(otaaDevice(), 'min_frequency', value);
    withValue(device, 'max_frequency', value);
    withValue(device, 'mac_settings.factory_preset_frequencies', [value]);
    const dev = decode(device);
    expect(dev.min_frequency).toBe(value);
    expect(dev.max_frequency).toBe(value);
    expect(dev.mac_settings?.factory_preset_frequencies).toEqual([value]);
  });

  it.each([
    ['negative number', -1],
    ['negative string', '-1'],
    ['non-integer number', 868100000.5],
    ['non-integer string', '868100000.5'],
    ['2^64', '18446744073709551616'],
    ['a number beyond 2^53 (not exact)', 2 ** 53],
    ['exponent notation string', '8.681e8'],
    ['empty string', ''],
    ['boolean', true],
  ])('rejects a uint64 given as %s', (_, value) => {
    for (const path of ['max_frequency', 'mac_settings.rx2_frequency', 'mac_state.current_parameters.beacon_frequency']) {
      const err = leaf(() => decode(withValue(otaaDevice(), path, value)));
      expect(err.field).toBe(path.split('.').pop());
      expect(String(err.reason)).toMatch(/uint64/);
    }
    const err = leaf(() => decode(withValue(otaaDevice(), 'mac_settings.factory_preset_frequencies', ['868100000', value])));
    expect(err.field).toBe('factory_preset_frequencies');
    expect(String(err.reason)).toMatch(/uint64/);
  });

  it.each([
    ['1s', '1s'],
    ['0.5s', '0.500s'],
    ['0.000001s', '0.000001s'],
    ['1.000000001s', '1.000000001s'],
    ['-2s', '-2s'],
    ['1m30s', '90s'],
    ['250ms', '0.250s'],
  ])('normalises duration %s to %s', (input, out) => {
    expect(decode(withValue(abpDevice(), 'mac_settings.class_b_timeout', input)).mac_settings?.class_b_timeout).toBe(out);
  });

  it('accepts a formatter that takes no parameter, alone', () => {
    expect(decode(withValue(abpDevice(), 'formatters', { up_formatter: 'FORMATTER_CAYENNELPP' })).formatters?.up_formatter).toBe('FORMATTER_CAYENNELPP');
    expect(decode(withValue(abpDevice(), 'formatters', { down_formatter: 'FORMATTER_NONE' })).formatters?.down_formatter).toBe('FORMATTER_NONE');
  });

  it('accepts 96 factory preset frequencies, 15 rejected ADR indexes of each kind and 64 KiB of provisioning data', () => {
    const device = withValue(otaaDevice(), 'mac_settings.factory_preset_frequencies', Array(96).fill('868100000'));
    withValue(device, 'mac_state.rejected_adr_data_rate_indexes', Array(15).fill(1));
    withValue(device, 'mac_state.rejected_adr_tx_power_indexes', Array(15).fill(1));
    const data = { data: 'x'.repeat(MAX_PROVISIONING_DATA_BYTES - '{"data":""}'.length) };
    withValue(device, 'provisioning_data', data);
    const decoded = decode(device);
    expect(decoded.mac_settings?.factory_preset_frequencies).toHaveLength(96);
    expect([decoded.mac_state?.rejected_adr_data_rate_indexes, decoded.mac_state?.rejected_adr_tx_power_indexes].map((l) => l?.length)).toEqual([15, 15]);
    expect(decoded.provisioning_data).toEqual(data);
  });

  it('accepts 20 recent ADR uplinks and a 40960-byte formatter parameter', () => {
    const device = withValue(otaaDevice(), 'recent_adr_uplinks', Array.from({ length: 20 }, uplink));
    withValue(device, 'formatters.up_formatter_parameter', 'x'.repeat(40960));
    expect(decode(device).recent_adr_uplinks).toHaveLength(20);
  });
});

/** [description, path to set (or delete with undefined), value, expected leaf field, expected reason fragment]. */
type Case = [string, string, unknown, string, RegExp];

const cases: Case[] = [
  // EndDevice (Identity Server fields).
  ['ids missing', 'ids', undefined, 'ids', /required/],
  ['ids.device_id missing', 'ids.device_id', undefined, 'device_id', /required/],
  ['ids.application_ids missing', 'ids.application_ids', undefined, 'application_ids', /required/],
  ['ids.application_ids.application_id missing', 'ids.application_ids', {}, 'application_id', /required/],
  ['device_id bad pattern', 'ids.device_id', 'Dev_1', 'device_id', /regex/],
  ['device_id longer than 36', 'ids.device_id', 'd'.repeat(37), 'device_id', /at most 36/],
  ['dev_eui wrong length', 'ids.dev_eui', '0011', 'dev_eui', /length/],
  ['join_eui wrong length', 'ids.join_eui', '00112233445566778899', 'join_eui', /length/],
  ['dev_addr wrong length', 'ids.dev_addr', '0011223', 'dev_addr', /length/],
  ['created_at not RFC 3339 UTC', 'created_at', '2024-05-01T10:00:00+02:00', 'created_at', /timestamp/],
  ['name longer than 50', 'name', 'n'.repeat(51), 'name', /at most 50/],
  ['description longer than 2000', 'description', 'd'.repeat(2001), 'description', /at most 2000/],
  ['brand_id bad pattern', 'version_ids.brand_id', 'Brand!', 'brand_id', /regex/],
  ['brand_id longer than 36', 'version_ids.brand_id', 'b'.repeat(37), 'brand_id', /at most 36/],
  ['model_id bad pattern', 'version_ids.model_id', '-model', 'model_id', /regex/],
  ['model_id longer than 36', 'version_ids.model_id', 'm'.repeat(37), 'model_id', /at most 36/],
  ['service_profile_id longer than 64', 'service_profile_id', 's'.repeat(65), 'service_profile_id', /at most 64/],
  ['network_server_address not pattern A', 'network_server_address', 'http://ns.example.com', 'network_server_address', /regex/],
  ['application_server_address not pattern A', 'application_server_address', 'as.example.com:123456', 'application_server_address', /regex/],
  ['join_server_address not pattern A', 'join_server_address', '-js.example.com', 'join_server_address', /regex/],
  ['location latitude out of range', 'locations.user.latitude', 91, 'latitude', /range \[-90, 90\]/],
  // Join Server fields.
  ['network_server_kek_label longer than 2048', 'network_server_kek_label', 'k'.repeat(2049), 'network_server_kek_label', /at most 2048/],
  ['application_server_kek_label longer than 2048', 'application_server_kek_label', 'k'.repeat(2049), 'application_server_kek_label', /at most 2048/],
  ['application_server_id longer than 100', 'application_server_id', 'a'.repeat(101), 'application_server_id', /at most 100/],
  ['net_id wrong length', 'net_id', 'ZZ', 'net_id', /length/],
  ['provisioner_id bad pattern', 'provisioner_id', 'Microchip', 'provisioner_id', /regex/],
  ['provisioner_id longer than 36', 'provisioner_id', 'p'.repeat(37), 'provisioner_id', /at most 36/],
  ['provisioning_data not an object', 'provisioning_data', 'data', 'provisioning_data', /object/],
  [
    'provisioning_data larger than 64 KiB as JSON',
    'provisioning_data',
    { data: 'x'.repeat(MAX_PROVISIONING_DATA_BYTES) },
    'provisioning_data',
    /at most 65536 bytes/,
  ],
  ['authentication code empty', 'claim_authentication_code.value', '', 'value', /regex/],
  ['authentication code lower case', 'claim_authentication_code.value', 'abc', 'value', /regex/],
  ['authentication code longer than 32', 'claim_authentication_code.value', 'A'.repeat(33), 'value', /regex/],
  ['used_dev_nonces not integers', 'used_dev_nonces', ['x'], 'used_dev_nonces', /unsigned integer/],
  ['root_key_id longer than 2048', 'root_keys.root_key_id', 'r'.repeat(2049), 'root_key_id', /at most 2048/],
  ['app_key.key wrong length', 'root_keys.app_key.key', '0011', 'key', /length/],
  ['nwk_key.key wrong length', 'root_keys.nwk_key.key', KEY.slice(2), 'key', /length/],
  ['app_key.kek_label longer than 2048', 'root_keys.app_key.kek_label', 'k'.repeat(2049), 'kek_label', /at most 2048/],
  ['nwk_key.encrypted_key not base64', 'root_keys.nwk_key.encrypted_key', '!!!', 'encrypted_key', /base64/],
  // Network Server fields.
  ['lorawan_version undefined name', 'lorawan_version', 'MAC_V9', 'lorawan_version', /defined MACVersion/],
  ['lorawan_version undefined number', 'lorawan_version', 7, 'lorawan_version', /defined MACVersion/],
  ['lorawan_phy_version undefined name', 'lorawan_phy_version', 'PHY_V9', 'lorawan_phy_version', /defined PHYVersion/],
  ['lorawan_phy_version undefined number', 'lorawan_phy_version', 8, 'lorawan_phy_version', /defined PHYVersion/],
  ['power_state undefined name', 'power_state', 'POWER_SOLAR', 'power_state', /defined PowerState/],
  ['power_state undefined number', 'power_state', '3', 'power_state', /defined PowerState/],
  ['frequency_plan_id longer than 64', 'frequency_plan_id', 'f'.repeat(65), 'frequency_plan_id', /at most 64/],
  ['min_frequency negative', 'min_frequency', -1, 'min_frequency', /uint64/],
  ['battery_percentage above 1', 'battery_percentage', 1.01, 'battery_percentage', /range \[0, 1\]/],
  ['battery_percentage below 0', 'battery_percentage', -0.01, 'battery_percentage', /range \[0, 1\]/],
  ['battery_percentage above 1, wrapped', 'battery_percentage', { value: 1.5 }, 'battery_percentage', /range \[0, 1\]/],
  ['downlink_margin not an integer', 'downlink_margin', 1.5, 'downlink_margin', /int32/],
  ['recent_adr_uplinks with 21 items', 'recent_adr_uplinks', Array.from({ length: 21 }, uplink), 'recent_adr_uplinks', /no more than 20/],
  ['recent_uplinks item with bad timestamp', 'recent_uplinks', [{ received_at: 'yesterday' }], 'received_at', /timestamp/],
  ['recent_uplinks item with bad airtime', 'recent_uplinks', [{ consumed_airtime: '1 second' }], 'consumed_airtime', /duration/],
  ['recent_uplinks item with frequency 99999', 'recent_uplinks', [{ settings: { frequency: 99999 } }], 'frequency', /100000/],
  ['recent_uplinks item with device_channel_index 256', 'recent_uplinks', [{ device_channel_index: 256 }], 'device_channel_index', /255/],
  [
    'recent_downlinks item with long session_key_id',
    'recent_downlinks',
    [{ session_key_id: Buffer.alloc(2049).toString('base64') }],
    'session_key_id',
    /2048 bytes/,
  ],
  ['recent_downlinks item with long correlation ID', 'recent_downlinks', [{ correlation_ids: ['c'.repeat(101)] }], 'correlation_ids', /100 runes/],
  [
    'recent_downlinks item with end_device_ids.dev_eui wrong length',
    'recent_downlinks',
    [{ end_device_ids: { device_id: 'dev-1', application_ids: { application_id: 'app-1' }, dev_eui: '00' } }],
    'dev_eui',
    /length/,
  ],
  // MACSettings.
  ['mac_settings.class_b_timeout not a duration', 'mac_settings.class_b_timeout', 5, 'class_b_timeout', /duration/],
  ['mac_settings.class_c_timeout not a duration', 'mac_settings.class_c_timeout', '5 minutes', 'class_c_timeout', /duration/],
  ['mac_settings.status_time_periodicity not a duration', 'mac_settings.status_time_periodicity', '1d', 'status_time_periodicity', /duration/],
  [
    'mac_settings.ping_slot_periodicity undefined name',
    'mac_settings.ping_slot_periodicity',
    'PING_EVERY_3S',
    'ping_slot_periodicity',
    /defined PingSlotPeriod/,
  ],
  [
    'mac_settings.ping_slot_periodicity undefined name, wrapped',
    'mac_settings.ping_slot_periodicity',
    { value: 'PING_EVERY_3S' },
    'ping_slot_periodicity',
    /defined PingSlotPeriod/,
  ],
  ['mac_settings.ping_slot_data_rate_index 16', 'mac_settings.ping_slot_data_rate_index', 16, 'ping_slot_data_rate_index', /defined DataRateIndex/],
  ['mac_settings.ping_slot_frequency 99999', 'mac_settings.ping_slot_frequency', 99999, 'ping_slot_frequency', /greater than or equal to 100000/],
  ['mac_settings.beacon_frequency 99999', 'mac_settings.beacon_frequency', '99999', 'beacon_frequency', /greater than or equal to 100000/],
  ['mac_settings.rx1_delay undefined name', 'mac_settings.rx1_delay', 'RX_DELAY_16', 'rx1_delay', /defined RxDelay/],
  ['mac_settings.rx1_delay undefined number, wrapped', 'mac_settings.rx1_delay', { value: 16 }, 'rx1_delay', /defined RxDelay/],
  ['mac_settings.rx1_data_rate_offset 8', 'mac_settings.rx1_data_rate_offset', 8, 'rx1_data_rate_offset', /less than or equal to 7/],
  ['mac_settings.rx1_data_rate_offset 8, wrapped', 'mac_settings.rx1_data_rate_offset', { value: 8 }, 'rx1_data_rate_offset', /less than or equal to 7/],
  [
    'mac_settings.rx2_data_rate_index undefined name',
    'mac_settings.rx2_data_rate_index',
    { value: 'DATA_RATE_16' },
    'rx2_data_rate_index',
    /defined DataRateIndex/,
  ],
  ['mac_settings.rx2_frequency 99999', 'mac_settings.rx2_frequency', 99999, 'rx2_frequency', /greater than or equal to 100000/],
  ['mac_settings.rx2_frequency 99999, wrapped', 'mac_settings.rx2_frequency', { value: '99999' }, 'rx2_frequency', /greater than or equal to 100000/],
  ['mac_settings.factory_preset_frequencies not integers', 'mac_settings.factory_preset_frequencies', ['868.1'], 'factory_preset_frequencies', /uint64/],
  [
    'mac_settings.factory_preset_frequencies more than 96 (TTS)',
    'mac_settings.factory_preset_frequencies',
    Array(97).fill('868100000'),
    'factory_preset_frequencies',
    /no more than 96 item/,
  ],
  [
    'mac_settings.factory_preset_frequencies 50 000 items',
    'mac_settings.factory_preset_frequencies',
    Array(50_000).fill('x'),
    'factory_preset_frequencies',
    /no more than 96 item/,
  ],
  ['mac_settings.max_duty_cycle undefined name', 'mac_settings.max_duty_cycle', 'DUTY_CYCLE_3', 'max_duty_cycle', /defined AggregatedDutyCycle/],
  ['mac_settings.supports_32_bit_f_cnt not a bool', 'mac_settings.supports_32_bit_f_cnt', 'true', 'supports_32_bit_f_cnt', /boolean/],
  ['mac_settings.use_adr not a bool', 'mac_settings.use_adr', 1, 'use_adr', /boolean/],
  ['mac_settings.adr_margin not a number', 'mac_settings.adr_margin', 'high', 'adr_margin', /number/],
  ['mac_settings.status_count_periodicity negative', 'mac_settings.status_count_periodicity', -1, 'status_count_periodicity', /uint32/],
  ['mac_settings.desired_rx1_delay undefined name', 'mac_settings.desired_rx1_delay', 'RX_DELAY_99', 'desired_rx1_delay', /defined RxDelay/],
  ['mac_settings.desired_rx1_data_rate_offset 8', 'mac_settings.desired_rx1_data_rate_offset', 8, 'desired_rx1_data_rate_offset', /less than or equal to 7/],
  [
    'mac_settings.desired_rx2_data_rate_index undefined number',
    'mac_settings.desired_rx2_data_rate_index',
    { value: 99 },
    'desired_rx2_data_rate_index',
    /defined DataRateIndex/,
  ],
  ['mac_settings.desired_rx2_frequency 99999', 'mac_settings.desired_rx2_frequency', 99999, 'desired_rx2_frequency', /100000/],
  [
    'mac_settings.desired_max_duty_cycle undefined number',
    'mac_settings.desired_max_duty_cycle',
    { value: 16 },
    'desired_max_duty_cycle',
    /defined AggregatedDutyCycle/,
  ],
  [
    'mac_settings.desired_adr_ack_limit_exponent undefined name',
    'mac_settings.desired_adr_ack_limit_exponent',
    { value: 'ADR_ACK_LIMIT_3' },
    'desired_adr_ack_limit_exponent',
    /defined ADRAckLimitExponent/,
  ],
  [
    'mac_settings.desired_adr_ack_delay_exponent undefined name',
    'mac_settings.desired_adr_ack_delay_exponent',
    'ADR_ACK_DELAY_3',
    'desired_adr_ack_delay_exponent',
    /defined ADRAckDelayExponent/,
  ],
  [
    'mac_settings.desired_ping_slot_data_rate_index undefined name',
    'mac_settings.desired_ping_slot_data_rate_index',
    { value: 'DR_3' },
    'desired_ping_slot_data_rate_index',
    /defined DataRateIndex/,
  ],
  ['mac_settings.desired_ping_slot_frequency 99999', 'mac_settings.desired_ping_slot_frequency', 99999, 'desired_ping_slot_frequency', /100000/],
  ['mac_settings.desired_beacon_frequency 99999', 'mac_settings.desired_beacon_frequency', 99999, 'desired_beacon_frequency', /100000/],
  // MACState.
  ['mac_state.current_parameters missing', 'mac_state.current_parameters', undefined, 'current_parameters', /required/],
  ['mac_state.desired_parameters missing', 'mac_state.desired_parameters', undefined, 'desired_parameters', /required/],
  ['pending_mac_state.current_parameters missing', 'pending_mac_state', { desired_parameters: {} }, 'current_parameters', /required/],
  ['mac_state.device_class undefined name', 'mac_state.device_class', 'CLASS_D', 'device_class', /defined Class/],
  ['mac_state.device_class undefined number', 'mac_state.device_class', 3, 'device_class', /defined Class/],
  ['mac_state.lorawan_version undefined name', 'mac_state.lorawan_version', 99, 'lorawan_version', /defined MACVersion/],
  [
    'mac_state.last_confirmed_downlink_at bad timestamp',
    'mac_state.last_confirmed_downlink_at',
    '2024-13-01T00:00:00Z',
    'last_confirmed_downlink_at',
    /timestamp/,
  ],
  ['mac_state.ping_slot_periodicity undefined number', 'mac_state.ping_slot_periodicity', 8, 'ping_slot_periodicity', /defined PingSlotPeriod/],
  ['mac_state.pending_application_downlink f_port 256', 'mac_state.pending_application_downlink.f_port', 256, 'f_port', /less than or equal to 255/],
  ['mac_state.queued_responses cid undefined name', 'mac_state.queued_responses', [{ cid: 'CID_UNKNOWN' }], 'cid', /defined MACCommandIdentifier/],
  ['mac_state.pending_requests cid CID_RFU_0', 'mac_state.pending_requests', [{ cid: 0 }], 'cid', /CID_RFU_0/],
  ['mac_state.pending_requests cid missing', 'mac_state.pending_requests', [{ raw_payload: 'AQ==' }], 'cid', /required/],
  ['mac_state.queued_join_accept.request missing', 'mac_state.queued_join_accept.request', undefined, 'request', /required/],
  ['mac_state.queued_join_accept.keys missing', 'mac_state.queued_join_accept.keys', undefined, 'keys', /required/],
  ['mac_state.queued_join_accept payload too short', 'mac_state.queued_join_accept.payload', 'AQID', 'payload', /at least 17 bytes/],
  ['mac_state.queued_join_accept dev_addr wrong length', 'mac_state.queued_join_accept.dev_addr', '26', 'dev_addr', /length/],
  ['mac_state.pending_join_request.downlink_settings missing', 'mac_state.pending_join_request', {}, 'downlink_settings', /required/],
  ['mac_state.pending_join_request rx_delay undefined', 'mac_state.pending_join_request.rx_delay', 16, 'rx_delay', /defined RxDelay/],
  [
    'mac_state.pending_join_request selected_mac_version undefined',
    'mac_state.pending_join_request.selected_mac_version',
    'MAC_V2',
    'selected_mac_version',
    /defined MACVersion/,
  ],
  ['mac_state.pending_join_request dev_addr wrong length', 'mac_state.pending_join_request.dev_addr', '2601123456', 'dev_addr', /length/],
  [
    'mac_state.pending_join_request rx1_dr_offset 8',
    'mac_state.pending_join_request.downlink_settings.rx1_dr_offset',
    8,
    'rx1_dr_offset',
    /defined DataRateOffset/,
  ],
  ['mac_state.pending_join_request cf_list type undefined', 'mac_state.pending_join_request.cf_list', { type: 'CHANNELS' }, 'type', /defined CFListType/],
  ['mac_state.rx_windows_available not a bool', 'mac_state.rx_windows_available', 'yes', 'rx_windows_available', /boolean/],
  ['mac_state.recent_uplinks not a list', 'mac_state.recent_uplinks', {}, 'recent_uplinks', /list/],
  ['mac_state.recent_downlinks item bad raw_payload', 'mac_state.recent_downlinks', [{ raw_payload: '%%' }], 'raw_payload', /base64/],
  [
    'mac_state.rejected_adr_data_rate_indexes undefined name',
    'mac_state.rejected_adr_data_rate_indexes',
    ['DATA_RATE_16'],
    'rejected_adr_data_rate_indexes',
    /defined DataRateIndex/,
  ],
  [
    'mac_state.rejected_adr_data_rate_indexes undefined number',
    'mac_state.rejected_adr_data_rate_indexes',
    [0, 16],
    'rejected_adr_data_rate_indexes',
    /defined DataRateIndex/,
  ],
  [
    'mac_state.rejected_adr_tx_power_indexes item 16',
    'mac_state.rejected_adr_tx_power_indexes',
    [1, 16],
    'rejected_adr_tx_power_indexes',
    /less than or equal to 15/,
  ],
  [
    'mac_state.rejected_adr_data_rate_indexes more than 15 (TTS)',
    'mac_state.rejected_adr_data_rate_indexes',
    Array(16).fill(0),
    'rejected_adr_data_rate_indexes',
    /no more than 15 item/,
  ],
  [
    'mac_state.rejected_adr_tx_power_indexes more than 15 (TTS)',
    'mac_state.rejected_adr_tx_power_indexes',
    Array(16).fill(1),
    'rejected_adr_tx_power_indexes',
    /no more than 15 item/,
  ],
  [
    'mac_state.rejected_frequencies item 99999',
    'mac_state.rejected_frequencies',
    [868100000, 99999],
    'rejected_frequencies',
    /greater than or equal to 100000/,
  ],
  ['mac_state.last_downlink_at bad timestamp', 'mac_state.last_downlink_at', 12, 'last_downlink_at', /timestamp/],
  // MACParameters.
  ['max_eirp not a number', 'mac_state.current_parameters.max_eirp', 'x', 'max_eirp', /number/],
  ['adr_data_rate_index undefined', 'mac_state.current_parameters.adr_data_rate_index', 16, 'adr_data_rate_index', /defined DataRateIndex/],
  ['adr_tx_power_index 16', 'mac_state.current_parameters.adr_tx_power_index', 16, 'adr_tx_power_index', /less than or equal to 15/],
  ['adr_nb_trans 16', 'mac_state.desired_parameters.adr_nb_trans', 16, 'adr_nb_trans', /less than or equal to 15/],
  ['adr_ack_limit negative', 'mac_state.current_parameters.adr_ack_limit', -1, 'adr_ack_limit', /uint32/],
  ['adr_ack_delay not an integer', 'mac_state.current_parameters.adr_ack_delay', 1.5, 'adr_ack_delay', /uint32/],
  ['MACParameters.rx1_delay undefined', 'mac_state.current_parameters.rx1_delay', 'RX_DELAY_16', 'rx1_delay', /defined RxDelay/],
  ['MACParameters.rx1_delay undefined number', 'mac_state.desired_parameters.rx1_delay', 16, 'rx1_delay', /defined RxDelay/],
  ['MACParameters.rx1_data_rate_offset 8', 'mac_state.current_parameters.rx1_data_rate_offset', 8, 'rx1_data_rate_offset', /less than or equal to 7/],
  [
    'MACParameters.rx2_data_rate_index undefined',
    'mac_state.current_parameters.rx2_data_rate_index',
    'DATA_RATE_X',
    'rx2_data_rate_index',
    /defined DataRateIndex/,
  ],
  ['MACParameters.rx2_frequency 99999', 'mac_state.current_parameters.rx2_frequency', 99999, 'rx2_frequency', /greater than or equal to 100000/],
  ['MACParameters.max_duty_cycle undefined', 'mac_state.current_parameters.max_duty_cycle', 16, 'max_duty_cycle', /defined AggregatedDutyCycle/],
  [
    'rejoin_time_periodicity undefined',
    'mac_state.current_parameters.rejoin_time_periodicity',
    'REJOIN_TIME_16',
    'rejoin_time_periodicity',
    /defined RejoinTimeExponent/,
  ],
  [
    'rejoin_count_periodicity undefined',
    'mac_state.current_parameters.rejoin_count_periodicity',
    'REJOIN_COUNT_8',
    'rejoin_count_periodicity',
    /defined RejoinCountExponent/,
  ],
  [
    'MACParameters.ping_slot_frequency 99999',
    'mac_state.current_parameters.ping_slot_frequency',
    99999,
    'ping_slot_frequency',
    /greater than or equal to 100000/,
  ],
  [
    'MACParameters.ping_slot_data_rate_index undefined',
    'mac_state.current_parameters.ping_slot_data_rate_index',
    -1,
    'ping_slot_data_rate_index',
    /defined DataRateIndex/,
  ],
  ['MACParameters.beacon_frequency 99999', 'mac_state.current_parameters.beacon_frequency', 99999, 'beacon_frequency', /greater than or equal to 100000/],
  ['channels empty', 'mac_state.current_parameters.channels', [], 'channels', /at least 1/],
  ['channels not a list', 'mac_state.current_parameters.channels', {}, 'channels', /list/],
  ['channel uplink_frequency 99999', 'mac_state.current_parameters.channels.0.uplink_frequency', 99999, 'uplink_frequency', /greater than or equal to 100000/],
  [
    'channel downlink_frequency 99999',
    'mac_state.desired_parameters.channels.1.downlink_frequency',
    '99999',
    'downlink_frequency',
    /greater than or equal to 100000/,
  ],
  ['channel min_data_rate_index undefined', 'mac_state.current_parameters.channels.0.min_data_rate_index', 16, 'min_data_rate_index', /defined DataRateIndex/],
  [
    'channel max_data_rate_index undefined',
    'mac_state.current_parameters.channels.0.max_data_rate_index',
    'DATA_RATE_16',
    'max_data_rate_index',
    /defined DataRateIndex/,
  ],
  ['channel enable_uplink not a bool', 'mac_state.current_parameters.channels.0.enable_uplink', 'on', 'enable_uplink', /boolean/],
  ['uplink_dwell_time not a bool', 'mac_state.current_parameters.uplink_dwell_time', 1, 'uplink_dwell_time', /boolean/],
  ['downlink_dwell_time not a bool', 'mac_state.current_parameters.downlink_dwell_time', 0, 'downlink_dwell_time', /boolean/],
  [
    'adr_ack_limit_exponent undefined',
    'mac_state.current_parameters.adr_ack_limit_exponent',
    { value: 16 },
    'adr_ack_limit_exponent',
    /defined ADRAckLimitExponent/,
  ],
  ['adr_ack_delay_exponent undefined', 'mac_state.current_parameters.adr_ack_delay_exponent', 16, 'adr_ack_delay_exponent', /defined ADRAckDelayExponent/],
  [
    'ping_slot_data_rate_index_value undefined',
    'mac_state.current_parameters.ping_slot_data_rate_index_value',
    { value: 'DATA_RATE_16' },
    'ping_slot_data_rate_index_value',
    /defined DataRateIndex/,
  ],
  // Session and SessionKeys.
  ['session.keys missing', 'session.keys', undefined, 'keys', /required/],
  ['pending_session.keys missing', 'pending_session', { dev_addr: '26011234' }, 'keys', /required/],
  ['pending_session.dev_addr wrong length', 'pending_session', { dev_addr: '2601', keys: {} }, 'dev_addr', /length/],
  ['session.dev_addr wrong length', 'session.dev_addr', '2601123', 'dev_addr', /length/],
  ['session.last_f_cnt_up negative', 'session.last_f_cnt_up', -1, 'last_f_cnt_up', /uint32/],
  ['session.last_n_f_cnt_down too large', 'session.last_n_f_cnt_down', 2 ** 32, 'last_n_f_cnt_down', /uint32/],
  ['session.last_a_f_cnt_down not an integer', 'session.last_a_f_cnt_down', 'x', 'last_a_f_cnt_down', /uint32/],
  ['session.last_conf_f_cnt_down negative', 'session.last_conf_f_cnt_down', -2, 'last_conf_f_cnt_down', /uint32/],
  ['session.started_at bad timestamp', 'session.started_at', '2024-05-01', 'started_at', /timestamp/],
  ['session_key_id longer than 2048 bytes', 'session.keys.session_key_id', Buffer.alloc(2049).toString('base64'), 'session_key_id', /at most 2048 bytes/],
  ['f_nwk_s_int_key wrong length', 'session.keys.f_nwk_s_int_key.key', '00', 'key', /length/],
  ['s_nwk_s_int_key wrong length', 'session.keys.s_nwk_s_int_key.key', KEY.slice(1), 'key', /length/],
  ['s_nwk_s_int_key kek_label longer than 2048', 'session.keys.s_nwk_s_int_key', { kek_label: 'k'.repeat(2049) }, 'kek_label', /at most 2048/],
  ['nwk_s_enc_key wrong length', 'session.keys.nwk_s_enc_key', { key: KEY + '00' }, 'key', /length/],
  ['app_s_key not a string', 'session.keys.app_s_key', { key: 1 }, 'key', /string/],
  ['app_s_key wrong length', 'session.keys.app_s_key.key', Buffer.alloc(15).toString('base64'), 'key', /length/],
  ['pending_session app_s_key wrong length', 'pending_session.keys.app_s_key.key', '0011', 'key', /length/],
  // ApplicationDownlink (session queue and the deprecated top-level queue).
  ['queued downlink f_port 256', 'session.queued_application_downlinks.0.f_port', 256, 'f_port', /less than or equal to 255/],
  ['queued downlink priority undefined', 'session.queued_application_downlinks.0.priority', 'URGENT', 'priority', /defined TxSchedulePriority/],
  ['queued downlink frm_payload not base64', 'queued_application_downlinks.0.frm_payload', 'not base64!', 'frm_payload', /base64/],
  [
    'queued downlink 101 correlation IDs',
    'queued_application_downlinks.0.correlation_ids',
    Array.from({ length: 101 }, (_, i) => `c:${i}`),
    'correlation_ids',
    /no more than 100/,
  ],
  ['queued downlink correlation ID not a string', 'queued_application_downlinks.0.correlation_ids', [1], 'correlation_ids', /string/],
  ['queued downlink decoded_payload not an object', 'queued_application_downlinks.0.decoded_payload', [1, 2], 'decoded_payload', /object/],
  ['queued downlink class B/C gateway without ids', 'queued_application_downlinks.0.class_b_c.gateways', [{ antenna_index: 0 }], 'gateway_ids', /required/],
  [
    'queued downlink class B/C gateway EUI wrong length',
    'queued_application_downlinks.0.class_b_c.gateways',
    [{ gateway_ids: { gateway_id: 'gw-1', eui: '0011' } }],
    'eui',
    /length/,
  ],
  ['queued downlink confirmed not a bool', 'queued_application_downlinks.0.confirmed', 'yes', 'confirmed', /boolean/],
  // MessagePayloadFormatters.
  ['up_formatter undefined name', 'formatters.up_formatter', 'FORMATTER_LUA', 'up_formatter', /defined PayloadFormatter/],
  ['down_formatter undefined name', 'formatters.down_formatter', 9, 'down_formatter', /defined PayloadFormatter/],
  ['JavaScript up formatter without parameter', 'formatters', { up_formatter: 'FORMATTER_JAVASCRIPT' }, 'up_formatter_parameter', /set together/],
  [
    'JavaScript up formatter with empty parameter',
    'formatters',
    { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: '' },
    'up_formatter_parameter',
    /set together/,
  ],
  ['gRPC down formatter without parameter', 'formatters', { down_formatter: 'FORMATTER_GRPC_SERVICE' }, 'down_formatter_parameter', /set together/],
  ['up parameter without formatter', 'formatters', { up_formatter_parameter: 'function decodeUplink() {}' }, 'up_formatter', /set together/],
  ['down parameter without formatter', 'formatters', { down_formatter_parameter: 'function encodeDownlink() {}' }, 'down_formatter', /set together/],
  ['up parameter longer than 40960 bytes', 'formatters.up_formatter_parameter', 'é'.repeat(20481), 'up_formatter_parameter', /at most 40960 bytes/],
  ['down parameter not a string', 'formatters', { down_formatter: 'FORMATTER_JAVASCRIPT', down_formatter_parameter: 42 }, 'down_formatter_parameter', /string/],
];

describe('EndDevice contract: each constraint rejects', () => {
  it.each(cases)('%s', (_, path, value, field, reason) => {
    const device = withValue(otaaDevice(), 'session', { keys: { session_key_id: 'AQID' }, queued_application_downlinks: [appDownlink()] });
    withValue(device, 'queued_application_downlinks', [appDownlink()]);
    const err = leaf(() => decode(withValue(device, path, value)));
    expect(err.field).toBe(field);
    expect(String(err.reason)).toMatch(reason);
  });

  it('rejects a body without end_device', () => {
    expect(leaf(() => decodeMessage(SetEndDeviceRequest, {})).field).toBe('end_device');
  });

  it('names the path down to the leaf in the cause chain', () => {
    const err = leaf(() => decode(withValue(otaaDevice(), 'mac_state.current_parameters.channels.0.uplink_frequency', 99999)));
    expect(err.path).toEqual(['end_device', 'mac_state', 'current_parameters', 'channels[0]', 'uplink_frequency']);
  });
});

/**
 * Every constraint of the seed's EndDevice tables, nested type tables and "Limits" section, as
 * [leaf path (regular expression; MACParameters under either parameter set), fragment of the rule's
 * reason]. Each must have a failing case in `cases` above, so a rule cannot lose its test silently.
 */
const PARAMS = 'mac_state\\.(current|desired)_parameters';
const SEED_RULES: [string, string][] = [
  ['ids', 'required'],
  ['ids\\.device_id', 'regex'],
  ['ids\\.device_id', 'at most 36'],
  ['ids\\.application_ids', 'required'],
  ['ids\\.(dev_eui|join_eui|dev_addr)', 'length'],
  ['name', 'at most 50'],
  ['description', 'at most 2000'],
  ['version_ids\\.brand_id', 'regex'],
  ['version_ids\\.brand_id', 'at most 36'],
  ['version_ids\\.model_id', 'regex'],
  ['version_ids\\.model_id', 'at most 36'],
  ['service_profile_id', 'at most 64'],
  ['network_server_address', 'regex'],
  ['application_server_address', 'regex'],
  ['join_server_address', 'regex'],
  ['network_server_kek_label', 'at most 2048'],
  ['application_server_kek_label', 'at most 2048'],
  ['application_server_id', 'at most 100'],
  ['provisioner_id', 'regex'],
  ['provisioner_id', 'at most 36'],
  ['claim_authentication_code\\.value', 'regex'],
  ['root_keys\\.root_key_id', 'at most 2048'],
  ['root_keys\\.app_key\\.key', 'length'],
  ['root_keys\\.nwk_key\\.key', 'length'],
  ['(root_keys\\.(app|nwk)_key|session\\.keys\\.\\w+)\\.kek_label', 'at most 2048'],
  ['lorawan_version', 'defined'],
  ['lorawan_phy_version', 'defined'],
  ['frequency_plan_id', 'at most 64'],
  ['power_state', 'defined'],
  ['battery_percentage', 'range'],
  ['recent_adr_uplinks', 'no more than 20'],
  ['(pending_)?session\\.keys', 'required'],
  ['(pending_)?session\\.dev_addr', 'length'],
  ['session\\.keys\\.session_key_id', 'at most 2048'],
  ['session\\.keys\\.f_nwk_s_int_key\\.key', 'length'],
  ['session\\.keys\\.s_nwk_s_int_key\\.key', 'length'],
  ['session\\.keys\\.nwk_s_enc_key\\.key', 'length'],
  ['session\\.keys\\.app_s_key\\.key', 'length'],
  ['formatters\\.up_formatter', 'defined'],
  ['formatters\\.down_formatter', 'defined'],
  ['formatters\\.up_formatter', 'set together'],
  ['formatters\\.up_formatter_parameter', 'set together'],
  ['formatters\\.down_formatter', 'set together'],
  ['formatters\\.down_formatter_parameter', 'set together'],
  ...['ping_slot_frequency', 'beacon_frequency', 'rx2_frequency', 'desired_rx2_frequency', 'desired_ping_slot_frequency', 'desired_beacon_frequency'].map(
    (f): [string, string] => [`mac_settings\\.${f}`, '100000'],
  ),
  ['mac_settings\\.rx1_data_rate_offset', 'less than or equal to 7'],
  ['mac_settings\\.desired_rx1_data_rate_offset', 'less than or equal to 7'],
  ['mac_state\\.current_parameters', 'required'],
  ['mac_state\\.desired_parameters', 'required'],
  ['mac_state\\.device_class', 'defined'],
  ['mac_state\\.lorawan_version', 'defined'],
  ['mac_state\\.rejected_adr_data_rate_indexes', 'defined'],
  ['mac_state\\.rejected_adr_tx_power_indexes', 'less than or equal to 15'],
  ['mac_state\\.rejected_frequencies', '100000'],
  ...['adr_data_rate_index', 'rx1_delay', 'rx2_data_rate_index', 'max_duty_cycle', 'rejoin_time_periodicity', 'rejoin_count_periodicity'].map(
    (f): [string, string] => [`${PARAMS}\\.${f}`, 'defined'],
  ),
  [`${PARAMS}\\.adr_tx_power_index`, 'less than or equal to 15'],
  [`${PARAMS}\\.adr_nb_trans`, 'less than or equal to 15'],
  [`${PARAMS}\\.rx1_data_rate_offset`, 'less than or equal to 7'],
  ...['rx2_frequency', 'ping_slot_frequency', 'beacon_frequency', 'channels\\.uplink_frequency', 'channels\\.downlink_frequency'].map((f): [string, string] => [
    `${PARAMS}\\.${f}`,
    '100000',
  ]),
  [`${PARAMS}\\.channels`, 'at least 1'],
];

/** The path of a case's offending leaf, list indexes dropped (`…channels.0.uplink_frequency` → `…channels.uplink_frequency`). */
function leafPath([, path, , field]: Case): string {
  const full = path.split('.').pop() === field ? path : `${path}.${field}`;
  return full.replace(/\.\d+(?=\.|$)/g, '');
}

describe('EndDevice contract: the constraint table is complete', () => {
  it.each(SEED_RULES)('has a failing case for %s (%s)', (path, rule) => {
    const pattern = new RegExp(`^${path}$`);
    expect(cases.filter((c) => pattern.test(leafPath(c)) && c[4].source.includes(rule)).map((c) => c[0])).not.toEqual([]);
  });
});
