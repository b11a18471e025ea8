import type { EndDevice, MACState, MACStateJoinAccept } from '@lorawan/api';

/**
 * The seed's MACState rules ("States and transitions" and the MACState table) as pure functions:
 * each returns a new object and leaves its input untouched.
 */

/** Classes a DeviceModeInd may name (LoRaWAN 1.1: class B is entered through the ClassB bit instead). */
const DEVICE_MODE_CLASSES: readonly string[] = ['CLASS_A', 'CLASS_C'];

/**
 * An uplink from the device: its RX windows are open, and a class A device that sets the ClassB
 * bit in FCtrl switches to class B. Other classes ignore the bit.
 */
export function onUplink<S extends Pick<MACState, 'device_class' | 'rx_windows_available'>>(state: S, uplink: { classB: boolean }): S {
  // An unset device_class is the enum's zero value, CLASS_A.
  const classA = (state.device_class ?? 'CLASS_A') === 'CLASS_A';
  return { ...state, rx_windows_available: true, ...(classA && uplink.classB ? { device_class: 'CLASS_B' } : {}) };
}

/** DeviceModeInd: the device is now in the class the command names, whatever it was in. */
export function onDeviceModeInd(state: MACState, deviceClass: string): MACState {
  if (!DEVICE_MODE_CLASSES.includes(deviceClass)) throw new Error(`DeviceModeInd names ${deviceClass}; only CLASS_A and CLASS_C are valid`);
  return { ...state, device_class: deviceClass };
}

/** A downlink was scheduled (successfully): the RX windows of the last uplink are used up, and any queued join-accept is gone. */
export function onDownlinkScheduled(state: MACState): MACState {
  const { queued_join_accept: _scheduled, ...rest } = state;
  return { ...rest, rx_windows_available: false };
}

/** The Join Server's join-accept arrived: it waits for a downlink slot. */
export function onJoinAcceptQueued(state: MACState, joinAccept: MACStateJoinAccept): MACState {
  return { ...state, queued_join_accept: joinAccept };
}

/**
 * The queued join-accept was scheduled: its join-request stays pending until the device shows it
 * received the accept (its first uplink). Being a downlink, this also applies `onDownlinkScheduled`.
 */
export function onJoinAcceptScheduled(state: MACState): MACState {
  if (!state.queued_join_accept) throw new Error('no queued join-accept to schedule');
  return onDownlinkScheduled({ ...state, pending_join_request: state.queued_join_accept.request });
}

/**
 * The queued join-accept could not be scheduled (no downlink path, its RX windows missed): the
 * device never receives it and will send another join-request, so the accept and the session keys
 * it carries are dropped rather than kept readable in the MAC state.
 */
export function onJoinAcceptNotScheduled<S extends { queued_join_accept?: unknown; rx_windows_available?: boolean }>(
  state: S,
): Omit<S, 'queued_join_accept'> & { rx_windows_available: false } {
  const { queued_join_accept: _lost, ...rest } = state;
  return { ...rest, rx_windows_available: false };
}

/** An uplink from the device in the session the join-accept set up: the join is complete. */
export function onUplinkForPendingJoin(state: MACState): MACState {
  const { pending_join_request: _completed, ...rest } = state;
  return rest;
}

export type SessionState = Pick<EndDevice, 'session' | 'pending_session' | 'mac_state' | 'pending_mac_state'>;

/**
 * RekeyInd (LoRaWAN 1.1): the device uses the session of its last join, so the pending session and
 * MAC state become current and nothing is pending any more. The RekeyInd is itself an uplink in
 * that session, so the pending join-request is complete too.
 */
export function onRekeyInd<T extends SessionState>(device: T): Omit<T, 'pending_session' | 'pending_mac_state'> {
  const { pending_session, pending_mac_state, ...rest } = device;
  const session = pending_session ?? device.session;
  const macState = pending_mac_state ?? device.mac_state;
  return {
    ...rest,
    ...(session ? { session } : {}),
    ...(macState ? { mac_state: onUplinkForPendingJoin(macState) } : {}),
  };
}
