import { type AesKey, aesCmac } from './aes';
import { leBytes } from './bytes';
import { encryptFrmPayload } from './frm-payload';

/**
 * Data frame MICs and FOpts encryption (LoRaWAN 1.0.x §4.4, 1.1 §4.3.1.6 and §4.4; TTS
 * `pkg/crypto/data_messages.go`). `message` is MHDR | FHDR | FPort | FRMPayload as on air (without
 * the MIC); `fCnt` the full 32-bit counter; DevAddr in the API's big-endian hex.
 */

const MAX_MESSAGE = 255;

/** B0 (or B1) block: `0x49 | conf(2) | txDr | txCh | Dir | DevAddr | FCnt | 0x00 | len(msg)`. */
function micBlock(uplink: boolean, devAddr: string, fCnt: number, length: number, confFCnt = 0, txDr = 0, txCh = 0): Buffer {
  if (!Number.isInteger(fCnt) || fCnt < 0 || fCnt > 0xffffffff) throw new Error('FCnt must be a 32-bit unsigned integer');
  if (length > MAX_MESSAGE) throw new Error(`a LoRaWAN message is at most ${MAX_MESSAGE} bytes`);
  const b = Buffer.alloc(16);
  b[0] = 0x49;
  b.writeUInt16LE(confFCnt & 0xffff, 1);
  b[3] = txDr;
  b[4] = txCh;
  b[5] = uplink ? 0 : 1;
  leBytes(devAddr, 4, 'DevAddr').copy(b, 6);
  b.writeUInt32LE(fCnt, 10);
  b[15] = length;
  return b;
}

function cmac4(key: AesKey, block: Buffer, message: Uint8Array): Buffer {
  return aesCmac(key, Buffer.concat([block, message])).subarray(0, 4);
}

/** LoRaWAN 1.0.x uplink MIC with the NwkSKey. */
export function computeLegacyUplinkMic(nwkSKey: AesKey, devAddr: string, fCnt: number, message: Uint8Array): Buffer {
  return cmac4(nwkSKey, micBlock(true, devAddr, fCnt, message.length), message);
}

/** LoRaWAN 1.0.x downlink MIC with the NwkSKey. */
export function computeLegacyDownlinkMic(nwkSKey: AesKey, devAddr: string, fCnt: number, message: Uint8Array): Buffer {
  return cmac4(nwkSKey, micBlock(false, devAddr, fCnt, message.length), message);
}

/**
 * LoRaWAN 1.1 uplink MIC: two bytes of `cmac(SNwkSIntKey, B1 | msg)` then two of `cmac(FNwkSIntKey,
 * B0 | msg)`; B1 carries the acknowledged downlink's FCnt (`confFCnt`, when the ACK bit is set) and
 * the uplink's data rate and channel indexes.
 */
export function computeUplinkMic(
  sNwkSIntKey: AesKey,
  fNwkSIntKey: AesKey,
  confFCnt: number,
  txDrIdx: number,
  txChIdx: number,
  devAddr: string,
  fCnt: number,
  message: Uint8Array,
): Buffer {
  const s = cmac4(sNwkSIntKey, micBlock(true, devAddr, fCnt, message.length, confFCnt, txDrIdx, txChIdx), message);
  const f = cmac4(fNwkSIntKey, micBlock(true, devAddr, fCnt, message.length), message);
  return Buffer.concat([s.subarray(0, 2), f.subarray(0, 2)]);
}

/** LoRaWAN 1.1 downlink MIC with the SNwkSIntKey; B0 carries the acknowledged uplink's FCnt (`confFCnt`). */
export function computeDownlinkMic(sNwkSIntKey: AesKey, confFCnt: number, devAddr: string, fCnt: number, message: Uint8Array): Buffer {
  return cmac4(sNwkSIntKey, micBlock(false, devAddr, fCnt, message.length, confFCnt), message);
}

/**
 * LoRaWAN 1.1 FOpts encryption with the NwkSEncKey (the "FCntDwn usage in FOpts encryption"
 * errata: the keystream block of FRMPayload encryption with 0x01 in byte 4 for uplinks and
 * downlinks counted by NFCntDown, 0x02 for downlinks with an FPort > 0, counted by AFCntDown);
 * at most 15 bytes. The same call decrypts.
 */
export function encryptFOpts(nwkSEncKey: AesKey, devAddr: string, fCnt: number, uplink: boolean, fOpts: Uint8Array, aFCntDown = false): Buffer {
  if (fOpts.length > 15) throw new Error('FOpts are at most 15 bytes');
  return encryptFrmPayload(nwkSEncKey, devAddr, fCnt, uplink, fOpts, !uplink && aFCntDown ? 0x02 : 0x01);
}
