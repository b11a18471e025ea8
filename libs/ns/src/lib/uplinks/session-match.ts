import { computeLegacyUplinkMic, computeUplinkMic } from '@lorawan/crypto';
import { fullFCnt, MAX_FCNT_GAP } from '@lorawan/lorawan';
import type { KeyEnvelopeJson } from '@lorawan/registry';
import type { NsDevice, NsMacState, NsSession } from '../model';

/**
 * Which device, and which of its sessions, sent a data uplink (TTS `grpc_gsns.go`
 * matchAndHandleDataUplink, dataplane-notes §4.2): for every candidate session with the frame's
 * DevAddr (current, then pending), the full 32-bit FCnt is recovered from the 16 bits on air, the
 * counter rules are applied (no going back; the same FCnt is a retransmission; before 1.0.4 no
 * gap beyond MAX_FCNT_GAP; `resets_f_cnt` devices may restart), and the MIC is checked with the
 * session's keys (1.0.x: NwkSKey; 1.1: SNwkSIntKey and FNwkSIntKey with the acknowledged FCnt, the
 * data rate and the channel). The first session whose MIC holds is the sender.
 */

export interface DataFrame {
  /** The PHYPayload as received. */
  raw: Buffer;
  dev_addr: string;
  f_cnt: number;
  ack: boolean;
  /** Hz, as the uplink's settings carry it. */
  frequency: string;
  data_rate_index: number;
}

export interface SessionMatch {
  device: NsDevice;
  /** Which session sent it: the current one, or the pending one of a join (which becomes current). */
  which: 'session' | 'pending_session';
  session: NsSession;
  /** The full 32-bit FCnt. */
  f_cnt: number;
  /** The same FCnt again: a retransmission (not forwarded again). */
  retransmission: boolean;
}

const PRE_104 = new Set(['MAC_V1_0', 'MAC_V1_0_1', 'MAC_V1_0_2', 'MAC_V1_0_3']);

export function matchSession(frame: DataFrame, device: NsDevice, openKey: (e: KeyEnvelopeJson) => KeyEnvelopeJson): SessionMatch | undefined {
  for (const which of ['session', 'pending_session'] as const) {
    const session = device[which];
    if (!session || session.dev_addr !== frame.dev_addr) continue;
    const macState = which === 'session' ? device.mac_state : (device.pending_mac_state ?? device.mac_state);
    const version = macState?.lorawan_version ?? device.lorawan_version ?? 'MAC_V1_0_3';
    const f = keyOf(session.keys?.f_nwk_s_int_key, openKey);
    if (!f) continue;
    const s = version === 'MAC_V1_1' ? keyOf(session.keys?.s_nwk_s_int_key, openKey) : f;
    if (!s) continue;
    const supports32 = device.mac_settings?.supports_32_bit_f_cnt ?? true;
    const attempts = [fullFCnt(frame.f_cnt, session.last_f_cnt_up, supports32)];
    // A device that resets its counters (ABP, not LoRaWAN compliant) may start again from the 16 bits on air.
    if (device.mac_settings?.resets_f_cnt && attempts[0] !== frame.f_cnt) attempts.push(frame.f_cnt);
    for (const fCnt of attempts) {
      const last = session.last_f_cnt_up;
      const reset = fCnt !== attempts[0];
      if (last !== undefined && !reset) {
        if (fCnt < last) continue;
        if (PRE_104.has(version) && fCnt - last > MAX_FCNT_GAP) continue;
      }
      if (!micMatches(frame, version, f, s, fCnt, session, macState)) continue;
      return { device, which, session, f_cnt: fCnt, retransmission: last !== undefined && fCnt === last && !reset };
    }
  }
  return undefined;
}

function keyOf(envelope: KeyEnvelopeJson | undefined, openKey: (e: KeyEnvelopeJson) => KeyEnvelopeJson): string | undefined {
  return envelope ? openKey(envelope).key : undefined;
}

function micMatches(frame: DataFrame, version: string, f: string, s: string, fCnt: number, session: NsSession, macState: NsMacState | undefined): boolean {
  const message = frame.raw.subarray(0, frame.raw.length - 4);
  const mic = frame.raw.subarray(frame.raw.length - 4);
  if (version !== 'MAC_V1_1') return computeLegacyUplinkMic(f, frame.dev_addr, fCnt, message).equals(mic);
  const channels = macState?.current_parameters?.channels ?? [];
  const channelIndex = Math.max(
    0,
    channels.findIndex((c) => c.uplink_frequency === frame.frequency),
  );
  const confFCnt = frame.ack ? (session.last_conf_f_cnt_down ?? 0) : 0;
  return computeUplinkMic(s, f, confFCnt, frame.data_rate_index, channelIndex, frame.dev_addr, fCnt, message).equals(mic);
}
