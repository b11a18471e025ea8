import { createDecipheriv } from 'node:crypto';
import loraPacket from 'lora-packet';

/** A join-accept's fields as a Join Server fills them; hex strings big-endian, as in the API. */
export interface LoraJoinAcceptFields {
  /** 32 hex digits: encrypts the join-accept, and signs it unless OptNeg: AppKey (1.0.x), NwkKey (1.1). */
  key: string;
  /** 6 hex digits. */
  joinNonce: string;
  /** 6 hex digits. */
  netId: string;
  /** 8 hex digits. */
  devAddr: string;
  optNeg?: boolean;
  rx1DrOffset?: number;
  rx2Dr?: number;
  /** RxDelay field, 0–15 (default 5). */
  rxDelay?: number;
  /** 16 bytes. */
  cfList?: Buffer;
  /** OptNeg only: the JSIntKey that signs, and the JoinEUI and DevNonce of the join-request answered. */
  jsIntKey?: string;
  joinEui?: string;
  devNonce?: string;
}

/**
 * A join-accept on air, as the network side of a test sends it: laid out and signed by
 * lora-packet, encrypted with node:crypto (AES-128-ECB *decrypt* of everything after the MHDR,
 * dataplane-notes §2.3), never by the stack's own code.
 */
export function loraJoinAccept(f: LoraJoinAcceptFields): Buffer {
  const optNeg = f.optNeg ?? false;
  if (optNeg && (f.jsIntKey === undefined || f.joinEui === undefined || f.devNonce === undefined)) {
    throw new Error('an OptNeg join-accept needs jsIntKey, joinEui and devNonce');
  }
  const packet = loraPacket.fromFields({
    MType: 'Join Accept',
    AppNonce: Buffer.from(f.joinNonce, 'hex'),
    NetID: Buffer.from(f.netId, 'hex'),
    DevAddr: Buffer.from(f.devAddr, 'hex'),
    DLSettings: Buffer.from([(optNeg ? 0x80 : 0) | ((f.rx1DrOffset ?? 0) << 4) | (f.rx2Dr ?? 0)]),
    RxDelay: Buffer.from([f.rxDelay ?? 5]),
    ...(f.cfList ? { CFList: f.cfList } : {}),
    ...(optNeg ? { AppEUI: Buffer.from(f.joinEui ?? '', 'hex'), DevNonce: Buffer.from(f.devNonce ?? '', 'hex') } : {}),
  });
  const key = Buffer.from(f.key, 'hex');
  const mic = optNeg ? loraPacket.calculateMIC(packet, Buffer.from(f.jsIntKey ?? '', 'hex')) : loraPacket.calculateMIC(packet, undefined, key);
  const { MHDR, MACPayload } = packet.getBuffers();
  if (!MHDR || !MACPayload) throw new Error('lora-packet built no join-accept');
  return Buffer.concat([MHDR, encryptJoinAcceptBody(key, Buffer.concat([MACPayload, mic]))]);
}

/** The JS's join-accept "encryption": AES-128-ECB decrypt, no padding (16 or 32 bytes). */
export function encryptJoinAcceptBody(key: Buffer, body: Buffer): Buffer {
  const decipher = createDecipheriv('aes-128-ecb', key, null);
  decipher.setAutoPadding(false);
  return Buffer.concat([decipher.update(body), decipher.final()]);
}
