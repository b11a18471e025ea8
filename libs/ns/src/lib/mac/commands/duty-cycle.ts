import { NS_MAC_EVENTS } from '@lorawan/api';
import { emit, setCurrent, takeRequest } from '../mac-draft';
import { enqueue, type MacCommandDefinition } from './mac-command';

const E = NS_MAC_EVENTS.dutyCycle;

/** DutyCycleReq / DutyCycleAns (TTS `duty_cycle.go`): the device's aggregated duty cycle. */
export const DUTY_CYCLE: MacCommandDefinition = {
  cid: 'CID_DUTY_CYCLE',
  events: E,
  enqueue: (draft, budget) => {
    const { current_parameters: c, desired_parameters: d } = draft.state;
    if (!d.max_duty_cycle || d.max_duty_cycle === c.max_duty_cycle) return;
    enqueue(draft, budget, [{ cid: 'CID_DUTY_CYCLE', duty_cycle_req: { max_duty_cycle: d.max_duty_cycle } }], { event: E.request, field: 'duty_cycle_req' });
  },
  uplink: {
    kind: 'answer',
    handle: (draft, ans) => {
      const req = takeRequest(draft, 'CID_DUTY_CYCLE', 'duty_cycle_req');
      setCurrent(draft, { max_duty_cycle: (req.max_duty_cycle as string | undefined) ?? 'DUTY_CYCLE_1' });
      emit(draft, E.answer, ans);
    },
  },
};
