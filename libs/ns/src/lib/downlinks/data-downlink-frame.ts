import { computeDownlinkMic, computeLegacyDownlinkMic, leBytes } from '@lorawan/crypto';
import { mhdrByte } from '@lorawan/lorawan';

/**
 * A data downlink's PHYPayload (LoRaWAN 1.0.x §4, 1.1 §4.3; TTS `downlink.go` generateDataDownlink):
 * MHDR (un/confirmed data down), FHDR (DevAddr, FCtrl with ADR, ACK, FPending and FOptsLen, FCnt's
 * low 16 bits, FOpts), FPort and the FRMPayload as the AS encrypted it, and the MIC with the
 * network key over the full 32-bit FCnt (1.1: with the FCnt of the confirmed uplink it acknowledges).
 */
export interface DataDownlinkFields {
  confirmed: boolean;
  dev_addr: string;
  adr: boolean;
  ack: boolean;
  f_pending: boolean;
  /** Full 32-bit FCntDown. */
  f_cnt: number;
  /** MAC commands in the frame header, as they go on air (1.1: encrypted). At most 15 bytes. */
  f_opts?: Buffer;
  f_port?: number;
  /** Already encrypted (by the AS for FPort > 0; MAC commands with the network key for FPort 0). */
  frm_payload?: Buffer;
}

export interface DownlinkMicKeys {
  lorawan_version: string;
  /** 1.0.x: the NwkSKey; 1.1: the SNwkSIntKey. */
  key: string;
  /** 1.1: the FCnt of the confirmed uplink being acknowledged (when `ack`). */
  conf_f_cnt?: number;
}

export function dataDownlinkFrame(f: DataDownlinkFields, mic: DownlinkMicKeys): Buffer {
  const fOpts = f.f_opts ?? Buffer.alloc(0);
  if (fOpts.length > 15) throw new Error('FOpts are at most 15 bytes');
  const fCtrl = (f.adr ? 0x80 : 0) | (f.ack ? 0x20 : 0) | (f.f_pending ? 0x10 : 0) | fOpts.length;
  const fCnt = Buffer.alloc(2);
  fCnt.writeUInt16LE(f.f_cnt & 0xffff);
  const parts = [
    Buffer.from([mhdrByte(f.confirmed ? 'CONFIRMED_DOWN' : 'UNCONFIRMED_DOWN')]),
    leBytes(f.dev_addr, 4, 'DevAddr'),
    Buffer.from([fCtrl]),
    fCnt,
    fOpts,
  ];
  if (f.f_port !== undefined) parts.push(Buffer.from([f.f_port]), f.frm_payload ?? Buffer.alloc(0));
  const message = Buffer.concat(parts);
  const code =
    mic.lorawan_version === 'MAC_V1_1'
      ? computeDownlinkMic(mic.key, f.ack ? (mic.conf_f_cnt ?? 0) : 0, f.dev_addr, f.f_cnt, message)
      : computeLegacyDownlinkMic(mic.key, f.dev_addr, f.f_cnt, message);
  return Buffer.concat([message, code]);
}
