import type { GatewayStatusJson } from '../messages';
import { readEui } from '@lorawan/lorawan';
import { type FieldReader, InvalidField, parseStationJson, readFields, type Refused, withoutUndefined } from './json';

/**
 * What a LoRa Basics Station sends on its data connection (`tcproto` "Upstream messages"; station
 * `s2e.c`, `lora.c`; TTS `lbslns/upstream.go`), each field checked for type and range: `version`
 * first, then `jreq`, `updf`, `propdf` (received frames, split into their LoRaWAN fields), `dntxed`
 * (a downlink went out) and `timesync` (a time request). Anything else, or anything malformed, is
 * `Refused` with the reason: a gateway's bad message is dropped and counted, never thrown.
 */

/** Where and how a frame was received (`upinfo`). */
export interface UpInfo {
  /** Radio context: the receiving radio unit, handed back in a class A `dnmsg`. */
  rctx: number;
  /** Concentrator time of reception: session and radio unit in the top 16 bits, microseconds below. Never 0. */
  xtime: bigint;
  /** GPS time of reception (µs since 1980-01-06), 0 when the gateway has no GPS time. */
  gpstime: bigint;
  /** Fine timestamp (ns within the second), when the concentrator gives one. */
  fts?: number;
  rssi: number;
  snr: number;
  /** The gateway's UTC time of reception (Unix seconds with fraction), when it has one. */
  rxtime?: number;
}

/** The radio fields every received frame carries. */
export interface RadioMetadata {
  /** Data rate index of the region (router_config's `DRs`). */
  dataRate: number;
  /** Hz. */
  frequency: number;
  upInfo: UpInfo;
  /** `RefTime`: the last `MuxTime` plus the time since, for round-trip times (Unix seconds); absent when 0. */
  refTime?: number;
}

export interface VersionMessage {
  type: 'version';
  station: string;
  firmware?: string;
  package?: string;
  model?: string;
  protocol: number;
  /** `features`, split at spaces (`rmtsh`, `gps`, `prod`, …). */
  features: string[];
}

export interface JoinRequestMessage extends RadioMetadata {
  type: 'jreq';
  mhdr: number;
  joinEui: string;
  devEui: string;
  devNonce: number;
  /** The MIC as station gives it: a signed 32-bit integer of the frame's four little-endian bytes. */
  mic: number;
}

export interface UplinkDataFrameMessage extends RadioMetadata {
  type: 'updf';
  mhdr: number;
  /** Unsigned 32-bit. */
  devAddr: number;
  fCtrl: number;
  fCnt: number;
  fOpts: Buffer;
  /** -1 when the frame has no FPort. */
  fPort: number;
  frmPayload: Buffer;
  mic: number;
}

export interface ProprietaryFrameMessage extends RadioMetadata {
  type: 'propdf';
  /** The whole frame (station puts the PHYPayload in `FRMPayload`). */
  frame: Buffer;
}

export interface TxConfirmationMessage {
  type: 'dntxed';
  /** The downlink's id from `dnmsg`. */
  diid: number;
  devEui?: string;
  rctx?: number;
  xtime?: bigint;
  /** Gateway's time of transmission (station MCU seconds). */
  txtime?: number;
  /** GPS time of transmission (µs), 0 or absent without GPS. */
  gpstime?: bigint;
}

export interface TimeSyncRequestMessage {
  type: 'timesync';
  /** Station's MCU time the request left (µs), echoed in the answer. */
  txtime: number;
}

export type UpstreamMessage =
  VersionMessage | JoinRequestMessage | UplinkDataFrameMessage | ProprietaryFrameMessage | TxConfirmationMessage | TimeSyncRequestMessage;

/** Whether the station is a production build (`features` has `prod`, TTS `IsProduction`): it ignores router_config's debug switches. */
export function isProductionStation(version: VersionMessage): boolean {
  return version.features.includes('prod');
}

/**
 * The gateway status a `version` message tells (TTS `lbslns/version.go`): versions (station,
 * firmware, package, and a platform line of model, firmware and protocol) and the model and
 * features as advanced fields; no metrics.
 */
export function versionStatus(version: VersionMessage, receivedAt: string): GatewayStatusJson {
  return {
    time: receivedAt,
    versions: {
      station: version.station,
      ...(version.firmware !== undefined ? { firmware: version.firmware } : {}),
      ...(version.package !== undefined ? { package: version.package } : {}),
      platform: `${version.model ?? ''} - Firmware ${version.firmware ?? ''} - Protocol ${version.protocol}`,
    },
    advanced: withoutUndefined({ model: version.model, features: version.features.join(' ') }),
    metrics: {},
  };
}

/** The LNS protocol version this server speaks (`version.protocol`; station 2.0.x sends 2). */
export const LNS_PROTOCOL_VERSION = 2;

/** A text message larger than this is refused unread (the largest real one, a `updf` of 255 bytes, is under 1 KiB). */
export const MAX_UPSTREAM_TEXT = 16 * 1024;

const INT32_MIN = -(2 ** 31);
const UINT32_MAX = 2 ** 32 - 1;
const INT64_MAX = (1n << 63n) - 1n;
/** LoRaWAN PHYPayload limit. */
const MAX_PHY_PAYLOAD = 255;
/** MHDR with the MType bits masked: RFU and Major must be 0 (LoRaWAN R1). */
const MHDR_RFU_MAJOR = 0x1f;
const MTYPE_JOIN_REQUEST = 0;
const MTYPE_UNCONFIRMED_UP = 2;
const MTYPE_CONFIRMED_UP = 4;

/** One upstream text message, or why it is refused. */
export function parseUpstream(text: string): UpstreamMessage | Refused {
  if (text.length > MAX_UPSTREAM_TEXT) return { error: `message larger than ${MAX_UPSTREAM_TEXT} characters` };
  const parsed = parseStationJson(text);
  if ('error' in parsed) return { error: 'message is not JSON' };
  return readFields(parsed.value, 'message', (f) => {
    const msgtype = f.string('msgtype', 32);
    switch (msgtype) {
      case 'version':
        return readVersion(f);
      case 'jreq':
        return readJoinRequest(f);
      case 'updf':
        return readUplinkDataFrame(f);
      case 'propdf':
        return readProprietaryFrame(f);
      case 'dntxed':
        return readTxConfirmation(f);
      case 'timesync':
        return { type: 'timesync', txtime: f.number('txtime', 0, Number.MAX_SAFE_INTEGER) };
      default:
        throw new InvalidField(`\`msgtype\` ${JSON.stringify(msgtype)} is not one this server handles`);
    }
  });
}

function readVersion(f: FieldReader): VersionMessage {
  const features = f.optionalString('features', 1024) ?? '';
  return withoutUndefined({
    type: 'version' as const,
    station: f.string('station', 256),
    firmware: f.optionalString('firmware', 256),
    package: f.optionalString('package', 256),
    model: f.optionalString('model', 256),
    protocol: f.number('protocol', 0, 255, true),
    features: features.split(' ').filter((s) => s !== ''),
  });
}

function readRadioMetadata(f: FieldReader): RadioMetadata {
  const up = f.object('upinfo');
  const rxtime = up.optionalNumber('rxtime', 0, 1e11);
  const fts = up.optionalNumber('fts', -1, 999_999_999, true);
  const upInfo: UpInfo = withoutUndefined({
    rctx: up.number('rctx', 0, 255, true),
    xtime: up.int64('xtime', 1n, INT64_MAX),
    gpstime: up.optionalInt64('gpstime', 0n, INT64_MAX) ?? 0n,
    fts: fts === undefined || fts < 0 ? undefined : fts,
    rssi: up.number('rssi', -1000, 1000),
    snr: up.number('snr', -1000, 1000),
    rxtime: rxtime || undefined,
  });
  const refTime = f.optionalNumber('RefTime', 0, 1e11);
  return withoutUndefined({
    dataRate: f.number('DR', 0, 15, true),
    frequency: f.number('Freq', 1, 10_000_000_000, true),
    upInfo,
    refTime: refTime || undefined,
  });
}

/** A field station spells in two ways (`DevEui` or, after a router_config with `JoinEUI`, `DevEUI`). */
function eui(f: FieldReader, key: string, alternative: string): string {
  const name = f.has(key) || !f.has(alternative) ? key : alternative;
  const value = readEui(f.raw(name));
  if (value === undefined) throw new InvalidField(`\`${name}\` must be an EUI`);
  return value;
}

function mhdrOf(f: FieldReader, mtypes: number[], what: string): number {
  const mhdr = f.number('MHdr', 0, 255, true);
  if ((mhdr & MHDR_RFU_MAJOR) !== 0 || !mtypes.includes(mhdr >> 5)) throw new InvalidField(`\`MHdr\` must be ${what} of LoRaWAN R1`);
  return mhdr;
}

function readJoinRequest(f: FieldReader): JoinRequestMessage {
  return {
    type: 'jreq',
    mhdr: mhdrOf(f, [MTYPE_JOIN_REQUEST], 'a join-request'),
    joinEui: eui(f, 'JoinEui', 'JoinEUI'),
    devEui: eui(f, 'DevEui', 'DevEUI'),
    devNonce: f.number('DevNonce', 0, 0xffff, true),
    mic: f.number('MIC', INT32_MIN, UINT32_MAX, true) | 0,
    ...readRadioMetadata(f),
  };
}

function readUplinkDataFrame(f: FieldReader): UplinkDataFrameMessage {
  const mhdr = mhdrOf(f, [MTYPE_UNCONFIRMED_UP, MTYPE_CONFIRMED_UP], 'a data uplink');
  const fCtrl = f.number('FCtrl', 0, 255, true);
  const fOpts = f.hex('FOpts', 15);
  if (fOpts.length !== (fCtrl & 0x0f)) throw new InvalidField(`\`FOpts\` holds ${fOpts.length} bytes, \`FCtrl\` says ${fCtrl & 0x0f}`);
  const fPort = f.number('FPort', -1, 255, true);
  const frmPayload = f.hex('FRMPayload', MAX_PHY_PAYLOAD);
  if (fPort === -1 && frmPayload.length > 0) throw new InvalidField('`FRMPayload` must be empty without `FPort`');
  // MHDR, DevAddr, FCtrl, FCnt, FOpts, FPort, FRMPayload, MIC.
  const size = 1 + 4 + 1 + 2 + fOpts.length + (fPort === -1 ? 0 : 1) + frmPayload.length + 4;
  if (size > MAX_PHY_PAYLOAD) throw new InvalidField(`the frame would be ${size} bytes, more than ${MAX_PHY_PAYLOAD}`);
  return {
    type: 'updf',
    mhdr,
    devAddr: f.number('DevAddr', INT32_MIN, UINT32_MAX, true) >>> 0,
    fCtrl,
    fCnt: f.number(f.has('FCnt') || !f.has('Fcnt') ? 'FCnt' : 'Fcnt', 0, 0xffff, true),
    fOpts,
    fPort,
    frmPayload,
    mic: f.number('MIC', INT32_MIN, UINT32_MAX, true) | 0,
    ...readRadioMetadata(f),
  };
}

function readProprietaryFrame(f: FieldReader): ProprietaryFrameMessage {
  const frame = f.hex('FRMPayload', MAX_PHY_PAYLOAD);
  if (frame.length === 0 || frame[0] >> 5 !== 7) throw new InvalidField('`FRMPayload` must be a proprietary frame (MType 111)');
  return { type: 'propdf', frame, ...readRadioMetadata(f) };
}

function readTxConfirmation(f: FieldReader): TxConfirmationMessage {
  // Older stations name the id `seqno`, newer ones send both.
  const diid = f.number(f.has('diid') || !f.has('seqno') ? 'diid' : 'seqno', 0, Number.MAX_SAFE_INTEGER, true);
  const devEuiKey = f.has('DevEui') || !f.has('DevEUI') ? 'DevEui' : 'DevEUI';
  const devEui = f.has(devEuiKey) ? readEui(f.raw(devEuiKey)) : undefined;
  if (f.has(devEuiKey) && devEui === undefined) throw new InvalidField(`\`${devEuiKey}\` must be an EUI`);
  return withoutUndefined({
    type: 'dntxed' as const,
    diid,
    devEui,
    rctx: f.optionalNumber('rctx', 0, 255, true),
    xtime: f.optionalInt64('xtime', 0n, INT64_MAX) || undefined,
    txtime: f.optionalNumber('txtime', 0, 1e11),
    gpstime: f.optionalInt64('gpstime', 0n, INT64_MAX) || undefined,
  });
}
