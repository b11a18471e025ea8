import {
  ADRAckDelayExponent,
  ADRAckLimitExponent,
  AggregatedDutyCycle,
  Class,
  DeviceEIRP,
  MACCommandIdentifier,
  Minor,
  PingSlotPeriod,
  type ProtoEnum,
  RejoinCountExponent,
  RejoinPeriodExponent,
  RejoinRequestType,
  RejoinTimeExponent,
} from '@lorawan/api';

/**
 * LoRaWAN MAC commands (LoRaWAN 1.0.4 §5 and 1.1 §5, Class B §13) in FOpts or an FPort 0
 * FRMPayload, as TTS's `MACCommand` JSON: `{ cid: 'CID_LINK_ADR', link_adr_req: { … } }`.
 * The same CID means a different command in each direction (LinkADRReq down, LinkADRAns up);
 * `direction` is who sent the bytes: `uplink` (the device) or `downlink` (the network).
 */
export type MacDirection = 'uplink' | 'downlink';

export interface MacCommandJson {
  cid: string;
  [payload: string]: unknown;
}

/**
 * What a MAC command list held: the commands read, and where reading stopped when it met a CID it
 * does not know (proprietary, RFU, or a command not sent in this direction) or a command cut short.
 * The specification leaves the rest of the list unprocessed then (its length is unknown).
 */
export interface ParsedMacCommands {
  commands: MacCommandJson[];
  stopped?: { offset: number; cid: number; reason: 'unknown' | 'truncated' };
}

/** A MAC command's payload as the codec reads and writes it (`{ delay: 1 }` of `rx_timing_setup_req`): the wire's fields, by their TTS JSON names. */
export type MacCommandFields = Record<string, unknown>;
type Fields = MacCommandFields;

interface Format {
  /** The JSON field that holds the payload (`link_adr_req`). */
  field: string;
  length: number;
  decode(b: Buffer): Fields;
  encode(f: Fields): Buffer;
}

const GPS_EPOCH_MS = Date.UTC(1980, 0, 6);
/** GPS − UTC in seconds since 2017-01-01 (no leap second announced since). */
const GPS_LEAP_SECONDS = 18;

const num = (f: Fields, key: string, max: number, min = 0): number => {
  const v = Number(f[key] ?? 0);
  if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(`MAC command field \`${key}\` must be an integer in [${min}, ${max}]`);
  return v;
};
const named = (e: ProtoEnum, f: Fields, key: string): number => {
  const value = f[key];
  const name = value === undefined ? e.nameOf(0) : e.parse(value);
  if (name === undefined) throw new RangeError(`MAC command field \`${key}\` is no ${e.typeName}`);
  return e.values[name];
};
const nameOf = (e: ProtoEnum, n: number): unknown => {
  const name = e.nameOf(n);
  return name === undefined ? n : e.canonical(name);
};
/** A frequency in Hz from 3 bytes of 100 Hz steps (little endian). */
const freq = (b: Buffer, at: number) => b.readUIntLE(at, 3) * 100;
const freqBytes = (f: Fields, key: string) => {
  const hz = num(f, key, 0xffffff * 100);
  if (hz % 100 !== 0) throw new RangeError(`MAC command field \`${key}\` must be a multiple of 100 Hz`);
  const b = Buffer.alloc(3);
  b.writeUIntLE(hz / 100, 0, 3);
  return b;
};
const acks = (...names: string[]) => ({
  decode: (b: Buffer) => Object.fromEntries(names.map((n, i) => [n, (b[0] & (1 << i)) !== 0])),
  encode: (f: Fields) => Buffer.from([names.reduce((v, n, i) => v | (f[n] ? 1 << i : 0), 0)]),
});
const empty = (field: string): Format => ({ field, length: 0, decode: () => ({}), encode: () => Buffer.alloc(0) });
const minor = (field: string): Format => ({
  field,
  length: 1,
  decode: (b) => ({ minor_version: nameOf(Minor, b[0] & 0x0f) }),
  encode: (f) => Buffer.from([named(Minor, f, 'minor_version')]),
});
const deviceClass = (field: string): Format => ({
  field,
  length: 1,
  decode: (b) => ({ class: nameOf(Class, b[0]) }),
  encode: (f) => Buffer.from([named(Class, f, 'class')]),
});

/** Commands the device sends. */
const UPLINK: Record<number, Format> = {
  0x01: minor('reset_ind'),
  0x02: empty('link_check_req'),
  0x03: { field: 'link_adr_ans', length: 1, ...acks('channel_mask_ack', 'data_rate_index_ack', 'tx_power_index_ack') },
  0x04: empty('duty_cycle_ans'),
  0x05: { field: 'rx_param_setup_ans', length: 1, ...acks('rx2_frequency_ack', 'rx2_data_rate_index_ack', 'rx1_data_rate_offset_ack') },
  0x06: {
    field: 'dev_status_ans',
    length: 2,
    // Margin: a signed 6-bit integer (−32…31 dB).
    decode: (b) => ({ battery: b[0], margin: ((b[1] & 0x3f) << 26) >> 26 }),
    encode: (f) => Buffer.from([num(f, 'battery', 255), num(f, 'margin', 31, -32) & 0x3f]),
  },
  0x07: { field: 'new_channel_ans', length: 1, ...acks('frequency_ack', 'data_rate_ack') },
  0x08: empty('rx_timing_setup_ans'),
  0x09: empty('tx_param_setup_ans'),
  0x0a: { field: 'dl_channel_ans', length: 1, ...acks('frequency_ack', 'channel_index_ack') },
  0x0b: minor('rekey_ind'),
  0x0c: empty('adr_param_setup_ans'),
  0x0d: empty('device_time_req'),
  0x0f: { field: 'rejoin_param_setup_ans', length: 1, ...acks('max_time_exponent_ack') },
  0x10: {
    field: 'ping_slot_info_req',
    length: 1,
    decode: (b) => ({ period: nameOf(PingSlotPeriod, b[0] & 0x07) }),
    encode: (f) => Buffer.from([named(PingSlotPeriod, f, 'period')]),
  },
  0x11: { field: 'ping_slot_channel_ans', length: 1, ...acks('frequency_ack', 'data_rate_index_ack') },
  0x12: empty('beacon_timing_req'),
  0x13: { field: 'beacon_freq_ans', length: 1, ...acks('frequency_ack') },
  0x20: deviceClass('device_mode_ind'),
};

/** Commands the network sends. */
const DOWNLINK: Record<number, Format> = {
  0x01: minor('reset_conf'),
  0x02: {
    field: 'link_check_ans',
    length: 2,
    decode: (b) => ({ margin: b[0], gateway_count: b[1] }),
    encode: (f) => Buffer.from([num(f, 'margin', 254), num(f, 'gateway_count', 255)]),
  },
  0x03: {
    field: 'link_adr_req',
    length: 4,
    decode: (b) => {
      const mask = b.readUInt16LE(1);
      return {
        data_rate_index: b[0] >> 4,
        tx_power_index: b[0] & 0x0f,
        channel_mask: Array.from({ length: 16 }, (_, i) => (mask & (1 << i)) !== 0),
        channel_mask_control: (b[3] >> 4) & 0x07,
        nb_trans: b[3] & 0x0f,
      };
    },
    encode: (f) => {
      const mask = ((f.channel_mask as unknown[] | undefined) ?? []).slice(0, 16).reduce<number>((m, on, i) => (on ? m | (1 << i) : m), 0);
      const b = Buffer.alloc(4);
      b[0] = (num(f, 'data_rate_index', 15) << 4) | num(f, 'tx_power_index', 15);
      b.writeUInt16LE(mask, 1);
      b[3] = (num(f, 'channel_mask_control', 7) << 4) | num(f, 'nb_trans', 15);
      return b;
    },
  },
  0x04: {
    field: 'duty_cycle_req',
    length: 1,
    decode: (b) => ({ max_duty_cycle: nameOf(AggregatedDutyCycle, b[0] & 0x0f) }),
    encode: (f) => Buffer.from([named(AggregatedDutyCycle, f, 'max_duty_cycle')]),
  },
  0x05: {
    field: 'rx_param_setup_req',
    length: 4,
    decode: (b) => ({ rx1_data_rate_offset: (b[0] >> 4) & 0x07, rx2_data_rate_index: b[0] & 0x0f, rx2_frequency: freq(b, 1) }),
    encode: (f) => Buffer.concat([Buffer.from([(num(f, 'rx1_data_rate_offset', 7) << 4) | num(f, 'rx2_data_rate_index', 15)]), freqBytes(f, 'rx2_frequency')]),
  },
  0x06: empty('dev_status_req'),
  0x07: {
    field: 'new_channel_req',
    length: 5,
    decode: (b) => ({ channel_index: b[0], frequency: freq(b, 1), max_data_rate_index: b[4] >> 4, min_data_rate_index: b[4] & 0x0f }),
    encode: (f) =>
      Buffer.concat([
        Buffer.from([num(f, 'channel_index', 255)]),
        freqBytes(f, 'frequency'),
        Buffer.from([(num(f, 'max_data_rate_index', 15) << 4) | num(f, 'min_data_rate_index', 15)]),
      ]),
  },
  0x08: {
    field: 'rx_timing_setup_req',
    length: 1,
    decode: (b) => ({ delay: b[0] & 0x0f }),
    encode: (f) => Buffer.from([num(f, 'delay', 15)]),
  },
  0x09: {
    field: 'tx_param_setup_req',
    length: 1,
    decode: (b) => ({ max_eirp_index: nameOf(DeviceEIRP, b[0] & 0x0f), uplink_dwell_time: (b[0] & 0x10) !== 0, downlink_dwell_time: (b[0] & 0x20) !== 0 }),
    encode: (f) => Buffer.from([(f.downlink_dwell_time ? 0x20 : 0) | (f.uplink_dwell_time ? 0x10 : 0) | named(DeviceEIRP, f, 'max_eirp_index')]),
  },
  0x0a: {
    field: 'dl_channel_req',
    length: 4,
    decode: (b) => ({ channel_index: b[0], frequency: freq(b, 1) }),
    encode: (f) => Buffer.concat([Buffer.from([num(f, 'channel_index', 255)]), freqBytes(f, 'frequency')]),
  },
  0x0b: minor('rekey_conf'),
  0x0c: {
    field: 'adr_param_setup_req',
    length: 1,
    decode: (b) => ({ adr_ack_limit_exponent: nameOf(ADRAckLimitExponent, b[0] >> 4), adr_ack_delay_exponent: nameOf(ADRAckDelayExponent, b[0] & 0x0f) }),
    encode: (f) => Buffer.from([(named(ADRAckLimitExponent, f, 'adr_ack_limit_exponent') << 4) | named(ADRAckDelayExponent, f, 'adr_ack_delay_exponent')]),
  },
  0x0d: {
    field: 'device_time_ans',
    length: 5,
    // Seconds since the GPS epoch and 1/256 s steps.
    decode: (b) => ({ time: gpsToUtc(b.readUInt32LE(0) + b[4] / 256).toISOString() }),
    encode: (f) => {
      const gps = utcToGps(new Date(String(f.time)));
      if (!Number.isFinite(gps) || gps < 0) throw new RangeError('MAC command field `time` must be a time after the GPS epoch');
      const b = Buffer.alloc(5);
      const seconds = Math.floor(gps);
      b.writeUInt32LE(seconds >>> 0, 0);
      b[4] = Math.min(255, Math.round((gps - seconds) * 256));
      return b;
    },
  },
  0x0e: {
    field: 'force_rejoin_req',
    length: 2,
    decode: (b) => {
      const v = b.readUInt16LE(0);
      return {
        period_exponent: nameOf(RejoinPeriodExponent, (v >> 11) & 0x07),
        max_retries: (v >> 8) & 0x07,
        rejoin_type: nameOf(RejoinRequestType, (v >> 4) & 0x07),
        data_rate_index: v & 0x0f,
      };
    },
    encode: (f) => {
      const b = Buffer.alloc(2);
      const v =
        (named(RejoinPeriodExponent, f, 'period_exponent') << 11) |
        (num(f, 'max_retries', 7) << 8) |
        (named(RejoinRequestType, f, 'rejoin_type') << 4) |
        num(f, 'data_rate_index', 15);
      b.writeUInt16LE(v, 0);
      return b;
    },
  },
  0x0f: {
    field: 'rejoin_param_setup_req',
    length: 1,
    decode: (b) => ({ max_time_exponent: nameOf(RejoinTimeExponent, b[0] >> 4), max_count_exponent: nameOf(RejoinCountExponent, b[0] & 0x0f) }),
    encode: (f) => Buffer.from([(named(RejoinTimeExponent, f, 'max_time_exponent') << 4) | named(RejoinCountExponent, f, 'max_count_exponent')]),
  },
  0x10: empty('ping_slot_info_ans'),
  0x11: {
    field: 'ping_slot_channel_req',
    length: 4,
    decode: (b) => ({ frequency: freq(b, 0), data_rate_index: b[3] & 0x0f }),
    encode: (f) => Buffer.concat([freqBytes(f, 'frequency'), Buffer.from([num(f, 'data_rate_index', 15)])]),
  },
  0x12: {
    field: 'beacon_timing_ans',
    length: 3,
    decode: (b) => ({ delay: b.readUInt16LE(0), channel_index: b[2] }),
    encode: (f) => {
      const b = Buffer.alloc(3);
      b.writeUInt16LE(num(f, 'delay', 0xffff), 0);
      b[2] = num(f, 'channel_index', 255);
      return b;
    },
  },
  0x13: {
    field: 'beacon_freq_req',
    length: 3,
    decode: (b) => ({ frequency: freq(b, 0) }),
    encode: (f) => freqBytes(f, 'frequency'),
  },
  0x20: deviceClass('device_mode_conf'),
};

const TABLES: Record<MacDirection, Record<number, Format>> = { uplink: UPLINK, downlink: DOWNLINK };

/** GPS seconds (with fraction) of a UTC time (GPS runs ahead of UTC by the leap seconds since 1980). */
export function utcToGps(time: Date): number {
  return (time.getTime() - GPS_EPOCH_MS) / 1000 + GPS_LEAP_SECONDS;
}

export function gpsToUtc(gpsSeconds: number): Date {
  return new Date(GPS_EPOCH_MS + Math.round((gpsSeconds - GPS_LEAP_SECONDS) * 1000));
}

/**
 * GPS milliseconds since the GPS epoch of a UTC time, whole ms: what a Semtech packet forwarder
 * carries as `tmms` and class B schedules by (LoRaWAN 1.0.4 §13, TTS `pkg/gpstime` ToGPS). The
 * offset is today's 18 leap seconds, so times before 2017 come out up to 18 s off.
 */
export function utcToGpsMs(time: Date): number {
  return time.getTime() - GPS_EPOCH_MS + GPS_LEAP_SECONDS * 1000;
}

/** The UTC time of GPS milliseconds since the GPS epoch (TTS `gpstime.Parse`): GPS runs ahead, so the leap seconds come off. */
export function gpsMsToUtc(gpsMs: number): Date {
  return new Date(GPS_EPOCH_MS + gpsMs - GPS_LEAP_SECONDS * 1000);
}

/** The MAC commands of FOpts or of an FPort 0 FRMPayload (already decrypted), sent in `direction`. */
export function parseMacCommands(bytes: Buffer, direction: MacDirection): ParsedMacCommands {
  const table = TABLES[direction];
  const commands: MacCommandJson[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const cid = bytes[offset];
    const format = table[cid];
    if (!format) return { commands, stopped: { offset, cid, reason: 'unknown' } };
    const end = offset + 1 + format.length;
    if (end > bytes.length) return { commands, stopped: { offset, cid, reason: 'truncated' } };
    commands.push({ cid: MACCommandIdentifier.nameOf(cid) as string, [format.field]: format.decode(bytes.subarray(offset + 1, end)) });
    offset = end;
  }
  return { commands };
}

/** The bytes of MAC commands sent in `direction`; throws a RangeError on a command or a value that has none. */
export function encodeMacCommands(commands: readonly MacCommandJson[], direction: MacDirection): Buffer {
  const table = TABLES[direction];
  return Buffer.concat(
    commands.map((command) => {
      const cid = MACCommandIdentifier.parse(command.cid);
      const format = cid === undefined ? undefined : table[MACCommandIdentifier.values[cid]];
      if (!format || cid === undefined) throw new RangeError(`no ${direction} MAC command ${String(command.cid)}`);
      const payload = format.encode((command[format.field] as Fields | undefined) ?? {});
      return Buffer.concat([Buffer.from([MACCommandIdentifier.values[cid]]), payload]);
    }),
  );
}

/** The payload length of a MAC command sent in `direction` (CID excluded), or undefined for one that does not exist. */
export function macCommandLength(cid: number, direction: MacDirection): number | undefined {
  return TABLES[direction][cid]?.length;
}
