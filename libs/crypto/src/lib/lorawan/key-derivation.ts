import { type AesKey, aesEncrypt } from './aes';
import { leBytes } from './bytes';

/**
 * Session keys of an OTAA join (LoRaWAN 1.0.x §6.2.5, 1.1 §6.2.3; TTS
 * `pkg/crypto/key_derivation.go`): each is one AES-128 block, a type byte followed by
 * little-endian identifiers and zero padding, encrypted with the root key. Identifiers are given in
 * the API's big-endian hex. Results are upper-case hex, as the contract writes keys.
 */

function derive(key: AesKey, type: number, ...parts: Buffer[]): string {
  return deriveEach(key, [type], parts)[0];
}

/** The keys of several types from one root key, encrypted together (one cipher for all their blocks). */
function deriveEach(key: AesKey, types: readonly number[], parts: readonly Buffer[]): string[] {
  const blocks = Buffer.alloc(16 * types.length);
  const identifiers = Buffer.concat(parts);
  types.forEach((type, i) => {
    blocks[16 * i] = type;
    identifiers.copy(blocks, 16 * i + 1);
  });
  const encrypted = aesEncrypt(key, blocks);
  return types.map((_, i) => encrypted.toString('hex', 16 * i, 16 * i + 16).toUpperCase());
}

export interface LegacySessionKeys {
  nwk_s_key: string;
  app_s_key: string;
}

/** LoRaWAN 1.0.x: NwkSKey and AppSKey from the AppKey, `type | JoinNonce | NetID | DevNonce`. */
export function deriveLegacySessionKeys(appKey: AesKey, joinNonce: string, netId: string, devNonce: string): LegacySessionKeys {
  const parts = [leBytes(joinNonce, 3, 'JoinNonce'), leBytes(netId, 3, 'NetID'), leBytes(devNonce, 2, 'DevNonce')];
  const [nwk_s_key, app_s_key] = deriveEach(appKey, [0x01, 0x02], parts);
  return { nwk_s_key, app_s_key };
}

export interface SessionKeys11 {
  f_nwk_s_int_key: string;
  s_nwk_s_int_key: string;
  nwk_s_enc_key: string;
  app_s_key: string;
}

/** LoRaWAN 1.1: the network keys from the NwkKey and the AppSKey from the AppKey, `type | JoinNonce | JoinEUI | DevNonce`. */
export function deriveSessionKeys11(nwkKey: AesKey, appKey: AesKey, joinNonce: string, joinEui: string, devNonce: string): SessionKeys11 {
  const parts = [leBytes(joinNonce, 3, 'JoinNonce'), leBytes(joinEui, 8, 'JoinEUI'), leBytes(devNonce, 2, 'DevNonce')];
  const [f_nwk_s_int_key, s_nwk_s_int_key, nwk_s_enc_key] = deriveEach(nwkKey, [0x01, 0x03, 0x04], parts);
  return { f_nwk_s_int_key, s_nwk_s_int_key, nwk_s_enc_key, app_s_key: derive(appKey, 0x02, ...parts) };
}

/** LoRaWAN 1.1 JSIntKey (join-accept MIC) from the NwkKey and the DevEUI. */
export function deriveJsIntKey(nwkKey: AesKey, devEui: string): string {
  return derive(nwkKey, 0x06, leBytes(devEui, 8, 'DevEUI'));
}

/** LoRaWAN 1.1 JSEncKey (rejoin join-accept encryption) from the NwkKey and the DevEUI. */
export function deriveJsEncKey(nwkKey: AesKey, devEui: string): string {
  return derive(nwkKey, 0x05, leBytes(devEui, 8, 'DevEUI'));
}
