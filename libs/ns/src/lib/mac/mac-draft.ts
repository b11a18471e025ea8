import type { EventDefinition } from '@lorawan/api';
import type { MacCommandFields, MacCommandJson } from '@lorawan/lorawan';
import type { NsDevice, NsMacParameters, NsMacState } from '../model';
import { ErrRequestNotFound } from './errors';

/** An event the MAC layer raises: published once the device is stored. */
export interface MacEvent {
  event: EventDefinition;
  data?: unknown;
}

/**
 * The device while the MAC layer works on it: `device` and `state` are shallow copies the
 * handlers replace fields of (never changing a nested object in place: the stored record may be
 * shared and frozen), `events` what to publish once the result is stored. The parameters are the
 * state's own objects until a handler replaces them (`setCurrent`): parameters no command
 * changed stay the objects stored, whose text the NS registry's next write reuses.
 */
export interface MacDraft {
  device: NsDevice;
  state: NsMacState;
  events: MacEvent[];
}

export function macDraft(device: NsDevice, state: NsMacState): MacDraft {
  return {
    device: { ...device },
    state: {
      ...state,
      current_parameters: state.current_parameters ?? {},
      desired_parameters: state.desired_parameters ?? {},
    },
    events: [],
  };
}

export function emit(draft: MacDraft, event: EventDefinition, data?: unknown): void {
  draft.events.push(data === undefined ? { event } : { event, data });
}

/** Sets fields of the current parameters (what the device now uses). */
export function setCurrent(draft: MacDraft, fields: NsMacParameters): void {
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
export function takeRequest(draft: MacDraft, cid: string, field: string): MacCommandFields {
  const pending = draft.state.pending_requests ?? [];
  const at = pending.findIndex((c) => c.cid === cid);
  if (at < 0) throw ErrRequestNotFound.with({ cid });
  draft.state.pending_requests = [...pending.slice(0, at), ...pending.slice(at + 1)];
  return (pending[at][field] as MacCommandFields | undefined) ?? {};
}

/** Adds to an ascending list without duplicates (`rejected_*`). */
export function addSorted<T extends number | string>(list: readonly T[] | undefined, value: T): T[] {
  const values = new Set([...(list ?? []), value]);
  return [...values].sort((a, b) => Number(a) - Number(b));
}
