import { type AesKey, aesEncrypt } from './aes';
import { leBytes } from './bytes';

/**
 * LoRaWAN FRMPayload encryption (LoRaWAN 1.0.x §4.3.3, 1.1 §4.3.3; TTS `pkg/crypto/data_messages.go`):
 * keystream block `A_i = 0x01 | 4×0x00 | Dir | DevAddr(LE) | FCnt(32-bit LE) | 0x00 | i` (i = 1..k),
 * `S = AES-128-ECB(key, A_1..A_k)`, payload XOR S. Encrypting and decrypting are the same operation.
 *
 * @param key 16-byte AES key (AppSKey for FPort > 0), as bytes or 32 hex digits.
 * @param devAddr DevAddr as written in APIs (big-endian hex, e.g. `01020304`).
 * @param fCnt the full 32-bit frame counter.
 * @param uplink direction: true = uplink (Dir 0), false = downlink (Dir 1).
 * @param marker byte 4 of the blocks: 0 for FRMPayload, 1 for 1.1 FOpts (`encryptFOpts`).
 */
export function encryptFrmPayload(key: AesKey, devAddr: string, fCnt: number, uplink: boolean, payload: Uint8Array, marker = 0): Buffer {
  const addr = leBytes(devAddr, 4, 'DevAddr');
  if (!Number.isInteger(fCnt) || fCnt < 0 || fCnt > 0xffffffff) throw new Error('FCnt must be a 32-bit unsigned integer');
  const blocks = Math.ceil(payload.length / 16);
  const a = Buffer.alloc(blocks * 16);
  for (let i = 0; i < blocks; i++) {
    const block = a.subarray(i * 16, i * 16 + 16);
    block[0] = 0x01;
    block[4] = marker;
    block[5] = uplink ? 0 : 1;
    addr.copy(block, 6);
    block.writeUInt32LE(fCnt, 10);
    block[15] = (i + 1) & 0xff;
  }
  const s = blocks > 0 ? aesEncrypt(key, a) : Buffer.alloc(0);
  const out = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) out[i] = payload[i] ^ s[i];
  return out;
}

/** Decrypting is encrypting (XOR with the same keystream). */
export const decryptFrmPayload = encryptFrmPayload;
