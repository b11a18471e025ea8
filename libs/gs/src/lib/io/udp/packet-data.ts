import { isJsonObject, normalizeTimestamp } from '@lorawan/api';
import type { TxAckResult } from '../messages';

/**
 * The JSON of PUSH_DATA (`rxpk`, `stat`) and TX_ACK (`txpk_ack`) (PROTOCOL.TXT §4–§6; TTS
 * `pkg/ttnpb/udp/packet_data.go`), checked field by field: a gateway is not trusted to send what
 * the protocol says. A malformed `rxpk` is dropped on its own (with the reason), the others of
 * the datagram still count.
 */

/** One antenna's view of a frame (`rsig`, v2 HAL). */
export interface RxSignal {
  ant?: number;
  chan?: number;
  rssic?: number;
  rssis?: number;
  lsnr?: number;
  foff?: number;
  ftime?: number;
}

export type LoRaDataRate = { spreadingFactor: number; bandwidth: number };

export interface RxPacket {
  /** RFC 3339 with microseconds, when the gateway sent a valid `time`. */
  time?: string;
  /** GPS time (ms since 1980-01-06). */
  tmms?: number;
  /** Concentrator counter (µs) at the end of reception. */
  tmst: number;
  /** Hz (the protocol's `freq` is MHz). */
  frequency: number;
  chan?: number;
  rfch?: number;
  /** CRC: 1 ok, -1 failed, 0 none. */
  stat: -1 | 0 | 1;
  modulation: 'LORA' | 'FSK';
  /** LoRa spreading factor and bandwidth (Hz), or the FSK bit rate. */
  dataRate: LoRaDataRate | { bitRate: number };
  codingRate?: string;
  rssi: number;
  lsnr?: number;
  foff?: number;
  ftime?: number;
  payload: Buffer;
  rsig?: RxSignal[];
}

export interface RxPacketError {
  error: string;
}

export interface GatewayStat {
  time?: string;
  lati?: number;
  long?: number;
  alti?: number;
  rxnb?: number;
  rxok?: number;
  rxfw?: number;
  ackr?: number;
  dwnb?: number;
  txnb?: number;
  temp?: number;
}

export interface PushData {
  rxpk: Array<RxPacket | RxPacketError>;
  /** How many `rxpk` past MAX_RXPK were left out. */
  truncated: number;
  stat?: GatewayStat;
}

/**
 * At most this many `rxpk` per datagram (the SX1302 HAL packet forwarder's NB_PKT_MAX; the SX1301
 * one sends at most 8); the rest is dropped, and counted (`too_many_rxpk`).
 */
export const MAX_RXPK = 255;
/** A LoRaWAN PHYPayload is at most 255 bytes. */
const MAX_PHY_PAYLOAD = 255;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const LORA_DATR = /^SF(\d{1,2})BW(\d{3})$/;
const CODING_RATE = /^4\/[5-8](LI)?$|^OFF$/;

export function isRxPacket(p: RxPacket | RxPacketError): p is RxPacket {
  return !('error' in p);
}

/** PUSH_DATA's JSON, or why it is not one. */
export function parsePushData(body: Buffer): PushData | RxPacketError {
  const json = parseJson(body);
  if (!isJsonObject(json)) return { error: 'PUSH_DATA body is not a JSON object' };
  const rxpk = json.rxpk;
  if (rxpk !== undefined && !Array.isArray(rxpk)) return { error: '`rxpk` is not an array' };
  const stat = json.stat;
  return {
    rxpk: (rxpk ?? []).slice(0, MAX_RXPK).map(parseRxPacket),
    truncated: Math.max(0, (rxpk?.length ?? 0) - MAX_RXPK),
    stat: isJsonObject(stat) ? parseStat(stat) : undefined,
  };
}

const TX_ERRORS = new Set<string>(['TOO_LATE', 'TOO_EARLY', 'COLLISION_PACKET', 'COLLISION_BEACON', 'TX_FREQ', 'TX_POWER', 'GPS_UNLOCKED']);

/** TX_ACK's result: no body, no `txpk_ack` or error `NONE` is success; an unknown error name is `UNKNOWN_ERROR`. */
export function parseTxAck(body: Buffer): TxAckResult {
  if (body.length === 0 || body.every((b) => b === 0)) return 'SUCCESS';
  const json = parseJson(body);
  if (!isJsonObject(json)) return 'UNKNOWN_ERROR';
  const ack = json.txpk_ack;
  if (ack === undefined) return 'SUCCESS';
  if (!isJsonObject(ack)) return 'UNKNOWN_ERROR';
  const error = ack.error;
  if (error === undefined || error === '' || error === 'NONE') return 'SUCCESS';
  return typeof error === 'string' && TX_ERRORS.has(error) ? (error as TxAckResult) : 'UNKNOWN_ERROR';
}

function parseJson(body: Buffer): unknown {
  try {
    // Some forwarders end the JSON with a NUL.
    const end = body.indexOf(0);
    return JSON.parse(body.toString('utf8', 0, end < 0 ? body.length : end));
  } catch {
    return undefined;
  }
}

class Invalid extends Error {}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function num(o: Record<string, unknown>, key: string, min: number, max: number, integer = false): number | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (!isNumber(v) || v < min || v > max || (integer && !Number.isInteger(v)))
    throw new Invalid(`\`${key}\` must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}]`);
  return v;
}

function required<T>(value: T | undefined, key: string): T {
  if (value === undefined) throw new Invalid(`\`${key}\` is missing`);
  return value;
}

function parseRxPacket(raw: unknown): RxPacket | RxPacketError {
  if (!isJsonObject(raw)) return { error: '`rxpk` item is not an object' };
  try {
    const data = raw.data;
    if (typeof data !== 'string' || !BASE64.test(data)) throw new Invalid('`data` is not base64');
    const payload = Buffer.from(data, 'base64');
    if (payload.length === 0 || payload.length > MAX_PHY_PAYLOAD) throw new Invalid(`\`data\` must hold 1 to ${MAX_PHY_PAYLOAD} bytes`);
    const size = num(raw, 'size', 0, 65535, true);
    if (size !== undefined && size !== payload.length) throw new Invalid(`\`size\` ${size} differs from the ${payload.length} bytes of \`data\``);
    const stat = num(raw, 'stat', -1, 1, true) ?? 0;
    const modulation = raw.modu;
    let dataRate: RxPacket['dataRate'];
    if (modulation === 'LORA') {
      const m = typeof raw.datr === 'string' ? LORA_DATR.exec(raw.datr) : null;
      const spreadingFactor = Number(m?.[1]);
      const bandwidth = Number(m?.[2]) * 1000;
      if (!m || spreadingFactor < 5 || spreadingFactor > 12 || ![125000, 250000, 500000].includes(bandwidth))
        throw new Invalid('`datr` is not a LoRa data rate (SF5–12, BW125/250/500)');
      dataRate = { spreadingFactor, bandwidth };
    } else if (modulation === 'FSK') {
      dataRate = { bitRate: required(num(raw, 'datr', 1, 1_000_000, true), 'datr') };
    } else {
      throw new Invalid('`modu` must be LORA or FSK');
    }
    const codr = raw.codr;
    if (codr !== undefined && (typeof codr !== 'string' || !CODING_RATE.test(codr))) throw new Invalid('`codr` is not a coding rate');
    const time = normalizeTimestamp(raw.time);
    return {
      // An unusable time is left out rather than dropping the frame (TTS does the same).
      time: typeof time === 'string' ? time : undefined,
      tmms: num(raw, 'tmms', 0, Number.MAX_SAFE_INTEGER, true),
      tmst: required(num(raw, 'tmst', 0, 0xffffffff, true), 'tmst'),
      frequency: Math.round(required(num(raw, 'freq', 1, 10_000), 'freq') * 1e6),
      chan: num(raw, 'chan', 0, 255, true),
      rfch: num(raw, 'rfch', 0, 255, true),
      stat: stat as RxPacket['stat'],
      modulation,
      dataRate,
      codingRate: codr as string | undefined,
      rssi: required(num(raw, 'rssi', -1000, 1000), 'rssi'),
      lsnr: num(raw, 'lsnr', -1000, 1000),
      foff: num(raw, 'foff', -1_000_000, 1_000_000, true),
      ftime: num(raw, 'ftime', 0, 0xffffffff, true),
      payload,
      rsig: parseSignals(raw.rsig),
    };
  } catch (err) {
    if (err instanceof Invalid) return { error: err.message };
    throw err;
  }
}

const MAX_ANTENNAS = 16;

function parseSignals(raw: unknown): RxSignal[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.length > MAX_ANTENNAS || !raw.every(isJsonObject)) throw new Invalid(`\`rsig\` must be at most ${MAX_ANTENNAS} objects`);
  return raw.map((s) => ({
    ant: num(s, 'ant', 0, 255, true),
    chan: num(s, 'chan', 0, 255, true),
    rssic: num(s, 'rssic', -1000, 1000),
    rssis: num(s, 'rssis', -1000, 1000),
    lsnr: num(s, 'lsnr', -1000, 1000),
    foff: num(s, 'foff', -1_000_000, 1_000_000, true),
    ftime: num(s, 'ftime', 0, 0xffffffff, true),
  }));
}

/** The `stat` object; fields that are not what they should be are left out (a status is informational). */
function parseStat(raw: Record<string, unknown>): GatewayStat {
  const out: GatewayStat = {};
  const take = (key: keyof GatewayStat, min: number, max: number) => {
    const v = raw[key];
    if (isNumber(v) && v >= min && v <= max) (out as Record<string, number>)[key] = v;
  };
  take('lati', -90, 90);
  take('long', -180, 180);
  take('alti', -100_000, 100_000);
  for (const key of ['rxnb', 'rxok', 'rxfw', 'dwnb', 'txnb'] as const) take(key, 0, 0xffffffff);
  take('ackr', 0, 100);
  take('temp', -273, 1000);
  // "2014-01-12 08:59:28 GMT" (expanded format), as packet forwarders write it.
  const time = typeof raw.time === 'string' ? /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) (?:GMT|UTC)$/.exec(raw.time) : null;
  if (time) {
    const normalized = normalizeTimestamp(`${time[1]}T${time[2]}Z`);
    if (typeof normalized === 'string') out.time = normalized;
  }
  return out;
}
