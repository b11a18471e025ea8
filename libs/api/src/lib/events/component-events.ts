import { Right } from '../rpc/rights';
import { apiKeyEvents, defineEvent, deviceRegistryEvents, entityRegistryEvents } from './definitions';

/**
 * The events each component emits, defined once per component (names, visibility and data as TTS,
 * wire contract §7.3). The events service validates `names` filters against these.
 */

/** Identity Server. */
export const IS_EVENTS = {
  endDevice: deviceRegistryEvents('end_device', 'Identity Server'),
  application: entityRegistryEvents('application', [Right.RIGHT_APPLICATION_INFO], { restore: true }),
  applicationApiKey: apiKeyEvents('application', [Right.RIGHT_APPLICATION_SETTINGS_API_KEYS]),
  gateway: entityRegistryEvents('gateway', [Right.RIGHT_GATEWAY_INFO], { restore: true }),
  gatewayApiKey: apiKeyEvents('gateway', [Right.RIGHT_GATEWAY_SETTINGS_API_KEYS]),
  user: entityRegistryEvents('user', [Right.RIGHT_USER_INFO]),
  userApiKey: apiKeyEvents('user', [Right.RIGHT_USER_SETTINGS_API_KEYS]),
};

/** Join Server. */
export const JS_EVENTS = { endDevice: deviceRegistryEvents('js.end_device', 'Join Server') };

/** Network Server. */
export const NS_EVENTS = { endDevice: deviceRegistryEvents('ns.end_device', 'Network Server') };

/** Application Server. */
const TRAFFIC_READ = [Right.RIGHT_APPLICATION_TRAFFIC_READ];
const ERROR_DETAILS = 'ttn.lorawan.v3.ErrorDetails';
const APPLICATION_DOWNLINK = 'ttn.lorawan.v3.ApplicationDownlink';

export const AS_EVENTS = {
  endDevice: deviceRegistryEvents('as.end_device', 'Application Server'),
  /** Uplink decoding failed (the uplink is still forwarded, without `decoded_payload`). */
  upDataDecodeFail: defineEvent('as.up.data.decode.fail', 'decode uplink data message failure', { visibility: TRAFFIC_READ, propagateToParent: true, dataType: ERROR_DETAILS }),
  /** A downlink received for the queue (data: the plaintext downlink). */
  downDataReceive: defineEvent('as.down.data.receive', 'receive downlink data message', { visibility: TRAFFIC_READ, propagateToParent: true, dataType: APPLICATION_DOWNLINK }),
  /** A downlink queued (data: the encrypted downlink); device subscribers only, as TTS. */
  downDataForward: defineEvent('as.down.data.forward', 'forward downlink data message', { visibility: TRAFFIC_READ, dataType: APPLICATION_DOWNLINK }),
  /** A downlink dropped (data: the error). */
  downDataDrop: defineEvent('as.down.data.drop', 'drop downlink data message', { visibility: TRAFFIC_READ, propagateToParent: true, dataType: ERROR_DETAILS }),
};

/** The events service itself: the first message of every stream (no visibility: always shown). */
export const EVENTS_EVENTS = {
  streamStart: defineEvent('events.stream.start', 'stream start', { visibility: [], dataType: 'google.protobuf.Value' }),
};
