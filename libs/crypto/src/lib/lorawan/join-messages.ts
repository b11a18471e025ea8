import { type AesKey, aesCmac, aesDecrypt, aesEncrypt } from './aes';
import { leBytes } from './bytes';

/**
 * Join-request and join-accept security (LoRaWAN 1.0.x §6.2.4–6.2.5, 1.1 §6.2.2–6.2.3; TTS
 * `pkg/crypto/join_messages.go`). Messages are the bytes as on air; identifiers passed as strings
 * are in the API's big-endian hex and go on air little-endian.
 */

/** MIC of a join-request: `aes128_cmac(AppKey (1.0) | NwkKey (1.1), MHDR | JoinEUI | DevEUI | DevNonce)[0..3]`. */
export function computeJoinRequestMic(key: AesKey, message: Uint8Array): Buffer {
  if (message.length !== 19) throw new Error('a join-request without its MIC is 19 bytes');
  return aesCmac(key, message).subarray(0, 4);
}

/** MIC of a 1.0.x join-accept (and of 1.1 with OptNeg unset): `aes128_cmac(key, MHDR | JoinNonce | NetID | DevAddr | DLSettings | RxDelay | CFList)[0..3]`. */
export function computeLegacyJoinAcceptMic(key: AesKey, message: Uint8Array): Buffer {
  checkJoinAccept(message);
  return aesCmac(key, message).subarray(0, 4);
}

/**
 * MIC of a LoRaWAN 1.1 join-accept (OptNeg set): `aes128_cmac(JSIntKey, JoinReqType | JoinEUI |
 * DevNonce | MHDR | JoinNonce | NetID | DevAddr | DLSettings | RxDelay | CFList)[0..3]`, JoinReqType
 * 0xFF for a join-request.
 */
export function computeJoinAcceptMic(jsIntKey: AesKey, joinReqType: number, joinEui: string, devNonce: string, message: Uint8Array): Buffer {
  checkJoinAccept(message);
  return aesCmac(jsIntKey, Buffer.concat([Buffer.of(joinReqType), leBytes(joinEui, 8, 'JoinEUI'), leBytes(devNonce, 2, 'DevNonce'), message])).subarray(0, 4);
}

/** The join-accept as sent: MHDR in clear, the rest (MIC included) "encrypted" with AES-ECB decryption. */
export function encryptJoinAccept(key: AesKey, plain: Uint8Array): Buffer {
  return aesDecrypt(key, plain);
}

/** A received join-accept's clear text (MHDR excluded): AES-ECB encryption undoes the sender's decryption. */
export function decryptJoinAccept(key: AesKey, encrypted: Uint8Array): Buffer {
  return aesEncrypt(key, encrypted);
}

function checkJoinAccept(message: Uint8Array): void {
  if (message.length !== 13 && message.length !== 29) throw new Error('a join-accept without its MIC is 13 or 29 (with CFList) bytes');
}
