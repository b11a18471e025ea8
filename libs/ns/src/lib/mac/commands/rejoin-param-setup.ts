import { NS_MAC_EVENTS } from '@lorawan/api';
import { emit, setCurrent, takeRequest } from '../mac-draft';
import { atLeast, enqueue, type MacCommandDefinition } from './mac-command';

const E = NS_MAC_EVENTS.rejoinParamSetup;

/** RejoinParamSetupReq / RejoinParamSetupAns (LoRaWAN 1.1, TTS `rejoin_param_setup.go`): how often the device sends a rejoin-request. */
export const REJOIN_PARAM_SETUP: MacCommandDefinition = {
  cid: 'CID_REJOIN_PARAM_SETUP',
  events: E,
  enqueue: (draft, budget) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    if (!atLeast(v, 'MAC_V1_1') || !d.rejoin_time_periodicity || !d.rejoin_count_periodicity) return;
    if (d.rejoin_time_periodicity === c.rejoin_time_periodicity && d.rejoin_count_periodicity === c.rejoin_count_periodicity) return;
    const req = { max_time_exponent: d.rejoin_time_periodicity, max_count_exponent: d.rejoin_count_periodicity };
    enqueue(draft, budget, [{ cid: 'CID_REJOIN_PARAM_SETUP', rejoin_param_setup_req: req }], { event: E.request, field: 'rejoin_param_setup_req' });
  },
  uplink: {
    kind: 'answer',
    handle: (draft, ans) => {
      const req = takeRequest(draft, 'CID_REJOIN_PARAM_SETUP', 'rejoin_param_setup_req');
      setCurrent(draft, {
        rejoin_count_periodicity: req.max_count_exponent as string,
        ...(ans.max_time_exponent_ack ? { rejoin_time_periodicity: req.max_time_exponent as string } : {}),
      });
      emit(draft, E.answer, ans);
    },
  },
};
