import { MACCommandIdentifier, NS_MAC_EVENTS } from '@lorawan/api';
import { type FrequencyPlan, getBand, linkAdrChannelMasks, type MacCommandJson, macCommandLength } from '@lorawan/lorawan';
import { emit, type Json, type MacDraft, type MacParameters } from './mac-draft';
import { statusCountPeriodicity, statusTimePeriodicityMs, useAdr } from './mac-settings';
import { deviceEirpAtMost } from './uplink-commands';

/** What the MAC layer needs to fill a class A downlink. */
export interface MacDownlink {
  plan: FrequencyPlan;
  /** The MAC settings that apply (`effectiveMacSettings`). */
  settings: Json;
  /** Unix ms the downlink goes out at (DevStatusReq's time periodicity). */
  now: number;
  /** The session's last FCntUp (DevStatusReq's count periodicity). */
  f_cnt_up: number;
  /** Bytes the downlink has for MAC commands. */
  max_down: number;
  /** Bytes the device's next uplink has for the answers. */
  max_up: number;
}

export interface DownlinkCommands {
  /** In frame order: the queued answers, then the requests. */
  commands: MacCommandJson[];
  /** Not everything fit: FPending tells the device to open a window again. */
  f_pending: boolean;
}

const E = NS_MAC_EVENTS;
/** A CID's number (`CID_LINK_ADR` → 3). */
const cidCode = (cid: string): number => (MACCommandIdentifier.values as Record<string, number>)[cid] ?? -1;
const VERSIONS = ['MAC_V1_0', 'MAC_V1_0_1', 'MAC_V1_0_2', 'MAC_V1_0_3', 'MAC_V1_0_4', 'MAC_V1_1'];
const atLeast = (version: string | undefined, min: string) => VERSIONS.indexOf(version ?? 'MAC_V1_0_3') >= VERSIONS.indexOf(min);

/** Space left in the downlink and the uplink that answers it. */
interface Budget {
  down: number;
  up: number;
  full: boolean;
}

/** Adds requests of one CID if they and their answers fit (TTS `enqueueMACCommand`); false when they did not. */
function enqueue(draft: MacDraft, budget: Budget, requests: MacCommandJson[], event?: { event: Parameters<typeof emit>[1]; field: string }): boolean {
  if (requests.length === 0) return true;
  const code = cidCode(requests[0].cid);
  const down = (1 + (macCommandLength(code, 'downlink') ?? 0)) * requests.length;
  // Every request is answered, except those the device answers once for a block (LinkADRReq before 1.0.2 answers once; counting each is the safe side).
  const up = (1 + (macCommandLength(code, 'uplink') ?? 0)) * requests.length;
  if (down > budget.down || up > budget.up) {
    budget.full = true;
    return false;
  }
  budget.down -= down;
  budget.up -= up;
  draft.state.pending_requests = [...(draft.state.pending_requests ?? []), ...requests];
  if (event) for (const r of requests) emit(draft, event.event, r[event.field] ?? {});
  return true;
}

const sameChannels = (a: MacParameters['channels'], b: MacParameters['channels']) =>
  JSON.stringify((a ?? []).map((c) => c.enable_uplink ?? false)) === JSON.stringify((b ?? []).map((c) => c.enable_uplink ?? false));

/** The requests the network makes while current and desired parameters differ (TTS `downlink.go` enqueuers, in its order). */
const ENQUEUERS: Array<(draft: MacDraft, budget: Budget, down: MacDownlink) => void> = [
  // DutyCycleReq
  (draft, budget) => {
    const { current_parameters: c, desired_parameters: d } = draft.state;
    if (!d.max_duty_cycle || d.max_duty_cycle === c.max_duty_cycle) return;
    enqueue(draft, budget, [{ cid: 'CID_DUTY_CYCLE', duty_cycle_req: { max_duty_cycle: d.max_duty_cycle } }], {
      event: E.dutyCycle.request,
      field: 'duty_cycle_req',
    });
  },
  // TxParamSetupReq (bands with dwell time rules, LoRaWAN 1.0.2+)
  (draft, budget, down) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    if (!getBand(down.plan.band_id).tx_param_setup_req_support || !atLeast(v, 'MAC_V1_0_2')) return;
    if (d.max_eirp === c.max_eirp && d.uplink_dwell_time === c.uplink_dwell_time && d.downlink_dwell_time === c.downlink_dwell_time) return;
    const req = {
      max_eirp_index: deviceEirpAtMost(d.max_eirp ?? 16),
      uplink_dwell_time: d.uplink_dwell_time ?? false,
      downlink_dwell_time: d.downlink_dwell_time ?? false,
    };
    enqueue(draft, budget, [{ cid: 'CID_TX_PARAM_SETUP', tx_param_setup_req: req }], { event: E.txParamSetup.request, field: 'tx_param_setup_req' });
  },
  // RxParamSetupReq
  (draft, budget) => {
    const { current_parameters: c, desired_parameters: d } = draft.state;
    const want = {
      rx1_data_rate_offset: d.rx1_data_rate_offset ?? c.rx1_data_rate_offset ?? 0,
      rx2_data_rate_index: d.rx2_data_rate_index ?? c.rx2_data_rate_index ?? 0,
      rx2_frequency: d.rx2_frequency ?? c.rx2_frequency,
    };
    if (
      want.rx1_data_rate_offset === (c.rx1_data_rate_offset ?? 0) &&
      want.rx2_data_rate_index === c.rx2_data_rate_index &&
      String(want.rx2_frequency) === String(c.rx2_frequency)
    )
      return;
    enqueue(draft, budget, [{ cid: 'CID_RX_PARAM_SETUP', rx_param_setup_req: want }], { event: E.rxParamSetup.request, field: 'rx_param_setup_req' });
  },
  // NewChannelReq (bands whose channels the network defines)
  (draft, budget, down) => {
    if (getBand(down.plan.band_id).cf_list_type !== 'FREQUENCIES') return;
    const { current_parameters: c, desired_parameters: d } = draft.state;
    const current = c.channels ?? [];
    const desired = d.channels ?? [];
    const rejected = new Set(draft.state.rejected_frequencies ?? []);
    const requests: MacCommandJson[] = [];
    for (let i = 0; i < Math.max(current.length, desired.length); i++) {
      const want = desired[i];
      const have = current[i];
      if (!want) {
        if (have?.enable_uplink) requests.push({ cid: 'CID_NEW_CHANNEL', new_channel_req: { channel_index: i, frequency: '0' } });
        continue;
      }
      if (
        have &&
        have.uplink_frequency === want.uplink_frequency &&
        have.min_data_rate_index === want.min_data_rate_index &&
        have.max_data_rate_index === want.max_data_rate_index
      )
        continue;
      if (!want.uplink_frequency || rejected.has(want.uplink_frequency)) continue;
      requests.push({
        cid: 'CID_NEW_CHANNEL',
        new_channel_req: {
          channel_index: i,
          frequency: want.uplink_frequency,
          min_data_rate_index: want.min_data_rate_index ?? 0,
          max_data_rate_index: want.max_data_rate_index ?? 0,
        },
      });
    }
    enqueueFitting(draft, budget, requests, E.newChannel.request, 'new_channel_req');
  },
  // LinkADRReq: after NewChannelReq (the mask counts the channels those add); the channels the plan wants, and with ADR its data rate, TX power and NbTrans.
  (draft, budget, down) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    const adr = useAdr(down.settings);
    const adrChange =
      adr &&
      d.adr_data_rate_index !== undefined &&
      (d.adr_data_rate_index !== c.adr_data_rate_index || d.adr_tx_power_index !== c.adr_tx_power_index || d.adr_nb_trans !== c.adr_nb_trans);
    const channelChange = !sameChannels(c.channels, d.channels);
    if (!adrChange && !channelChange) return;
    const keep = atLeast(v, 'MAC_V1_0_4');
    const dataRate = adr ? (d.adr_data_rate_index ?? 0) : keep ? 15 : (c.adr_data_rate_index ?? 0);
    const txPower = adr ? (d.adr_tx_power_index ?? 0) : keep ? 15 : (c.adr_tx_power_index ?? 0);
    const nbTrans = adr ? (d.adr_nb_trans ?? 1) : (c.adr_nb_trans ?? 1);
    const blocks = linkAdrChannelMasks(
      down.plan.band_id,
      (d.channels ?? []).map((ch) => ch.enable_uplink ?? false),
    );
    const requests = blocks.map((b) => ({
      cid: 'CID_LINK_ADR',
      link_adr_req: {
        data_rate_index: dataRate,
        tx_power_index: txPower,
        nb_trans: nbTrans,
        channel_mask: b.channel_mask,
        channel_mask_control: b.channel_mask_control,
      },
    }));
    enqueue(draft, budget, requests, { event: E.linkAdr.request, field: 'link_adr_req' });
  },
  // RxTimingSetupReq
  (draft, budget) => {
    const { current_parameters: c, desired_parameters: d } = draft.state;
    if (d.rx1_delay === undefined || Number(d.rx1_delay) === Number(c.rx1_delay)) return;
    enqueue(draft, budget, [{ cid: 'CID_RX_TIMING_SETUP', rx_timing_setup_req: { delay: Number(d.rx1_delay) } }], {
      event: E.rxTimingSetup.request,
      field: 'rx_timing_setup_req',
    });
  },
  // BeaconFreqReq and PingSlotChannelReq (class B devices)
  (draft, budget) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    if (!draft.device.supports_class_b || !atLeast(v, 'MAC_V1_0_3')) return;
    if (d.beacon_frequency !== undefined && String(d.beacon_frequency) !== String(c.beacon_frequency ?? ''))
      enqueue(draft, budget, [{ cid: 'CID_BEACON_FREQ', beacon_freq_req: { frequency: String(d.beacon_frequency) } }], {
        event: E.beaconFreq.request,
        field: 'beacon_freq_req',
      });
    const frequency = d.ping_slot_frequency ?? c.ping_slot_frequency;
    const dataRate = d.ping_slot_data_rate_index_value ?? c.ping_slot_data_rate_index_value;
    if (frequency === undefined || dataRate === undefined) return;
    if (String(frequency) === String(c.ping_slot_frequency ?? '') && dataRate === c.ping_slot_data_rate_index_value) return;
    enqueue(draft, budget, [{ cid: 'CID_PING_SLOT_CHANNEL', ping_slot_channel_req: { frequency: String(frequency), data_rate_index: dataRate } }], {
      event: E.pingSlotChannel.request,
      field: 'ping_slot_channel_req',
    });
  },
  // DlChannelReq (LoRaWAN 1.0.2+, bands whose channels the network defines)
  (draft, budget, down) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    if (getBand(down.plan.band_id).cf_list_type !== 'FREQUENCIES' || !atLeast(v, 'MAC_V1_0_2')) return;
    const rejected = new Set(draft.state.rejected_frequencies ?? []);
    const requests: MacCommandJson[] = [];
    (d.channels ?? []).forEach((want, i) => {
      const have = (c.channels ?? [])[i];
      const downlinkFrequency = want.downlink_frequency;
      if (!have || have.uplink_frequency !== want.uplink_frequency || !downlinkFrequency) return;
      if (have.downlink_frequency === downlinkFrequency || rejected.has(downlinkFrequency)) return;
      requests.push({ cid: 'CID_DL_CHANNEL', dl_channel_req: { channel_index: i, frequency: downlinkFrequency } });
    });
    enqueueFitting(draft, budget, requests, E.dlChannel.request, 'dl_channel_req');
  },
  // ADRParamSetupReq (LoRaWAN 1.1)
  (draft, budget) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    if (!atLeast(v, 'MAC_V1_1') || !d.adr_ack_limit_exponent || !d.adr_ack_delay_exponent) return;
    if (d.adr_ack_limit_exponent === c.adr_ack_limit_exponent && d.adr_ack_delay_exponent === c.adr_ack_delay_exponent) return;
    const req = { adr_ack_limit_exponent: d.adr_ack_limit_exponent, adr_ack_delay_exponent: d.adr_ack_delay_exponent };
    enqueue(draft, budget, [{ cid: 'CID_ADR_PARAM_SETUP', adr_param_setup_req: req }], { event: E.adrParamSetup.request, field: 'adr_param_setup_req' });
  },
  // RejoinParamSetupReq (LoRaWAN 1.1)
  (draft, budget) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    if (!atLeast(v, 'MAC_V1_1') || !d.rejoin_time_periodicity || !d.rejoin_count_periodicity) return;
    if (d.rejoin_time_periodicity === c.rejoin_time_periodicity && d.rejoin_count_periodicity === c.rejoin_count_periodicity) return;
    const req = { max_time_exponent: d.rejoin_time_periodicity, max_count_exponent: d.rejoin_count_periodicity };
    enqueue(draft, budget, [{ cid: 'CID_REJOIN_PARAM_SETUP', rejoin_param_setup_req: req }], {
      event: E.rejoinParamSetup.request,
      field: 'rejoin_param_setup_req',
    });
  },
  // DevStatusReq (TTS `dev_status.go` DeviceNeedsDevStatusReq)
  (draft, budget, down) => {
    const count = statusCountPeriodicity(down.settings);
    const time = statusTimePeriodicityMs(down.settings);
    const lastAt = draft.device.last_dev_status_received_at as string | undefined;
    const needs =
      ((count !== 0 || time !== 0) && !lastAt) ||
      (count !== 0 && (draft.state.last_dev_status_f_cnt_up ?? 0) + count <= down.f_cnt_up) ||
      (time !== 0 && lastAt !== undefined && Date.parse(lastAt) + time <= down.now);
    if (!needs) return;
    enqueue(draft, budget, [{ cid: 'CID_DEV_STATUS', dev_status_req: {} }], { event: E.devStatus.request, field: 'dev_status_req' });
  },
];

/** As many of the requests as fit, in order. */
function enqueueFitting(draft: MacDraft, budget: Budget, requests: MacCommandJson[], event: Parameters<typeof emit>[1], field: string): void {
  for (const r of requests) if (!enqueue(draft, budget, [r], { event, field })) return;
}

/**
 * The MAC commands of a class A downlink (TTS `downlink.go` generateDataDownlink): the answers the
 * last uplink queued first (what does not fit waits, FPending), then the requests for every
 * parameter whose desired value differs from the current one, while they and their answers fit.
 * The requests become `pending_requests` (regenerated on each downlink), and `queued_responses`
 * empty; the caller stores `draft.state` once the downlink is scheduled.
 */
export function downlinkCommands(draft: MacDraft, down: MacDownlink): DownlinkCommands {
  const budget: Budget = { down: down.max_down, up: down.max_up, full: false };
  const answers: MacCommandJson[] = [];
  for (const answer of draft.state.queued_responses ?? []) {
    const length = 1 + (macCommandLength(cidCode(answer.cid), 'downlink') ?? 0);
    if (length > budget.down) {
      budget.full = true;
      break;
    }
    budget.down -= length;
    answers.push(answer);
  }
  draft.state.queued_responses = [];
  draft.state.pending_requests = [];
  for (const enqueuer of ENQUEUERS) enqueuer(draft, budget, down);
  return { commands: [...answers, ...(draft.state.pending_requests ?? [])], f_pending: budget.full };
}
