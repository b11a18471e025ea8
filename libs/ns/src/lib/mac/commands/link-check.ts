import { NS_MAC_EVENTS } from '@lorawan/api';
import { demodulationFloor } from '../adr';
import { emit, queueResponse } from '../mac-draft';
import type { MacCommandDefinition } from './mac-command';

const E = NS_MAC_EVENTS.linkCheck;

/**
 * LinkCheckReq / LinkCheckAns (TTS `link_check.go`), once every copy of the uplink is in: the
 * margin of the best copy over the demodulation floor and the number of gateways that heard it.
 */
export const LINK_CHECK: MacCommandDefinition = {
  cid: 'CID_LINK_CHECK',
  events: E,
  uplink: {
    kind: 'after-merge',
    answer: (draft, up) => {
      emit(draft, E.request, {});
      const floor = up.lora ? demodulationFloor(up.lora.spreading_factor, up.lora.bandwidth) : 0;
      if (floor === undefined || up.rx_metadata.length === 0) return;
      const snrs = up.rx_metadata.map((md) => md.snr).filter((s): s is number => typeof s === 'number');
      const best = snrs.length > 0 ? Math.max(...snrs) : floor;
      const gateways = new Set(
        up.rx_metadata.map((md) => JSON.stringify((md.gateway_ids as { gateway_id?: string } | undefined)?.gateway_id ?? md.gateway_ids)),
      ).size;
      // Whole dB, truncated as TTS does.
      const ans = { margin: Math.max(0, Math.min(254, Math.trunc(best - floor))), gateway_count: Math.min(255, gateways) };
      queueResponse(draft, { cid: 'CID_LINK_CHECK', link_check_ans: ans });
      emit(draft, E.answer, ans);
    },
  },
};
