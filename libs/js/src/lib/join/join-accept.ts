import {
  computeJoinAcceptMic,
  computeJoinRequestMic,
  computeLegacyJoinAcceptMic,
  deriveJsIntKey,
  deriveLegacySessionKeys,
  deriveSessionKeys11,
  encryptJoinAccept,
} from '@lorawan/crypto';
import { joinAcceptPayload, parsePhyPayload } from '@lorawan/lorawan';
import {
  ErrDecodePayload,
  ErrDevNonceTooSmall,
  ErrJoinNonceTooHigh,
  ErrMICMismatch,
  ErrNoAppKey,
  ErrNoNwkKey,
  ErrReuseDevNonce,
  ErrUnsupportedMACVersion,
  ErrWrongPayloadType,
} from '../errors';

/**
 * The Join Server's decision on a join-request (LoRaWAN 1.0.x §6.2, 1.1 §6.2; TTS
 * `pkg/joinserver/joinserver.go` HandleJoin, dataplane-notes §3.2–3.3), without storage: the MIC
 * with the network root key, the DevNonce rules of the device's MAC version, the next JoinNonce,
 * the join-accept (MIC'd and encrypted) and the session keys. The caller stores the new nonces and
 * keys atomically with the device, and refuses nothing else: every refusal is an error here.
 */

const LEGACY_VERSIONS = new Set(['MAC_V1_0', 'MAC_V1_0_1', 'MAC_V1_0_2', 'MAC_V1_0_3']);
const COUNTER_VERSIONS = new Set(['MAC_V1_0_4', 'MAC_V1_1']);
/** Random DevNonces remembered per 1.0–1.0.3 device (TTS `dev-nonce-limit`). */
export const DEV_NONCE_LIMIT = 10;
const MAX_JOIN_NONCE = 0xffffff;

export interface JoinRequestInput {
  /** The join-request as received (23 bytes). */
  raw_payload: Buffer;
  /** The MAC version the NS selected for the device. */
  selected_mac_version: string;
  net_id: string;
  dev_addr: string;
  downlink_settings: { opt_neg?: boolean; rx1_dr_offset?: number; rx2_dr?: number };
  /** Seconds (0 means 1). */
  rx_delay: number;
  cf_list?: Buffer;
}

/** What the JS knows of the device: its root keys in clear (unwrapped by the caller) and its nonces. */
export interface JoinDevice {
  app_key?: string;
  nwk_key?: string;
  last_dev_nonce?: number;
  used_dev_nonces?: number[];
  last_join_nonce?: number;
  resets_join_nonces?: boolean;
}

export interface JoinSessionKeys {
  f_nwk_s_int_key: string;
  /** 1.1 only (1.0.x has one network key; the NS uses it for all three). */
  s_nwk_s_int_key?: string;
  nwk_s_enc_key?: string;
  app_s_key: string;
}

export interface JoinAcceptance {
  /** The join-accept as the gateway sends it: MHDR in clear, the rest encrypted. */
  raw_payload: Buffer;
  keys: JoinSessionKeys;
  join_eui: string;
  dev_eui: string;
  dev_nonce: number;
  /** The JoinNonce used (3 bytes, API hex). */
  join_nonce: string;
  /** The device's nonces after this join. */
  nonces: { last_dev_nonce?: number; used_dev_nonces?: number[]; last_join_nonce: number };
}

/** The EUIs and DevNonce of a join-request (to find the device), or the error it is refused with. */
export function joinRequestIds(raw: Buffer): { join_eui: string; dev_eui: string; dev_nonce: string } {
  const parsed = parsePhyPayload(raw);
  if ('error' in parsed) throw ErrDecodePayload.with({}, ErrWrongPayloadType.with({ type: parsed.error }));
  if (!parsed.join_request_payload) throw ErrWrongPayloadType.with({ type: parsed.mhdr.m_type });
  return parsed.join_request_payload;
}

export function acceptJoin(device: JoinDevice, request: JoinRequestInput, devNonceLimit = DEV_NONCE_LIMIT): JoinAcceptance {
  const version = request.selected_mac_version;
  const legacy = LEGACY_VERSIONS.has(version);
  if (!legacy && !COUNTER_VERSIONS.has(version)) throw ErrUnsupportedMACVersion.with({ version });
  const v11 = version === 'MAC_V1_1';
  const ids = joinRequestIds(request.raw_payload);

  // The network root key: the NwkKey from 1.1 on; the AppKey before (a NwkKey stands in for it).
  const nwkKey = v11 ? device.nwk_key : (device.app_key ?? device.nwk_key);
  if (!nwkKey) throw v11 ? ErrNoNwkKey.with() : ErrNoAppKey.with();
  const appKey = v11 ? device.app_key : nwkKey;
  if (!appKey) throw ErrNoAppKey.with();

  const mic = computeJoinRequestMic(nwkKey, request.raw_payload.subarray(0, 19));
  if (!mic.equals(request.raw_payload.subarray(19, 23))) throw ErrMICMismatch.with();

  const devNonce = parseInt(ids.dev_nonce, 16);
  const nonces: JoinAcceptance['nonces'] = { last_join_nonce: 0 };
  if (legacy) {
    const used = device.used_dev_nonces ?? [];
    if (!device.resets_join_nonces && used.includes(devNonce)) throw ErrReuseDevNonce.with();
    nonces.used_dev_nonces = [...used.filter((n) => n !== devNonce), devNonce].slice(-devNonceLimit);
  } else {
    const last = device.last_dev_nonce ?? 0;
    const fresh = devNonce === 0 && last === 0 && (device.last_join_nonce ?? 0) === 0;
    if (devNonce <= last && !fresh && !device.resets_join_nonces) throw ErrDevNonceTooSmall.with();
    nonces.last_dev_nonce = devNonce;
  }
  const joinNonceValue = (device.last_join_nonce ?? 0) + 1;
  if (joinNonceValue > MAX_JOIN_NONCE) throw ErrJoinNonceTooHigh.with();
  nonces.last_join_nonce = joinNonceValue;
  const joinNonce = joinNonceValue.toString(16).toUpperCase().padStart(6, '0');

  const optNeg = v11 && (request.downlink_settings.opt_neg ?? true);
  const plain = joinAcceptPayload({
    join_nonce: joinNonce,
    net_id: request.net_id,
    dev_addr: request.dev_addr,
    opt_neg: optNeg,
    rx1_data_rate_offset: request.downlink_settings.rx1_dr_offset ?? 0,
    rx2_data_rate_index: request.downlink_settings.rx2_dr ?? 0,
    rx_delay: request.rx_delay,
    cf_list: request.cf_list,
  });
  const acceptMic = optNeg
    ? computeJoinAcceptMic(deriveJsIntKey(nwkKey, ids.dev_eui), 0xff, ids.join_eui, ids.dev_nonce, plain)
    : computeLegacyJoinAcceptMic(nwkKey, plain);
  const raw = Buffer.concat([plain.subarray(0, 1), encryptJoinAccept(nwkKey, Buffer.concat([plain.subarray(1), acceptMic]))]);

  let keys: JoinSessionKeys;
  if (optNeg) {
    keys = deriveSessionKeys11(nwkKey, appKey, joinNonce, ids.join_eui, ids.dev_nonce);
  } else {
    // 1.0.x: from the AppKey; a 1.1 device joined without OptNeg derives all from its NwkKey.
    const legacyKeys = deriveLegacySessionKeys(v11 ? nwkKey : appKey, joinNonce, request.net_id, ids.dev_nonce);
    keys = { f_nwk_s_int_key: legacyKeys.nwk_s_key, app_s_key: legacyKeys.app_s_key };
  }
  return { raw_payload: raw, keys, join_eui: ids.join_eui, dev_eui: ids.dev_eui, dev_nonce: devNonce, join_nonce: joinNonce, nonces };
}
