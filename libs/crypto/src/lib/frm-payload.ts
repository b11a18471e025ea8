import { createCipheriv } from 'node:crypto';

/**
 * LoRaWAN FRMPayload encryption (LoRaWAN 1.0.x §4.3.3, 1.1 §4.3.3; TTS `pkg/crypto/data_messages.go`):
 * keystream block `A_i = 0x01 | 4×0x00 | Dir | DevAddr(LE) | FCnt(32-bit LE) | 0x00 | i` (i = 1..k),
 * `S = AES-128-ECB(key, A_1..A_k)`, payload XOR S. Encrypting and decrypting are the same operation.
 *
 * @param key 16-byte AES key (AppSKey for FPort > 0), as bytes or 32 hex digits.
 * @param devAddr DevAddr as written in APIs (big-endian hex, e.g. `01020304`).
 * @param fCnt the full 32-bit frame counter.
 * @param uplink direction: true = uplink (Dir 0), false = downlink (Dir 1).
 */
export function encryptFrmPayload(key: Uint8Array | string, devAddr: string, fCnt: number, uplink: boolean, payload: Uint8Array): Buffer {
  const keyBytes = typeof key === 'string' ? Buffer.from(key, 'hex') : Buffer.from(key);
  if (keyBytes.length !== 16) throw new Error('FRMPayload key must be 16 bytes');
  const addr = Buffer.from(devAddr, 'hex');
  if (addr.length !== 4) throw new Error('DevAddr must be 4 bytes');
  if (!Number.isInteger(fCnt) || fCnt < 0 || fCnt > 0xffffffff) throw new Error('FCnt must be a 32-bit unsigned integer');
  const blocks = Math.ceil(payload.length / 16);
  const a = Buffer.alloc(blocks * 16);
  for (let i = 0; i < blocks; i++) {
    const block = a.subarray(i * 16, i * 16 + 16);
    block[0] = 0x01;
    block[5] = uplink ? 0 : 1;
    for (let j = 0; j < 4; j++) block[6 + j] = addr[3 - j];
    block.writeUInt32LE(fCnt, 10);
    block[15] = (i + 1) & 0xff;
  }
  const cipher = createCipheriv('aes-128-ecb', keyBytes, null);
  cipher.setAutoPadding(false);
  const s = Buffer.concat([cipher.update(a), cipher.final()]);
  const out = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) out[i] = payload[i] ^ s[i];
  return out;
}

/** Decrypting is encrypting (XOR with the same keystream). */
export const decryptFrmPayload = encryptFrmPayload;
