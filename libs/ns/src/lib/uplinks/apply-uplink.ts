import type { JoinRequest, UplinkMessage } from '@lorawan/api';
import type { FrequencyPlan, MacCommandJson, MACPayload, ParsedMacCommands } from '@lorawan/lorawan';
import { ErrFCntReplay } from '../errors';
import { ErrRekeyIndMissing } from '../mac/errors';
import type { MacEvent } from '../mac/mac-draft';
import { effectiveMacSettings } from '../mac/mac-settings';
import { applyUplinkMac } from '../mac/uplink-mac';
import type { NsDevice, NsMacParameters, NsMacSettings, NsMacState, QueuedDownlink, ReceivedUplink } from '../model';
import { uplinkSummary } from '../end-devices/recent-uplinks';
import type { SessionMatch } from './session-match';

/** How many uplinks `recent_adr_uplinks` keeps (the spec: at most 20). */
export const RECENT_ADR_UPLINKS = 20;

/** A data uplink matched to one of its device's sessions (`matchSession`), with what the frame holds. */
export interface DataUplink {
  match: Pick<SessionMatch, 'which' | 'session' | 'f_cnt' | 'retransmission'> & { data_rate_index: number };
  message: ReceivedUplink;
  payload: MACPayload;
  /** The frame's MAC commands, decrypted and read. */
  commands: ParsedMacCommands;
}

/** What applying an uplink depends on besides the device and the uplink. */
export interface UplinkContext {
  /** The device's frequency plan (none: the MAC layer is skipped). */
  plan: FrequencyPlan | undefined;
  /** NS_RECENT_UPLINKS: how many uplinks the MAC state keeps. */
  recentUplinks: number;
  /** NS_DEFAULT_MAC_SETTINGS. */
  macDefaults: NsMacSettings;
}

/** The device after an uplink, the confirmed downlink the uplink answered (if one was waiting), and what its MAC commands did. */
export interface AppliedUplink {
  device: NsDevice;
  answered?: { downlink: QueuedDownlink; acked: boolean };
  /** Published once the device is stored. */
  macEvents: MacEvent[];
  /** LinkCheckReq, DeviceTimeReq: answered in the downlink, with every copy's metadata. */
  afterMerge: MacCommandJson[];
}

/**
 * A data uplink applied to the device as stored (TTS `grpc_gsns.go` handleDataUplink's device
 * update), without side effects: the session that sent it must still be the device's, on the same
 * keys, and its FCnt not behind (`f_cnt_replay` otherwise: another replica, or an earlier copy,
 * moved it on); a pending session becomes the session (its MAC state the MAC state, with what the
 * join-accept told the device); `last_f_cnt_up`, `rx_windows_available`, the MAC state's recent
 * uplinks (`recentUplinks`, only the latest with its tokens and correlation IDs) and the ADR
 * uplinks (at most 20, reset by an uplink without the ADR bit); LoRaWAN 1.1's first uplink of a
 * session must carry RekeyInd (`rekey_ind_missing`); then the MAC layer (`applyUplinkMac`); and the
 * ACK bit answers a confirmed downlink that waited for it. Throws what drops the uplink.
 */
export function applyUplink(device: NsDevice, uplink: DataUplink, context: UplinkContext): AppliedUplink {
  const { match, message, payload, commands } = uplink;
  const { plan } = context;
  const current = device[match.which];
  // Another replica (or an earlier copy's handling) may have moved the session on since the match.
  if (!current || current.dev_addr !== match.session.dev_addr || current.keys?.session_key_id !== match.session.keys?.session_key_id) {
    throw ErrFCntReplay.with({ f_cnt: match.f_cnt, last_f_cnt_up: current?.last_f_cnt_up ?? -1 });
  }
  // A retransmission repeats the latest FCnt; a lower one, or a new frame on the latest FCnt, is a replay.
  const last = current.last_f_cnt_up;
  if (last !== undefined && (match.f_cnt < last || (match.f_cnt === last && !match.retransmission))) {
    throw ErrFCntReplay.with({ f_cnt: match.f_cnt, last_f_cnt_up: last });
  }
  const session = { ...current, last_f_cnt_up: match.f_cnt };
  // A device without MAC state (stored before it had one) starts from an empty one.
  let macState = (match.which === 'pending_session' ? device.pending_mac_state : device.mac_state) ?? ({} as NsMacState);
  // The device's `recent_uplinks` is the MAC state's, summarized when it is read (`presentNsDevice`): not stored twice.
  // (Fields leave by destructuring, not `delete`, here and below: the device is copied and written on every uplink, and V8 copies a deleted-from object slowly.)
  const { recent_uplinks: _summarized, ...kept } = device;
  let next: NsDevice = { ...kept, session };
  if (match.which === 'pending_session') {
    // The join is done: the pending session and MAC state become current, with what the join-accept told the device (TTS; 1.1's RekeyInd comes with the MAC layer).
    const { pending_join_request: request, queued_join_accept: _accept, ...rest } = macState;
    macState = { ...rest, current_parameters: joinedParameters(rest, request) };
    const { pending_session: _session, pending_mac_state: _macState, ...joined } = next;
    next = joined;
    next.ids = { ...device.ids, dev_addr: session.dev_addr };
  }
  const recent = recentUplink(message, payload);
  const summary = uplinkSummary(recent);
  // Only the latest uplink keeps its tokens (the downlink paths of a class C downlink) and correlation IDs (TTS).
  const earlier = (macState.recent_uplinks ?? []).slice(1 - context.recentUplinks).map(uplinkSummary);
  next.mac_state = { ...macState, rx_windows_available: true, recent_uplinks: [...earlier, recent] };
  // The seed's rule: at most 20, reset by every uplink without the ADR bit.
  next.recent_adr_uplinks = payload.f_hdr.f_ctrl.adr ? [...(device.recent_adr_uplinks ?? []), summary].slice(-RECENT_ADR_UPLINKS) : [];
  // LoRaWAN 1.1: the device shows it took the join-accept with RekeyInd (TTS drops a first uplink without it).
  const version = (match.which === 'pending_session' ? device.lorawan_version : macState.lorawan_version) ?? device.lorawan_version;
  if (match.which === 'pending_session' && version === 'MAC_V1_1' && !commands.commands.some((c) => c.cid === 'CID_REKEY')) throw ErrRekeyIndMissing.with();
  let macEvents: MacEvent[] = [];
  let afterMerge: MacCommandJson[] = [];
  if (plan) {
    const mac = applyUplinkMac(next, next.mac_state, {
      commands,
      f_cnt: match.f_cnt,
      received_at: message.received_at,
      dev_addr: session.dev_addr ?? '',
      plan,
      settings: effectiveMacSettings(device.mac_settings, context.macDefaults),
      retransmission: match.retransmission,
      class_b: payload.f_hdr.f_ctrl.class_b ?? false,
      adr: payload.f_hdr.f_ctrl.adr,
      data_rate_index: match.data_rate_index,
      recent_adr_uplinks: next.recent_adr_uplinks,
    });
    Object.assign(next, mac.device);
    macEvents = mac.events;
    afterMerge = mac.after_merge;
  }
  // A confirmed downlink waiting for the device's answer: this uplink's ACK bit is it (TTS: downlink_ack or downlink_nack).
  const pending = next.mac_state?.pending_application_downlink;
  let answered: AppliedUplink['answered'];
  if (pending && !match.retransmission && next.mac_state) {
    answered = { downlink: pending, acked: payload.f_hdr.f_ctrl.ack };
    const { pending_application_downlink: _answered, ...state } = next.mac_state;
    next.mac_state = state;
  }
  return { device: next, answered, macEvents, afterMerge };
}

/** The MAC parameters a device uses once it took its join-accept: its RX1 delay, RX1 DR offset, RX2 data rate and (with a CFList) the plan's channels. */
function joinedParameters(macState: Partial<NsMacState>, request: JoinRequest | undefined): NsMacParameters {
  const current = macState.current_parameters ?? {};
  if (!request) return current;
  const desired = macState.desired_parameters ?? {};
  return {
    ...current,
    ...(request.rx_delay !== undefined ? { rx1_delay: request.rx_delay } : {}),
    ...(request.downlink_settings?.rx1_dr_offset !== undefined ? { rx1_data_rate_offset: request.downlink_settings.rx1_dr_offset } : {}),
    ...(request.downlink_settings?.rx2_dr !== undefined ? { rx2_data_rate_index: request.downlink_settings.rx2_dr } : {}),
    ...(request.cf_list && desired.channels ? { channels: desired.channels } : {}),
  };
}

/** An uplink as the MAC state keeps it (TTS `MACState.UplinkMessage`: what ADR and downlink paths need). */
function recentUplink(message: ReceivedUplink, payload: MACPayload): UplinkMessage {
  const settings = message.settings ?? {};
  return {
    payload: { mac_payload: { f_hdr: { f_ctrl: payload.f_hdr.f_ctrl, f_cnt: payload.f_hdr.f_cnt }, f_port: payload.f_port } },
    settings: { data_rate: settings.data_rate, frequency: settings.frequency },
    rx_metadata: (message.rx_metadata ?? []).map((md) => ({
      gateway_ids: md.gateway_ids,
      channel_rssi: md.channel_rssi,
      snr: md.snr,
      uplink_token: md.uplink_token,
    })),
    received_at: message.received_at,
    correlation_ids: message.correlation_ids,
  };
}
