import type { NsMacParameters, NsMacSettings, NsMacState } from '../model';

/** TTS `mac/dev_status.go`: without settings, a DevStatusReq every 200 uplinks or 24 hours. */
export const DEFAULT_STATUS_COUNT_PERIODICITY = 200;
export const DEFAULT_STATUS_TIME_PERIODICITY_MS = 24 * 3600 * 1000;
/** TTS `mac/adr.go` DefaultADRMargin (dB). */
export const DEFAULT_ADR_MARGIN = 15;

/**
 * The MAC settings that apply to a device (the spec's precedence): a field of the device's
 * `mac_settings` when set, else the Network Server's (NS_DEFAULT_MAC_SETTINGS); where both are
 * unset, the band or frequency plan decides (`newMacState`, and the defaults below).
 */
export function effectiveMacSettings(deviceSettings: NsMacSettings | undefined, defaults: NsMacSettings): NsMacSettings {
  const merged: NsMacSettings = { ...defaults };
  for (const [key, value] of Object.entries(deviceSettings ?? {})) if (value !== undefined && value !== null) Object.assign(merged, { [key]: value });
  return merged;
}

/** A protobuf Duration in canonical JSON (`"86400s"`, `"1.5s"`) in ms; undefined when not one. */
export function durationMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(-?\d+(?:\.\d+)?)s$/.exec(value);
  return m ? Math.round(Number(m[1]) * 1000) : undefined;
}

export function statusCountPeriodicity(settings: NsMacSettings): number {
  const v = settings.status_count_periodicity;
  return typeof v === 'number' ? v : DEFAULT_STATUS_COUNT_PERIODICITY;
}

export function statusTimePeriodicityMs(settings: NsMacSettings): number {
  return durationMs(settings.status_time_periodicity) ?? DEFAULT_STATUS_TIME_PERIODICITY_MS;
}

export function useAdr(settings: NsMacSettings): boolean {
  return typeof settings.use_adr === 'boolean' ? settings.use_adr : true;
}

export function adrMargin(settings: NsMacSettings): number {
  return typeof settings.adr_margin === 'number' ? settings.adr_margin : DEFAULT_ADR_MARGIN;
}

/** `desired_*` MAC settings → the desired parameter they set. */
const DESIRED: ReadonlyArray<[setting: keyof NsMacSettings, parameter: keyof NsMacParameters]> = [
  ['desired_rx1_delay', 'rx1_delay'],
  ['desired_rx1_data_rate_offset', 'rx1_data_rate_offset'],
  ['desired_rx2_data_rate_index', 'rx2_data_rate_index'],
  ['desired_rx2_frequency', 'rx2_frequency'],
  ['desired_max_duty_cycle', 'max_duty_cycle'],
  ['desired_adr_ack_limit_exponent', 'adr_ack_limit_exponent'],
  ['desired_adr_ack_delay_exponent', 'adr_ack_delay_exponent'],
  ['desired_ping_slot_data_rate_index', 'ping_slot_data_rate_index_value'],
  ['desired_ping_slot_frequency', 'ping_slot_frequency'],
  ['desired_beacon_frequency', 'beacon_frequency'],
];

/**
 * The desired parameters after a change of the settings: a `desired_*` setting (the device's, else
 * the NS's) overrides what the MAC state wanted, so the NS negotiates it on the next downlink
 * opportunity (RxParamSetupReq, RxTimingSetupReq, DutyCycleReq, ADRParamSetupReq, …). Unchanged
 * parameters keep their object (no write when nothing changed).
 */
export function withDesiredSettings(state: NsMacState, settings: NsMacSettings): NsMacState {
  let desired: NsMacParameters | undefined;
  for (const [setting, parameter] of DESIRED) {
    const raw = settings[setting];
    if (raw === undefined || raw === null) continue;
    const value = typeof raw === 'number' && String(parameter).endsWith('frequency') ? String(raw) : raw;
    if ((desired ?? state.desired_parameters)?.[parameter] === value) continue;
    desired = { ...(desired ?? state.desired_parameters), [parameter]: value };
  }
  return desired ? { ...state, desired_parameters: desired } : state;
}
