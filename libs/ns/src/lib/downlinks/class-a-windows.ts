import { classARxWindows, type FrequencyPlan, type Hz, maxFrmPayload, rx1DataRateIndex, type RxWindow } from '@lorawan/lorawan';
import { expectedDownlinkDwellTime } from '../mac-state/dwell-time';
import type { NsMacState } from '../model';

/** A receive window of a data downlink and the largest FRMPayload (FOpts included) it carries. */
export interface DataRxWindow extends RxWindow {
  max_frm_payload: number;
}

/**
 * The class A windows of a data downlink answering an uplink (TTS `downlink.go` rx1/rx2 parameters
 * and MaxMACPayloadSize): the device's RX1 delay, RX1DROffset and RX2 channel; RX1's data rate and
 * both windows' payload limits under the device's expected downlink dwell time (AS923 with the
 * limit: RX1 no lower than DR2, DR2 carries 11 bytes instead of 115). As TTS, RX1 is left out while
 * the device has not confirmed its dwell time and the RX1 data rate depends on it, unless RX2 is
 * missing too: the device may have booted either way.
 */
export function classADataWindows(
  plan: FrequencyPlan,
  macState: NsMacState,
  uplink: { frequency: Hz | number; data_rate_index: number },
): { rx1?: DataRxWindow; rx2?: DataRxWindow } {
  const params = macState.current_parameters ?? {};
  const dwellTime = expectedDownlinkDwellTime(macState, plan);
  const offset = params.rx1_data_rate_offset ?? 0;
  const { rx1, rx2 } = classARxWindows(plan, uplink, {
    rx1Delay: params.rx1_delay || undefined,
    rx1DataRateOffset: offset,
    rx2:
      params.rx2_frequency !== undefined && params.rx2_data_rate_index !== undefined
        ? { frequency: String(params.rx2_frequency), data_rate_index: params.rx2_data_rate_index }
        : undefined,
    downlinkDwellTime: dwellTime,
  });
  const withRoom = (w: RxWindow | undefined): DataRxWindow | undefined =>
    w && { ...w, max_frm_payload: maxFrmPayload(plan.band_id, w.data_rate_index, dwellTime) };
  const rx1Unknown =
    params.downlink_dwell_time === undefined &&
    rx1DataRateIndex(plan.band_id, uplink.data_rate_index, offset, true) !== rx1DataRateIndex(plan.band_id, uplink.data_rate_index, offset, false);
  return { rx1: rx1Unknown && rx2 ? undefined : withRoom(rx1), rx2: withRoom(rx2) };
}
