import { leBytes } from '@lorawan/crypto';

/**
 * LoRaWAN PHYPayload encoding (LoRaWAN 1.0.x/1.1 §4, §6.2; TTS `pkg/encoding/lorawan`), in the
 * JSON shape of TTS's `ttnpb.Message`: identifiers in the API's big-endian hex (they travel
 * little-endian on air), bytes as `Buffer`. Parsing never throws: a frame that is not one is an
 * error naming why (for `gs.up.drop` / `ns.up.drop`).
 */

export const M_TYPES = [
  'JOIN_REQUEST',
  'JOIN_ACCEPT',
  'UNCONFIRMED_UP',
  'UNCONFIRMED_DOWN',
  'CONFIRMED_UP',
  'CONFIRMED_DOWN',
  'REJOIN_REQUEST',
  'PROPRIETARY',
] as const;
export type MType = (typeof M_TYPES)[number];

export interface MHDR {
  m_type: MType;
  /** 0: LoRaWAN R1. */
  major: number;
}

export interface JoinRequestPayload {
  join_eui: string;
  dev_eui: string;
  dev_nonce: string;
}

export interface FCtrl {
  adr: boolean;
  /** Uplinks. */
  adr_ack_req?: boolean;
  ack: boolean;
  /** Downlinks. */
  f_pending?: boolean;
  /** Uplinks (class B). */
  class_b?: boolean;
}

export interface MACPayload {
  f_hdr: { dev_addr: string; f_ctrl: FCtrl; f_cnt: number; f_opts: Buffer };
  f_port?: number;
  frm_payload: Buffer;
}

export interface ParsedPhyPayload {
  mhdr: MHDR;
  mic: Buffer;
  join_request_payload?: JoinRequestPayload;
  mac_payload?: MACPayload;
  /** Join-accepts (encrypted as sent) and proprietary frames: the bytes between MHDR and MIC. */
  raw?: Buffer;
}

export interface FrameError {
  error: string;
}

const hexLE = (b: Buffer) => Buffer.from(b).reverse().toString('hex').toUpperCase();

export function parsePhyPayload(bytes: Buffer): ParsedPhyPayload | FrameError {
  if (bytes.length < 5) return { error: 'a PHYPayload has at least an MHDR and a MIC (5 bytes)' };
  const mhdr: MHDR = { m_type: M_TYPES[bytes[0] >> 5], major: bytes[0] & 0x03 };
  if (mhdr.major !== 0) return { error: `unknown LoRaWAN major version ${mhdr.major}` };
  const mic = bytes.subarray(bytes.length - 4);
  const body = bytes.subarray(1, bytes.length - 4);
  switch (mhdr.m_type) {
    case 'JOIN_REQUEST':
      if (body.length !== 18) return { error: `a join-request is 23 bytes, not ${bytes.length}` };
      return {
        mhdr,
        mic,
        join_request_payload: { join_eui: hexLE(body.subarray(0, 8)), dev_eui: hexLE(body.subarray(8, 16)), dev_nonce: hexLE(body.subarray(16, 18)) },
      };
    case 'UNCONFIRMED_UP':
    case 'UNCONFIRMED_DOWN':
    case 'CONFIRMED_UP':
    case 'CONFIRMED_DOWN': {
      if (body.length < 7) return { error: 'a data frame has at least a 7-byte FHDR' };
      const fCtrl = body[4];
      const fOptsLen = fCtrl & 0x0f;
      if (body.length < 7 + fOptsLen) return { error: `FOptsLen ${fOptsLen} is longer than the frame` };
      const uplink = mhdr.m_type.endsWith('_UP');
      const rest = body.subarray(7 + fOptsLen);
      const fPort = rest.length > 0 ? rest[0] : undefined;
      if (fPort === 0 && fOptsLen > 0) return { error: 'MAC commands in both FOpts and FRMPayload (FPort 0)' };
      return {
        mhdr,
        mic,
        mac_payload: {
          f_hdr: {
            dev_addr: hexLE(body.subarray(0, 4)),
            f_ctrl: uplink
              ? { adr: !!(fCtrl & 0x80), adr_ack_req: !!(fCtrl & 0x40), ack: !!(fCtrl & 0x20), class_b: !!(fCtrl & 0x10) }
              : { adr: !!(fCtrl & 0x80), ack: !!(fCtrl & 0x20), f_pending: !!(fCtrl & 0x10) },
            f_cnt: body.readUInt16LE(5),
            f_opts: Buffer.from(body.subarray(7, 7 + fOptsLen)),
          },
          f_port: fPort,
          frm_payload: Buffer.from(rest.subarray(1)),
        },
      };
    }
    case 'JOIN_ACCEPT':
    case 'REJOIN_REQUEST':
    case 'PROPRIETARY':
      return { mhdr, mic, raw: Buffer.from(body) };
  }
}

/** The MHDR byte of a message type (major R1). */
export function mhdrByte(mType: MType): number {
  return M_TYPES.indexOf(mType) << 5;
}

export interface JoinAcceptFields {
  /** 3 bytes, API hex. */
  join_nonce: string;
  net_id: string;
  dev_addr: string;
  /** LoRaWAN 1.1 devices joined with OptNeg. */
  opt_neg?: boolean;
  rx1_data_rate_offset: number;
  rx2_data_rate_index: number;
  /** RxDelay in seconds (0 means 1). */
  rx_delay: number;
  cf_list?: Buffer;
}

/** A join-accept's clear text before its MIC: `MHDR | JoinNonce | NetID | DevAddr | DLSettings | RxDelay | [CFList]`. */
export function joinAcceptPayload(f: JoinAcceptFields): Buffer {
  if (
    f.rx1_data_rate_offset < 0 ||
    f.rx1_data_rate_offset > 7 ||
    f.rx2_data_rate_index < 0 ||
    f.rx2_data_rate_index > 15 ||
    f.rx_delay < 0 ||
    f.rx_delay > 15
  ) {
    throw new Error('DLSettings or RxDelay out of range');
  }
  const dlSettings = (f.opt_neg ? 0x80 : 0) | (f.rx1_data_rate_offset << 4) | f.rx2_data_rate_index;
  if (f.cf_list && f.cf_list.length !== 16) throw new Error('a CFList is 16 bytes');
  return Buffer.concat([
    Buffer.of(mhdrByte('JOIN_ACCEPT')),
    leBytes(f.join_nonce, 3, 'JoinNonce'),
    leBytes(f.net_id, 3, 'NetID'),
    leBytes(f.dev_addr, 4, 'DevAddr'),
    Buffer.of(dlSettings, f.rx_delay),
    f.cf_list ?? Buffer.alloc(0),
  ]);
}
