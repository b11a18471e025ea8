import { NS_MAC_EVENTS } from '@lorawan/api';
import { emit, queueResponse } from '../mac-draft';
import type { MacCommandDefinition } from './mac-command';

const E = NS_MAC_EVENTS.deviceTime;

/**
 * DeviceTimeReq / DeviceTimeAns (TTS `device_time.go`), once every copy of the uplink is in: the
 * time the uplink was received (a gateway's GPS time when one has it: more precise than the
 * network's clock).
 */
export const DEVICE_TIME: MacCommandDefinition = {
  cid: 'CID_DEVICE_TIME',
  events: E,
  uplink: {
    kind: 'after-merge',
    answer: (draft, up) => {
      emit(draft, E.request, {});
      const gps = up.rx_metadata.map((md) => md.gps_time).find((t): t is string => typeof t === 'string');
      const ans = { time: gps ?? up.received_at };
      queueResponse(draft, { cid: 'CID_DEVICE_TIME', device_time_ans: ans });
      emit(draft, E.answer, ans);
    },
  },
};
