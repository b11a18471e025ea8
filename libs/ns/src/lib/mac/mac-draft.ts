import type { EventDefinition, MACParametersChannel } from '@lorawan/api';
import type { MacCommandJson } from '@lorawan/lorawan';
import type { NsDataDevice } from '../uplinks/session-match';
import { ErrRequestNotFound } from './errors';

export type Json = Record<string, unknown>;

/** MACParameters as the NS keeps them (canonical JSON: frequencies as decimal strings). */
export interface MacParameters extends Json {
  max_eirp?: number;
  adr_data_rate_index?: number;
  adr_tx_power_index?: number;
  adr_nb_trans?: number;
  rx1_delay?: number | string;
  rx1_data_rate_offset?: number;
  rx2_data_rate_index?: number;
  rx2_frequency?: string;
  max_duty_cycle?: string;
  rejoin_time_periodicity?: string;
  rejoin_count_periodicity?: string;
  ping_slot_frequency?: string;
  ping_slot_data_rate_index_value?: number;
  beacon_frequency?: string;
  channels?: MACParametersChannel[];
  uplink_dwell_time?: boolean;
  downlink_dwell_time?: boolean;
  adr_ack_limit_exponent?: string;
  adr_ack_delay_exponent?: string;
}

export interface MacStateJson extends Json {
  lorawan_version?: string;
  device_class?: string;
  current_parameters: MacParameters;
  desired_parameters: MacParameters;
  queued_responses?: MacCommandJson[];
  pending_requests?: MacCommandJson[];
  ping_slot_periodicity?: string;
  last_dev_status_f_cnt_up?: number;
  rejected_adr_data_rate_indexes?: number[];
  rejected_adr_tx_power_indexes?: number[];
  rejected_frequencies?: string[];
  recent_uplinks?: Json[];
}

export type MacDevice = NsDataDevice & Json & { supports_join?: boolean; supports_class_b?: boolean; supports_class_c?: boolean };

/** An event the MAC layer raises: published once the device is stored. */
export interface MacEvent {
  event: EventDefinition;
  data?: unknown;
}

/**
 * The device while the MAC layer works on it: `device` and `state` are shallow copies the
 * handlers replace fields of (never changing a nested object in place: the stored record may be
 * shared and frozen), `events` what to publish once the result is stored.
 */
export interface MacDraft {
  device: MacDevice;
  state: MacStateJson;
  events: MacEvent[];
}

export function macDraft(device: MacDevice, state: MacStateJson): MacDraft {
  return {
    device: { ...device },
    state: {
      ...state,
      current_parameters: { ...(state.current_parameters ?? {}) },
      desired_parameters: { ...(state.desired_parameters ?? {}) },
    },
    events: [],
  };
}

export function emit(draft: MacDraft, event: EventDefinition, data?: unknown): void {
  draft.events.push(data === undefined ? { event } : { event, data });
}

/** Sets fields of the current parameters (what the device now uses). */
export function setCurrent(draft: MacDraft, fields: MacParameters): void {
  draft.state.current_parameters = { ...draft.state.current_parameters, ...fields };
}

/** An answer (or confirmation) for the next downlink (`queued_responses`, regenerated on each uplink). */
export function queueResponse(draft: MacDraft, command: MacCommandJson): void {
  draft.state.queued_responses = [...(draft.state.queued_responses ?? []), command];
}

/**
 * The request an answer belongs to (TTS `handleMACResponse`): the first pending request with the
 * answer's CID, taken out of `pending_requests`. An answer without request is refused
 * (`request_not_found`): the device answered something the network did not ask.
 */
export function takeRequest(draft: MacDraft, cid: string, field: string): Json {
  const pending = draft.state.pending_requests ?? [];
  const at = pending.findIndex((c) => c.cid === cid);
  if (at < 0) throw ErrRequestNotFound.with({ cid });
  draft.state.pending_requests = [...pending.slice(0, at), ...pending.slice(at + 1)];
  return (pending[at][field] as Json | undefined) ?? {};
}

/** Adds to an ascending list without duplicates (`rejected_*`). */
export function addSorted<T extends number | string>(list: readonly T[] | undefined, value: T): T[] {
  const values = new Set([...(list ?? []), value]);
  return [...values].sort((a, b) => Number(a) - Number(b));
}
