import { Right } from '../../rpc/rights';
import { defineEvent, deviceRegistryEvents } from '../definitions';

/** Join Server. */
export const JS_EVENTS = {
  endDevice: deviceRegistryEvents('js.end_device', 'Join Server'),
  /** A join-request accepted (TTS: no data). */
  joinAccept: defineEvent('js.join.accept', 'accept join-request', { visibility: [Right.RIGHT_APPLICATION_TRAFFIC_READ], propagateToParent: true }),
  /** A join-request of a known device refused; data: the error. */
  joinReject: defineEvent('js.join.reject', 'reject join-request', {
    visibility: [Right.RIGHT_APPLICATION_TRAFFIC_READ],
    propagateToParent: true,
    dataType: 'ttn.lorawan.v3.ErrorDetails',
  }),
};
