import { NS_MAC_EVENTS } from '@lorawan/api';
import type { MacCommandJson } from '@lorawan/lorawan';
import { demodulationFloor } from './adr';
import { emit, type MacDraft, queueResponse } from './mac-draft';

type Json = Record<string, unknown>;

/** The uplink as every gateway's copy saw it. */
export interface MergedUplinkView {
  rx_metadata: readonly Json[];
  received_at: string;
  /** The uplink's LoRa modulation (undefined for FSK). */
  lora?: { spreading_factor: number; bandwidth: number };
}

/**
 * The device's requests whose answers need every copy of the uplink (TTS's deferred handlers):
 * LinkCheckAns with the margin of the best copy over the demodulation floor and the number of
 * gateways that heard it; DeviceTimeAns with the time the uplink was received (a gateway's GPS
 * time when one has it: more precise than the network's clock).
 */
export function answerAfterMerge(draft: MacDraft, commands: readonly MacCommandJson[], up: MergedUplinkView): void {
  for (const command of commands) {
    if (command.cid === 'CID_LINK_CHECK') {
      emit(draft, NS_MAC_EVENTS.linkCheck.request, {});
      const floor = up.lora ? demodulationFloor(up.lora.spreading_factor, up.lora.bandwidth) : 0;
      if (floor === undefined || up.rx_metadata.length === 0) continue;
      const snrs = up.rx_metadata.map((md) => md.snr).filter((s): s is number => typeof s === 'number');
      const best = snrs.length > 0 ? Math.max(...snrs) : floor;
      const gateways = new Set(up.rx_metadata.map((md) => JSON.stringify((md.gateway_ids as Json | undefined)?.gateway_id ?? md.gateway_ids))).size;
      // Whole dB, truncated as TTS does.
      const ans = { margin: Math.max(0, Math.min(254, Math.trunc(best - floor))), gateway_count: Math.min(255, gateways) };
      queueResponse(draft, { cid: 'CID_LINK_CHECK', link_check_ans: ans });
      emit(draft, NS_MAC_EVENTS.linkCheck.answer, ans);
    } else if (command.cid === 'CID_DEVICE_TIME') {
      emit(draft, NS_MAC_EVENTS.deviceTime.request, {});
      const gps = up.rx_metadata.map((md) => md.gps_time).find((t): t is string => typeof t === 'string');
      const ans = { time: gps ?? up.received_at };
      queueResponse(draft, { cid: 'CID_DEVICE_TIME', device_time_ans: ans });
      emit(draft, NS_MAC_EVENTS.deviceTime.answer, ans);
    }
  }
}
