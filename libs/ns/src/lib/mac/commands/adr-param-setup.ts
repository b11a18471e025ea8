import { NS_MAC_EVENTS } from '@lorawan/api';
import { emit, setCurrent, takeRequest } from '../mac-draft';
import { atLeast, enqueue, type MacCommandDefinition } from './mac-command';

const E = NS_MAC_EVENTS.adrParamSetup;

/** ADRParamSetupReq / ADRParamSetupAns (LoRaWAN 1.1, TTS `adr_param_setup.go`): ADR_ACK_LIMIT and ADR_ACK_DELAY. */
export const ADR_PARAM_SETUP: MacCommandDefinition = {
  cid: 'CID_ADR_PARAM_SETUP',
  events: E,
  enqueue: (draft, budget) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    if (!atLeast(v, 'MAC_V1_1') || !d.adr_ack_limit_exponent || !d.adr_ack_delay_exponent) return;
    if (d.adr_ack_limit_exponent === c.adr_ack_limit_exponent && d.adr_ack_delay_exponent === c.adr_ack_delay_exponent) return;
    const req = { adr_ack_limit_exponent: d.adr_ack_limit_exponent, adr_ack_delay_exponent: d.adr_ack_delay_exponent };
    enqueue(draft, budget, [{ cid: 'CID_ADR_PARAM_SETUP', adr_param_setup_req: req }], { event: E.request, field: 'adr_param_setup_req' });
  },
  uplink: {
    kind: 'answer',
    handle: (draft, ans) => {
      const req = takeRequest(draft, 'CID_ADR_PARAM_SETUP', 'adr_param_setup_req');
      setCurrent(draft, { adr_ack_limit_exponent: req.adr_ack_limit_exponent as string, adr_ack_delay_exponent: req.adr_ack_delay_exponent as string });
      emit(draft, E.answer, ans);
    },
  },
};
