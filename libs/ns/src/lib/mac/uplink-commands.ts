import { DeviceEIRP, NS_MAC_EVENTS } from '@lorawan/api';
import { isStackError } from '@lorawan/errors';
import { applyLinkAdrChannelMasks, type FrequencyPlan, type MacCommandJson, type ParsedMacCommands } from '@lorawan/lorawan';
import { newMacState } from '../mac-state/new-mac-state';
import { ErrInvalidMacPayload, ErrTruncatedMacCommand } from './errors';
import { addSorted, emit, type Json, type MacDraft, type MacParameters, queueResponse, setCurrent, takeRequest } from './mac-draft';

/** What the MAC layer needs of the uplink that carried the commands. */
export interface MacUplink {
  f_cnt: number;
  received_at: string;
  dev_addr: string;
  plan: FrequencyPlan;
  /** The MAC settings that apply (`effectiveMacSettings`). */
  settings: Json;
  /** A retransmission: answers were applied the first time (TTS skips them). */
  retransmission: boolean;
}

/** Commands answered once every copy of the uplink is in (their answers need all gateways' metadata: TTS's deferred handlers). */
export const AFTER_MERGE: ReadonlySet<string> = new Set(['CID_LINK_CHECK', 'CID_DEVICE_TIME']);

type Handler = (draft: MacDraft, payload: Json, up: MacUplink) => void;

const E = NS_MAC_EVENTS;
const minorOf = (payload: Json) => (payload.minor_version as string | undefined) ?? 'MINOR_RFU_0';

/** Device-initiated commands (requests and indications): handled in retransmissions too. */
const DEVICE_INITIATED: Record<string, Handler> = {
  CID_RESET: (draft, ind, up) => {
    emit(draft, E.reset.indication, ind);
    // OTAA devices reset through a join; for them ResetInd is only an event (TTS).
    if (draft.device.supports_join) return;
    const fresh = newMacState({ lorawan_version: draft.device.lorawan_version ?? 'MAC_V1_1', frequencyPlan: up.plan, mac_settings: up.settings as never });
    const conf = { minor_version: minorOf(ind) };
    draft.state = {
      ...(fresh as unknown as MacDraft['state']),
      lorawan_version: draft.device.lorawan_version,
      recent_uplinks: draft.state.recent_uplinks,
      queued_responses: [...(draft.state.queued_responses ?? []), { cid: 'CID_RESET', reset_conf: conf }],
    };
    emit(draft, E.reset.confirmation, conf);
  },
  CID_REKEY: (draft, ind) => {
    emit(draft, E.rekey.indication, ind);
    if (!draft.device.supports_join) return;
    // The session switch itself happens where the uplink matched its session (`applyRekey`).
    const conf = { minor_version: 'MINOR_1' };
    draft.state.lorawan_version = 'MAC_V1_1';
    queueResponse(draft, { cid: 'CID_REKEY', rekey_conf: conf });
    emit(draft, E.rekey.confirmation, conf);
  },
  CID_DEVICE_MODE: (draft, ind) => {
    emit(draft, E.deviceMode.indication, ind);
    const named = ind.class as string;
    // A class C device only when it supports class C; class A always (TTS `device_mode.go`). The confirmation names the class the device is now in.
    const to = named === 'CLASS_C' && draft.device.supports_class_c ? 'CLASS_C' : named === 'CLASS_A' ? 'CLASS_A' : (draft.state.device_class ?? 'CLASS_A');
    switchClass(draft, to);
    const conf = { class: to };
    queueResponse(draft, { cid: 'CID_DEVICE_MODE', device_mode_conf: conf });
    emit(draft, E.deviceMode.confirmation, conf);
  },
  CID_PING_SLOT_INFO: (draft, req) => {
    emit(draft, E.pingSlotInfo.request, req);
    draft.state.ping_slot_periodicity = req.period as string;
    queueResponse(draft, { cid: 'CID_PING_SLOT_INFO', ping_slot_info_ans: {} });
    emit(draft, E.pingSlotInfo.answer, {});
  },
};

/** Answers to the network's requests (TTS `mac/*.go` Handle…Ans): each takes its request out of `pending_requests`. */
const ANSWERS: Record<string, Handler> = {
  CID_DUTY_CYCLE: (draft, ans) => {
    const req = takeRequest(draft, 'CID_DUTY_CYCLE', 'duty_cycle_req');
    setCurrent(draft, { max_duty_cycle: (req.max_duty_cycle as string | undefined) ?? 'DUTY_CYCLE_1' });
    emit(draft, E.dutyCycle.answer, ans);
  },
  CID_RX_PARAM_SETUP: (draft, ans) => {
    const req = takeRequest(draft, 'CID_RX_PARAM_SETUP', 'rx_param_setup_req');
    if (!(ans.rx1_data_rate_offset_ack && ans.rx2_data_rate_index_ack && ans.rx2_frequency_ack)) return emit(draft, E.rxParamSetup.reject, ans);
    setCurrent(draft, {
      rx1_data_rate_offset: num(req.rx1_data_rate_offset),
      rx2_data_rate_index: num(req.rx2_data_rate_index),
      rx2_frequency: String(req.rx2_frequency),
    });
    emit(draft, E.rxParamSetup.accept, ans);
  },
  CID_DEV_STATUS: (draft, ans, up) => {
    takeRequest(draft, 'CID_DEV_STATUS', 'dev_status_req');
    const battery = num(ans.battery);
    const margin = num(ans.margin);
    if (!Number.isInteger(battery) || battery < 0 || battery > 255 || !Number.isInteger(margin) || margin < -32 || margin > 31)
      throw ErrInvalidMacPayload.with({ reason: 'DevStatusAns battery must be 0..255 and margin −32..31' });
    // dataplane-notes §4.4: 0 external power, 255 unknown, 1..254 the battery level.
    const device = draft.device;
    delete device.battery_percentage;
    if (battery === 0) device.power_state = 'POWER_EXTERNAL';
    else if (battery === 255) device.power_state = 'POWER_UNKNOWN';
    else {
      device.power_state = 'POWER_BATTERY';
      device.battery_percentage = (battery - 1) / 253;
    }
    device.downlink_margin = margin;
    device.last_dev_status_received_at = up.received_at;
    draft.state.last_dev_status_f_cnt_up = up.f_cnt;
    emit(draft, E.devStatus.answer, ans);
  },
  CID_NEW_CHANNEL: (draft, ans) => {
    const req = takeRequest(draft, 'CID_NEW_CHANNEL', 'new_channel_req');
    const frequency = String(req.frequency ?? '0');
    if (!(ans.frequency_ack && ans.data_rate_ack)) {
      if (!ans.frequency_ack) draft.state.rejected_frequencies = addSorted(draft.state.rejected_frequencies, frequency);
      return emit(draft, E.newChannel.reject, ans);
    }
    const index = num(req.channel_index);
    const channels = [...(draft.state.current_parameters.channels ?? [])];
    if (frequency === '0') {
      if (channels[index]) channels[index] = { ...channels[index], enable_uplink: false };
    } else {
      while (channels.length < index)
        channels.push({ uplink_frequency: '0', downlink_frequency: '0', min_data_rate_index: 0, max_data_rate_index: 0 } as never);
      channels[index] = {
        ...channels[index],
        uplink_frequency: frequency,
        downlink_frequency:
          channels[index]?.downlink_frequency && channels[index].uplink_frequency === frequency ? channels[index].downlink_frequency : frequency,
        min_data_rate_index: num(req.min_data_rate_index),
        max_data_rate_index: num(req.max_data_rate_index),
        enable_uplink: true,
      } as never;
    }
    setCurrent(draft, { channels });
    emit(draft, E.newChannel.accept, ans);
  },
  CID_RX_TIMING_SETUP: (draft, ans) => {
    const req = takeRequest(draft, 'CID_RX_TIMING_SETUP', 'rx_timing_setup_req');
    setCurrent(draft, { rx1_delay: num(req.delay) || 1 });
    emit(draft, E.rxTimingSetup.answer, ans);
  },
  CID_TX_PARAM_SETUP: (draft, ans) => {
    const req = takeRequest(draft, 'CID_TX_PARAM_SETUP', 'tx_param_setup_req');
    setCurrent(draft, {
      max_eirp: deviceEirp(req.max_eirp_index) ?? draft.state.current_parameters.max_eirp,
      uplink_dwell_time: Boolean(req.uplink_dwell_time),
      downlink_dwell_time: Boolean(req.downlink_dwell_time),
    });
    emit(draft, E.txParamSetup.answer, ans);
  },
  CID_DL_CHANNEL: (draft, ans) => {
    const req = takeRequest(draft, 'CID_DL_CHANNEL', 'dl_channel_req');
    const frequency = String(req.frequency ?? '0');
    if (!(ans.channel_index_ack && ans.frequency_ack)) {
      if (!ans.frequency_ack) draft.state.rejected_frequencies = addSorted(draft.state.rejected_frequencies, frequency);
      return emit(draft, E.dlChannel.reject, ans);
    }
    const index = num(req.channel_index);
    const channels = [...(draft.state.current_parameters.channels ?? [])];
    if (!channels[index]) throw ErrInvalidMacPayload.with({ reason: `DlChannelAns for channel ${index}, which the device does not have` });
    channels[index] = { ...channels[index], downlink_frequency: frequency };
    setCurrent(draft, { channels });
    emit(draft, E.dlChannel.accept, ans);
  },
  CID_ADR_PARAM_SETUP: (draft, ans) => {
    const req = takeRequest(draft, 'CID_ADR_PARAM_SETUP', 'adr_param_setup_req');
    setCurrent(draft, { adr_ack_limit_exponent: req.adr_ack_limit_exponent as string, adr_ack_delay_exponent: req.adr_ack_delay_exponent as string });
    emit(draft, E.adrParamSetup.answer, ans);
  },
  CID_REJOIN_PARAM_SETUP: (draft, ans) => {
    const req = takeRequest(draft, 'CID_REJOIN_PARAM_SETUP', 'rejoin_param_setup_req');
    setCurrent(draft, {
      rejoin_count_periodicity: req.max_count_exponent as string,
      ...(ans.max_time_exponent_ack ? { rejoin_time_periodicity: req.max_time_exponent as string } : {}),
    });
    emit(draft, E.rejoinParamSetup.answer, ans);
  },
  CID_PING_SLOT_CHANNEL: (draft, ans) => {
    const req = takeRequest(draft, 'CID_PING_SLOT_CHANNEL', 'ping_slot_channel_req');
    if (!(ans.frequency_ack && ans.data_rate_index_ack)) return emit(draft, E.pingSlotChannel.reject, ans);
    setCurrent(draft, { ping_slot_frequency: String(req.frequency), ping_slot_data_rate_index_value: num(req.data_rate_index) });
    emit(draft, E.pingSlotChannel.accept, ans);
  },
  CID_BEACON_FREQ: (draft, ans) => {
    const req = takeRequest(draft, 'CID_BEACON_FREQ', 'beacon_freq_req');
    if (!ans.frequency_ack) return emit(draft, E.beaconFreq.reject, ans);
    setCurrent(draft, { beacon_frequency: String(req.frequency) });
    emit(draft, E.beaconFreq.accept, ans);
  },
};

/**
 * LinkADRAns (TTS `link_adr.go` HandleLinkADRAns): a block of answers, one per LinkADRReq of the
 * block the network sent (LoRaWAN 1.0.2+ answer each; older devices once). All acknowledged: the
 * channel masks, data rate, TX power and NbTrans of the requests hold. Otherwise nothing changes,
 * and a refused data rate or TX power is remembered so ADR does not ask for it again.
 */
function handleLinkAdrAns(draft: MacDraft, answers: Json[], up: MacUplink): void {
  const pending = draft.state.pending_requests ?? [];
  const requests = pending.filter((c) => c.cid === 'CID_LINK_ADR').map((c) => (c.link_adr_req ?? {}) as Json);
  if (requests.length === 0) takeRequest(draft, 'CID_LINK_ADR', 'link_adr_req');
  draft.state.pending_requests = pending.filter((c) => c.cid !== 'CID_LINK_ADR');
  const ans = answers[answers.length - 1];
  const last = requests[requests.length - 1];
  if (!(ans.channel_mask_ack && ans.data_rate_index_ack && ans.tx_power_index_ack)) {
    if (!ans.data_rate_index_ack && num(last.data_rate_index) !== 15)
      draft.state.rejected_adr_data_rate_indexes = addSorted(draft.state.rejected_adr_data_rate_indexes, num(last.data_rate_index));
    if (!ans.tx_power_index_ack && num(last.tx_power_index) !== 15)
      draft.state.rejected_adr_tx_power_indexes = addSorted(draft.state.rejected_adr_tx_power_indexes, num(last.tx_power_index));
    return emit(draft, E.linkAdr.reject, ans);
  }
  const current = draft.state.current_parameters;
  const channels = current.channels ?? [];
  const blocks = requests.map((r) => ({ channel_mask: (r.channel_mask as boolean[] | undefined) ?? [], channel_mask_control: num(r.channel_mask_control) }));
  const enabled = applyLinkAdrChannelMasks(
    up.plan.band_id,
    channels.map((c) => c.enable_uplink ?? false),
    blocks,
  );
  if (!enabled) throw ErrInvalidMacPayload.with({ reason: 'the acknowledged LinkADRReq channel masks are invalid for the band' });
  const changed: MacParameters = { channels: channels.map((c, i) => ({ ...c, enable_uplink: enabled[i] ?? false })) };
  // 15 (LoRaWAN 1.0.4+): keep the current value.
  if (num(last.data_rate_index) !== 15) changed.adr_data_rate_index = num(last.data_rate_index);
  if (num(last.tx_power_index) !== 15) changed.adr_tx_power_index = num(last.tx_power_index);
  changed.adr_nb_trans = num(last.nb_trans) || 1;
  if (JSON.stringify(enabled) !== JSON.stringify(channels.map((c) => c.enable_uplink ?? false))) {
    // The spec: rejected data rates are forgotten when the channels change.
    delete draft.state.rejected_adr_data_rate_indexes;
  }
  setCurrent(draft, changed);
  emit(draft, E.linkAdr.accept, ans);
}

/** TxParamSetupReq's MaxEIRP (`DEVICE_EIRP_16`) in dBm: the enum name spells it. */
export function deviceEirp(name: unknown): number | undefined {
  const parsed = DeviceEIRP.parse(name);
  return parsed === undefined ? undefined : Number(parsed.slice('DEVICE_EIRP_'.length));
}

/** The largest MaxEIRP of TxParamSetupReq not above `dBm` (the lowest when none is). */
export function deviceEirpAtMost(dBm: number): string {
  return DeviceEIRP.names.filter((name) => (deviceEirp(name) ?? Infinity) <= dBm).at(-1) ?? DeviceEIRP.names[0];
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(v ?? 0);
}

/** Device class changes (`ns.class.switch.*`). */
export function switchClass(draft: MacDraft, to: string): void {
  const from = draft.state.device_class ?? 'CLASS_A';
  if (from === to) return;
  draft.state.device_class = to;
  const event = to === 'CLASS_B' ? E.classSwitch.b : to === 'CLASS_C' ? E.classSwitch.c : E.classSwitch.a;
  emit(draft, event, from);
}

/**
 * The MAC commands of an uplink, in order (TTS `grpc_gsns.go` macLoop): `queued_responses` start
 * empty (regenerated each uplink); answers take their request out of `pending_requests`;
 * device-initiated commands queue their answer or confirmation. Reading stops at a command the
 * specification does not define for uplinks (`ns.mac.command.unknown`) or one cut short
 * (`ns.mac.command.parse.fail`), and handling stops at one that cannot be applied — an answer
 * without request, a value out of range (`ns.mac.command.process.fail`): the rest of the frame is
 * ignored, as LoRaWAN requires. What the commands changed before stays. Requests the uplink left
 * unanswered are dropped (`ns.mac.command.unanswered`; the next downlink asks again). LinkCheckReq
 * and DeviceTimeReq are returned to be answered after the merge window.
 */
export function handleUplinkCommands(draft: MacDraft, parsed: ParsedMacCommands, up: MacUplink): MacCommandJson[] {
  draft.state.queued_responses = [];
  if (up.retransmission) draft.state.pending_requests = [];
  const afterMerge: MacCommandJson[] = [];
  const commands = parsed.commands;
  let i = 0;
  for (; i < commands.length; i++) {
    const command = commands[i];
    const field = Object.keys(command).find((k) => k !== 'cid') ?? '';
    const payload = (command[field] ?? {}) as Json;
    try {
      if (AFTER_MERGE.has(command.cid)) afterMerge.push(command);
      else if (DEVICE_INITIATED[command.cid]) DEVICE_INITIATED[command.cid](draft, payload, up);
      else if (up.retransmission) continue;
      else if (command.cid === 'CID_LINK_ADR') {
        const block = [payload];
        while (commands[i + 1]?.cid === 'CID_LINK_ADR') block.push((commands[++i].link_adr_ans ?? {}) as Json);
        handleLinkAdrAns(draft, block, up);
      } else if (ANSWERS[command.cid]) ANSWERS[command.cid](draft, payload, up);
      else {
        emit(draft, E.unknown, command);
        break;
      }
    } catch (err) {
      if (!isStackError(err)) throw err;
      emit(draft, E.processFail, err.toDetails());
      break;
    }
  }
  if (parsed.stopped && i >= commands.length) {
    const { cid, offset, reason } = parsed.stopped;
    const name = `0x${cid.toString(16).padStart(2, '0')}`;
    if (reason === 'unknown') emit(draft, E.unknown, { cid: name });
    else emit(draft, E.parseFail, ErrTruncatedMacCommand.with({ cid: name, offset }).toDetails());
  }
  const unanswered = draft.state.pending_requests ?? [];
  if (unanswered.length > 0) emit(draft, E.unanswered, { commands: unanswered });
  draft.state.pending_requests = [];
  return afterMerge;
}
