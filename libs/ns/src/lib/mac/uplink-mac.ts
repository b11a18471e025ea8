import type { UplinkMessage } from '@lorawan/api';
import { getBand, type MacCommandJson, type ParsedMacCommands } from '@lorawan/lorawan';
import type { NsDevice, NsMacState } from '../model';
import { onUplink } from '../mac-state/transitions';
import { adaptDataRate, type AdrUplink } from './adr';
import { macDraft, type MacEvent } from './mac-draft';
import { adrMargin, useAdr, withDesiredSettings } from './mac-settings';
import { switchClass } from './device-class';
import { handleUplinkCommands, type MacUplink } from './uplink-commands';

export interface UplinkMacInput extends MacUplink {
  commands: ParsedMacCommands;
  /** FCtrl of the uplink. */
  class_b: boolean;
  adr: boolean;
  data_rate_index: number;
  /** The device's `recent_adr_uplinks` including this uplink. */
  recent_adr_uplinks: readonly UplinkMessage[];
}

export interface UplinkMacResult {
  device: NsDevice;
  events: MacEvent[];
  /** LinkCheckReq and DeviceTimeReq: answered with every copy's metadata (`answerAfterMerge`). */
  after_merge: MacCommandJson[];
}

/**
 * The MAC layer's part of a data uplink, on the device as the uplink leaves it (its MAC state the
 * session's): the `desired_*` settings, the ClassB bit (the spec's table: a class A device that
 * supports class B moves to class B; other classes keep theirs), the MAC commands
 * (`handleUplinkCommands`), and ADR: with the ADR bit set and ADR on for the device, the data rate
 * the device uses is current, and the ADR algorithm over `recent_adr_uplinks` sets the desired
 * data rate, TX power and NbTrans that a LinkADRReq then asks for.
 */
export function applyUplinkMac(device: NsDevice, state: NsMacState, input: UplinkMacInput): UplinkMacResult {
  const draft = macDraft(device, withDesiredSettings(state, input.settings));
  // The spec's table (`onUplink`), for a device that supports class B.
  if (device.supports_class_b) switchClass(draft, onUplink(draft.state, { classB: input.class_b }).device_class ?? 'CLASS_A');
  const afterMerge = handleUplinkCommands(draft, input.commands, input);
  if (input.adr && useAdr(input.settings)) adapt(draft, input);
  if (draft.state.queued_responses?.length === 0) delete draft.state.queued_responses;
  if (draft.state.pending_requests?.length === 0) delete draft.state.pending_requests;
  return { device: { ...draft.device, mac_state: draft.state }, events: draft.events, after_merge: afterMerge };
}

function adapt(draft: ReturnType<typeof macDraft>, input: UplinkMacInput): void {
  const current = draft.state.current_parameters;
  // The device's data rate is what it sent at; a lower one than asked for is the device backing off (ADRACKReq): its power is reset too (dataplane-notes §4.3).
  if (current.adr_data_rate_index !== input.data_rate_index) {
    const lower = input.data_rate_index < (current.adr_data_rate_index ?? 0);
    draft.state.current_parameters = { ...current, adr_data_rate_index: input.data_rate_index, ...(lower ? { adr_tx_power_index: 0 } : {}) };
  }
  const band = getBand(input.plan.band_id);
  const enabled = (draft.state.current_parameters.channels ?? []).filter((c) => c.enable_uplink);
  const maxDataRateIndex = Math.min(band.max_adr_data_rate_index, ...enabled.map((c) => c.max_data_rate_index ?? 0));
  const minDataRateIndex = Math.min(...enabled.map((c) => c.min_data_rate_index ?? 0), maxDataRateIndex);
  const c = draft.state.current_parameters;
  const next = adaptDataRate({
    bandId: input.plan.band_id,
    // The contract keeps a stored uplink's payload and data rate as Structs; ADR reads the fields the NS writes there (`recentUplink`).
    uplinks: input.recent_adr_uplinks as readonly AdrUplink[],
    current: { adr_data_rate_index: c.adr_data_rate_index ?? 0, adr_tx_power_index: c.adr_tx_power_index ?? 0, adr_nb_trans: c.adr_nb_trans ?? 1 },
    margin: adrMargin(input.settings),
    rejectedDataRateIndexes: draft.state.rejected_adr_data_rate_indexes,
    rejectedTxPowerIndexes: draft.state.rejected_adr_tx_power_indexes,
    maxDataRateIndex,
    minDataRateIndex,
  });
  if (next) draft.state.desired_parameters = { ...draft.state.desired_parameters, ...next };
}
