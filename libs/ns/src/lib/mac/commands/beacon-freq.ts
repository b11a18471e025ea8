import { NS_MAC_EVENTS } from '@lorawan/api';
import { emit, setCurrent, takeRequest } from '../mac-draft';
import { atLeast, enqueue, type MacCommandDefinition } from './mac-command';

const E = NS_MAC_EVENTS.beaconFreq;

/** BeaconFreqReq / BeaconFreqAns (class B devices, LoRaWAN 1.0.3+, TTS `beacon_freq.go`): the beacon frequency. */
export const BEACON_FREQ: MacCommandDefinition = {
  cid: 'CID_BEACON_FREQ',
  events: E,
  enqueue: (draft, budget) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    if (!draft.device.supports_class_b || !atLeast(v, 'MAC_V1_0_3')) return;
    if (d.beacon_frequency !== undefined && String(d.beacon_frequency) !== String(c.beacon_frequency ?? ''))
      enqueue(draft, budget, [{ cid: 'CID_BEACON_FREQ', beacon_freq_req: { frequency: String(d.beacon_frequency) } }], {
        event: E.request,
        field: 'beacon_freq_req',
      });
  },
  uplink: {
    kind: 'answer',
    handle: (draft, ans) => {
      const req = takeRequest(draft, 'CID_BEACON_FREQ', 'beacon_freq_req');
      if (!ans.frequency_ack) return emit(draft, E.reject, ans);
      setCurrent(draft, { beacon_frequency: String(req.frequency) });
      emit(draft, E.accept, ans);
    },
  },
};
