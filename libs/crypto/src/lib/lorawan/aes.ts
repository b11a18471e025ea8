import { createCipheriv, createDecipheriv } from 'node:crypto';

/**
 * The AES-128 building blocks of LoRaWAN security (LoRaWAN 1.0.x §4.4, §6.2; 1.1 §4.4, §6.3):
 * one-block encryption and decryption (ECB, no padding) and AES-CMAC (RFC 4493).
 *
 * Node has no CMAC (`createHmac` is HMAC only), and the npm packages for it are either a WebCrypto
 * wrapper that needs an `await` per MIC (`aes-cmac` 4) or unmaintained; RFC 4493 is a few lines
 * over Node's AES-CBC, checked here against the RFC's vectors and TTS's known answers. Tests
 * cross-check every MIC with `lora-packet`, an independent implementation.
 */

/** A 16-byte AES-128 key given as bytes or 32 hex digits (the contract's form). */
export type AesKey = Uint8Array | string;

export function aesKey(key: AesKey): Buffer {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'hex') : Buffer.from(key);
  if (bytes.length !== 16 || (typeof key === 'string' && key.length !== 32)) throw new Error('an AES-128 key is 16 bytes (32 hex digits)');
  return bytes;
}

/** AES-128-ECB encryption of whole blocks. */
export function aesEncrypt(key: AesKey, blocks: Uint8Array): Buffer {
  return ecb(createCipheriv('aes-128-ecb', aesKey(key), null), blocks);
}

/** AES-128-ECB decryption of whole blocks (how a join-accept is "encrypted"). */
export function aesDecrypt(key: AesKey, blocks: Uint8Array): Buffer {
  return ecb(createDecipheriv('aes-128-ecb', aesKey(key), null), blocks);
}

function ecb(cipher: ReturnType<typeof createCipheriv>, blocks: Uint8Array): Buffer {
  if (blocks.length % 16 !== 0) throw new Error('AES-ECB works on whole 16-byte blocks');
  cipher.setAutoPadding(false);
  // Whole blocks without padding: `update` returns every block, and `final` nothing (not called: one copy less per frame).
  return cipher.update(blocks);
}

const RB = 0x87;
const ZERO_BLOCK = Buffer.alloc(16);

/** One subkey doubling step of RFC 4493 §2.3: shift left by one bit, xor Rb when the top bit was set. */
function double(block: Buffer): Buffer {
  const out = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) out[i] = ((block[i] << 1) | (i < 15 ? block[i + 1] >> 7 : 0)) & 0xff;
  if (block[0] & 0x80) out[15] ^= RB;
  return out;
}

/**
 * AES-CMAC (RFC 4493) of `message` under a 128-bit key: 16 bytes. One AES-ECB cipher serves the
 * subkey (the encrypted zero block) and the CBC-MAC, chained here block by block (an uplink's
 * MIC is one or two blocks; a cipher less per MIC is most of a MIC's cost).
 */
export function aesCmac(key: AesKey, message: Uint8Array): Buffer {
  const cipher = createCipheriv('aes-128-ecb', aesKey(key), null);
  cipher.setAutoPadding(false);
  const k1 = double(cipher.update(ZERO_BLOCK));
  const blocks = Math.max(1, Math.ceil(message.length / 16));
  const complete = message.length > 0 && message.length % 16 === 0;
  const padded = Buffer.alloc(blocks * 16);
  padded.set(message);
  if (!complete) padded[message.length] = 0x80;
  const subkey = complete ? k1 : double(k1);
  const last = padded.subarray((blocks - 1) * 16);
  for (let i = 0; i < 16; i++) last[i] ^= subkey[i];
  // CBC-MAC with a zero IV: the MAC is the last ciphertext block.
  let mac: Buffer = ZERO_BLOCK;
  for (let b = 0; b < blocks; b++) {
    const block = padded.subarray(b * 16, b * 16 + 16);
    for (let i = 0; i < 16; i++) block[i] ^= mac[i];
    mac = cipher.update(block);
  }
  return mac;
}
