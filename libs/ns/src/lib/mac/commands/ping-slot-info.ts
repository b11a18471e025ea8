import { NS_MAC_EVENTS } from '@lorawan/api';
import { emit, queueResponse } from '../mac-draft';
import type { MacCommandDefinition } from './mac-command';

const E = NS_MAC_EVENTS.pingSlotInfo;

/** PingSlotInfoReq / PingSlotInfoAns (class B, TTS `ping_slot_info.go`): the device's ping slot periodicity. */
export const PING_SLOT_INFO: MacCommandDefinition = {
  cid: 'CID_PING_SLOT_INFO',
  events: E,
  uplink: {
    kind: 'device',
    handle: (draft, req) => {
      emit(draft, E.request, req);
      draft.state.ping_slot_periodicity = req.period as string;
      queueResponse(draft, { cid: 'CID_PING_SLOT_INFO', ping_slot_info_ans: {} });
      emit(draft, E.answer, {});
    },
  },
};
