import { DeviceEIRP, NS_MAC_EVENTS } from '@lorawan/api';
import { getBand } from '@lorawan/lorawan';
import { emit, setCurrent, takeRequest } from '../mac-draft';
import { atLeast, enqueue, type MacCommandDefinition } from './mac-command';

const E = NS_MAC_EVENTS.txParamSetup;

/** TxParamSetupReq's MaxEIRP (`DEVICE_EIRP_16`) in dBm: the enum name spells it. */
export function deviceEirp(name: unknown): number | undefined {
  const parsed = DeviceEIRP.parse(name);
  return parsed === undefined ? undefined : Number(parsed.slice('DEVICE_EIRP_'.length));
}

/** The largest MaxEIRP of TxParamSetupReq not above `dBm` (the lowest when none is). */
export function deviceEirpAtMost(dBm: number): string {
  return DeviceEIRP.names.filter((name) => (deviceEirp(name) ?? Infinity) <= dBm).at(-1) ?? DeviceEIRP.names[0];
}

/** TxParamSetupReq / TxParamSetupAns (TTS `tx_param_setup.go`): max EIRP and dwell time, in bands with dwell time rules (LoRaWAN 1.0.2+). */
export const TX_PARAM_SETUP: MacCommandDefinition = {
  cid: 'CID_TX_PARAM_SETUP',
  events: E,
  enqueue: (draft, budget, down) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    if (!getBand(down.plan.band_id).tx_param_setup_req_support || !atLeast(v, 'MAC_V1_0_2')) return;
    if (d.max_eirp === c.max_eirp && d.uplink_dwell_time === c.uplink_dwell_time && d.downlink_dwell_time === c.downlink_dwell_time) return;
    const req = {
      max_eirp_index: deviceEirpAtMost(d.max_eirp ?? 16),
      uplink_dwell_time: d.uplink_dwell_time ?? false,
      downlink_dwell_time: d.downlink_dwell_time ?? false,
    };
    enqueue(draft, budget, [{ cid: 'CID_TX_PARAM_SETUP', tx_param_setup_req: req }], { event: E.request, field: 'tx_param_setup_req' });
  },
  uplink: {
    kind: 'answer',
    handle: (draft, ans) => {
      const req = takeRequest(draft, 'CID_TX_PARAM_SETUP', 'tx_param_setup_req');
      setCurrent(draft, {
        max_eirp: deviceEirp(req.max_eirp_index) ?? draft.state.current_parameters.max_eirp,
        uplink_dwell_time: Boolean(req.uplink_dwell_time),
        downlink_dwell_time: Boolean(req.downlink_dwell_time),
      });
      emit(draft, E.answer, ans);
    },
  },
};
