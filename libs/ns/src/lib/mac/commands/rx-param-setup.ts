import { NS_MAC_EVENTS } from '@lorawan/api';
import { emit, setCurrent, takeRequest } from '../mac-draft';
import { enqueue, type MacCommandDefinition, num } from './mac-command';

const E = NS_MAC_EVENTS.rxParamSetup;

/** RxParamSetupReq / RxParamSetupAns (TTS `rx_param_setup.go`): RX1 data rate offset, RX2 data rate and frequency. */
export const RX_PARAM_SETUP: MacCommandDefinition = {
  cid: 'CID_RX_PARAM_SETUP',
  events: E,
  enqueue: (draft, budget) => {
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
    enqueue(draft, budget, [{ cid: 'CID_RX_PARAM_SETUP', rx_param_setup_req: want }], { event: E.request, field: 'rx_param_setup_req' });
  },
  uplink: {
    kind: 'answer',
    handle: (draft, ans) => {
      const req = takeRequest(draft, 'CID_RX_PARAM_SETUP', 'rx_param_setup_req');
      if (!(ans.rx1_data_rate_offset_ack && ans.rx2_data_rate_index_ack && ans.rx2_frequency_ack)) return emit(draft, E.reject, ans);
      setCurrent(draft, {
        rx1_data_rate_offset: num(req.rx1_data_rate_offset),
        rx2_data_rate_index: num(req.rx2_data_rate_index),
        rx2_frequency: String(req.rx2_frequency),
      });
      emit(draft, E.accept, ans);
    },
  },
};
