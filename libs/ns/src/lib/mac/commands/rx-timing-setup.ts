import { NS_MAC_EVENTS } from '@lorawan/api';
import { emit, setCurrent, takeRequest } from '../mac-draft';
import { enqueue, type MacCommandDefinition, num } from './mac-command';

const E = NS_MAC_EVENTS.rxTimingSetup;

/** RxTimingSetupReq / RxTimingSetupAns (TTS `rx_timing_setup.go`): the RX1 delay. */
export const RX_TIMING_SETUP: MacCommandDefinition = {
  cid: 'CID_RX_TIMING_SETUP',
  events: E,
  enqueue: (draft, budget) => {
    const { current_parameters: c, desired_parameters: d } = draft.state;
    if (d.rx1_delay === undefined || Number(d.rx1_delay) === Number(c.rx1_delay)) return;
    enqueue(draft, budget, [{ cid: 'CID_RX_TIMING_SETUP', rx_timing_setup_req: { delay: Number(d.rx1_delay) } }], {
      event: E.request,
      field: 'rx_timing_setup_req',
    });
  },
  uplink: {
    kind: 'answer',
    handle: (draft, ans) => {
      const req = takeRequest(draft, 'CID_RX_TIMING_SETUP', 'rx_timing_setup_req');
      setCurrent(draft, { rx1_delay: num(req.delay) || 1 });
      emit(draft, E.answer, ans);
    },
  },
};
