import {
  classARxWindows,
  type FrequencyPlan,
  type Hz,
  maxFrmPayload,
  maxMacPayload,
  rx1DataRateIndex,
  type RxWindow,
  type RxWindowSettings,
} from '@lorawan/lorawan';
import { expectedDownlinkDwellTime } from '../mac-state/dwell-time';
import type { NsMacState } from '../model';

/** A receive window of a downlink and the largest payloads it carries. */
export interface DataRxWindow extends RxWindow {
  /** M: the largest MACPayload. */
  max_mac_payload: number;
  /** The largest FRMPayload (FOpts included) of a data downlink: M − FHDR − FPort. */
  max_frm_payload: number;
}

export interface ClassAWindows {
  rx1?: DataRxWindow;
  rx2?: DataRxWindow;
}

interface UplinkTx {
  frequency: Hz | number;
  data_rate_index: number;
}

/** MHDR and MIC: what a PHYPayload holds beyond its MACPayload. */
const MHDR_AND_MIC = 5;
/** A join-accept with a CFList (LoRaWAN 1.0.x §6.2.5: 17 bytes without). */
const JOIN_ACCEPT_WITH_CF_LIST_LENGTH = 33;

/**
 * The class A windows of a data downlink answering an uplink (TTS `downlink.go` rx1/rx2 parameters
 * and MaxMACPayloadSize): the device's RX1 delay, RX1DROffset and RX2 channel; RX1's data rate and
 * both windows' payload limits under the device's expected downlink dwell time (AS923 with the
 * limit: RX1 no lower than DR2, DR2 carries 11 bytes instead of 115). As TTS, RX1 is left out while
 * the device has not confirmed its dwell time and the RX1 data rate depends on it, unless RX2 is
 * missing too: the device may have booted either way.
 */
export function classADataWindows(plan: FrequencyPlan, macState: NsMacState, uplink: UplinkTx): ClassAWindows {
  const params = macState.current_parameters ?? {};
  return windows(plan, macState, uplink, {
    rx1Delay: params.rx1_delay || undefined,
    rx1DataRateOffset: params.rx1_data_rate_offset ?? 0,
    rx2:
      params.rx2_frequency !== undefined && params.rx2_data_rate_index !== undefined
        ? { frequency: String(params.rx2_frequency), data_rate_index: params.rx2_data_rate_index }
        : undefined,
  });
}

/**
 * The windows of a join-accept (JOIN_ACCEPT_DELAY1/2, RX1DROffset 0, the plan's RX2) for the MAC
 * state the join creates, with the same dwell-time rules as `classADataWindows`.
 */
export function joinAcceptWindows(plan: FrequencyPlan, macState: NsMacState | undefined, uplink: UplinkTx): ClassAWindows {
  return windows(plan, macState, uplink, { join: true });
}

/** The windows that carry a PHYPayload of `length` bytes. */
export function windowsCarrying({ rx1, rx2 }: ClassAWindows, length: number): ClassAWindows {
  const carries = (w: DataRxWindow | undefined) => (w && length <= w.max_mac_payload + MHDR_AND_MIC ? w : undefined);
  return { rx1: carries(rx1), rx2: carries(rx2) };
}

/**
 * Whether a window of the join-accept carries a CFList under the new MAC state's downlink dwell
 * time (TTS `computeMaxMACDownlinkPayloadSize`): not in AS923 with the limit after an uplink below
 * DR3 (DR2's M is 19 bytes, a join-accept with CFList 28).
 */
export function joinAcceptCarriesCfList(plan: FrequencyPlan, macState: NsMacState | undefined, uplink: UplinkTx): boolean {
  const { rx1, rx2 } = windowsCarrying(joinAcceptWindows(plan, macState, uplink), JOIN_ACCEPT_WITH_CF_LIST_LENGTH);
  return rx1 !== undefined || rx2 !== undefined;
}

function windows(plan: FrequencyPlan, macState: NsMacState | undefined, uplink: UplinkTx, settings: RxWindowSettings): ClassAWindows {
  const dwellTime = expectedDownlinkDwellTime(macState, plan);
  const offset = settings.join ? 0 : (settings.rx1DataRateOffset ?? 0);
  const { rx1, rx2 } = classARxWindows(plan, uplink, { ...settings, downlinkDwellTime: dwellTime });
  const withRoom = (w: RxWindow | undefined): DataRxWindow | undefined => {
    if (!w) return undefined;
    const index = w.data_rate_index;
    return { ...w, max_mac_payload: maxMacPayload(plan.band_id, index, dwellTime), max_frm_payload: maxFrmPayload(plan.band_id, index, dwellTime) };
  };
  const rx1Unknown =
    macState?.current_parameters?.downlink_dwell_time === undefined &&
    rx1DataRateIndex(plan.band_id, uplink.data_rate_index, offset, true) !== rx1DataRateIndex(plan.band_id, uplink.data_rate_index, offset, false);
  return { rx1: rx1Unknown && rx2 ? undefined : withRoom(rx1), rx2: withRoom(rx2) };
}
