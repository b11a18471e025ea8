import { createCipheriv } from 'node:crypto';
import loraPacket from 'lora-packet';

/**
 * Payload crypto for specs, done by `lora-packet` and node:crypto, never by the stack's own code:
 * what a device or an application server would compute, to check the stack against.
 */

/** The network key lora-packet needs for a frame's MIC (the AS never checks it). */
const ANY_NWK_S_KEY = Buffer.from('44024241ED4CE9A68C6A8BC055233FD3', 'hex');

export interface LoraFrmPayloadFields {
  appSKey: string;
  devAddr: string;
  /** The full 32-bit FCnt (its upper 16 bits are lora-packet's `FCntMSBytes`, little-endian). */
  fCnt: number;
  fPort?: number;
  payload: Buffer;
  direction: 'up' | 'down';
}

/**
 * A data frame's FRMPayload as lora-packet encrypts it with the AppSKey, DevAddr, full FCnt and
 * direction. The cipher is its own inverse: given a ciphertext as `payload`, this is the plaintext.
 */
export function loraFrmPayload(f: LoraFrmPayloadFields): Buffer {
  const fCntMsb = Buffer.alloc(2);
  fCntMsb.writeUInt16LE(f.fCnt >>> 16);
  const fields = {
    MType: f.direction === 'up' ? 'Unconfirmed Data Up' : 'Unconfirmed Data Down',
    DevAddr: Buffer.from(f.devAddr, 'hex'),
    FCnt: f.fCnt & 0xffff,
    FPort: f.fPort ?? 1,
    payload: f.payload,
  };
  const packet = loraPacket.fromFields(fields, Buffer.from(f.appSKey, 'hex'), ANY_NWK_S_KEY, undefined, fCntMsb);
  if (!packet.FRMPayload) throw new Error('lora-packet built no FRMPayload');
  return packet.FRMPayload;
}

/** A key envelope as a Join Server wraps a key for a KEK (RFC 3394 AES key wrap, node:crypto). */
export function wrapKeyForKek(kekLabel: string, kekHex: string, keyHex: string): { kek_label: string; encrypted_key: string } {
  const cipher = createCipheriv('id-aes128-wrap', Buffer.from(kekHex, 'hex'), Buffer.from('A6A6A6A6A6A6A6A6', 'hex'));
  return { kek_label: kekLabel, encrypted_key: Buffer.concat([cipher.update(Buffer.from(keyHex, 'hex')), cipher.final()]).toString('base64') };
}
