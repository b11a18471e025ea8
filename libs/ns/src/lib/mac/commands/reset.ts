import { NS_MAC_EVENTS } from '@lorawan/api';
import type { MacCommandFields } from '@lorawan/lorawan';
import { newMacState } from '../../mac-state/new-mac-state';
import { emit } from '../mac-draft';
import type { MacCommandDefinition } from './mac-command';

const E = NS_MAC_EVENTS.reset;
const minorOf = (payload: MacCommandFields) => (payload.minor_version as string | undefined) ?? 'MINOR_RFU_0';

/** ResetInd / ResetConf (TTS `reset.go`): an ABP device's MAC state starts again; for OTAA devices (which reset through a join) it is only an event. */
export const RESET: MacCommandDefinition = {
  cid: 'CID_RESET',
  events: E,
  uplink: {
    kind: 'device',
    handle: (draft, ind, up) => {
      emit(draft, E.indication, ind);
      if (draft.device.supports_join) return;
      const fresh = newMacState({ lorawan_version: draft.device.lorawan_version ?? 'MAC_V1_1', frequencyPlan: up.plan, mac_settings: up.settings });
      const conf = { minor_version: minorOf(ind) };
      draft.state = {
        ...fresh,
        lorawan_version: draft.device.lorawan_version,
        recent_uplinks: draft.state.recent_uplinks,
        queued_responses: [...(draft.state.queued_responses ?? []), { cid: 'CID_RESET', reset_conf: conf }],
      };
      emit(draft, E.confirmation, conf);
    },
  },
};
