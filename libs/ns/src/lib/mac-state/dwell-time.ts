import type { FrequencyPlan } from '@lorawan/lorawan';
import type { NsMacState } from '../model';

/**
 * Whether the 400 ms dwell-time limit applies to a device's downlinks (TTS
 * `mac.DeviceExpectedDownlinkDwellTime`): what TxParamSetupAns confirmed
 * (`current_parameters.downlink_dwell_time`), else the frequency plan's setting, else on, since a
 * device in a band with TxParamSetupReq (AS923, AU915) may boot with it and the limit is the safe
 * guess. Bands without a dwell-time table have the same payload sizes either way.
 */
export function expectedDownlinkDwellTime(macState: NsMacState | undefined, plan: FrequencyPlan): boolean {
  return macState?.current_parameters?.downlink_dwell_time ?? plan.dwell_time?.downlinks ?? true;
}

/** The same for uplinks (TTS `mac.DeviceExpectedUplinkDwellTime`). */
export function expectedUplinkDwellTime(macState: NsMacState | undefined, plan: FrequencyPlan): boolean {
  return macState?.current_parameters?.uplink_dwell_time ?? plan.dwell_time?.uplinks ?? true;
}
